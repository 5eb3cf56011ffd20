// The messaging examples in examples/ in a real n8n (the run's shared one: test/support/n8n.mjs),
// against the sandbox, with the credential `npm start` creates, run the way the editor's "Execute
// workflow" button runs them (REST, mode `manual`): sending a document by phone and the broadcast
// delivery follow-up from their Manual Trigger, the reply follow-up and customer documents from
// their Messenger Trigger, which fetches a test event (a real sample from the sandbox).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import {
	assignment,
	examplesN8n,
	exampleSuite,
	itemsOf,
	nodeNamed,
	nodeOfType,
	ranNodes,
} from './examples.mjs';

const { example, files, notRun } = exampleSuite('messaging');

describe('messaging examples in a real n8n', { timeout: 6 * 60_000 }, () => {
	const ex = examplesN8n(files);

	describe('send-document-by-phone', () => {
		const FILE = 'send-document-by-phone.json';

		/** Runs the example (or a copy with another phone); returns the run data and the new messages. */
		async function sendTo(workflow) {
			const before = ex.sandbox.state.messages.length;
			const chatsBefore = ex.sandbox.state.chats.length;
			const { runData } = await ex.execute(workflow);
			return {
				runData,
				sent: ex.sandbox.state.messages.slice(before),
				newChats: ex.sandbox.state.chats.slice(chatsBefore),
			};
		}

		it('as shipped: the contact has an open chat, so exactly one document goes into that chat', async () => {
			const workflow = example(FILE);
			const input = nodeNamed(workflow, 'Phone and document');
			const phone = assignment(input, 'phone');
			const url = assignment(input, 'documentUrl');
			const fileName = assignment(input, 'fileName');
			const contact = ex.sandbox.state.contacts.find((c) => c.phone === phone);
			const chat = ex.sandbox.state.chats.find((c) => c.phone === phone && c.status === 'open');
			assert.ok(
				contact && chat,
				`the sample phone ${phone} is a sandbox contact with an open chat`,
			);

			const { runData, sent, newChats } = await sendTo(workflow);
			assert.deepEqual(itemsOf(runData, 'Find contact by phone'), [contact]);
			assert.deepEqual(itemsOf(runData, 'Open chat?'), [{ exists: true, chatId: chat.id }]);
			assert.ok(!ranNodes(runData).includes('Send to the phone'), 'the phone branch did not run');
			assert.equal(sent.length, 1, JSON.stringify(sent, null, 2));
			assert.deepEqual(newChats, []);
			const [message] = sent;
			assert.equal(message.chatId, chat.id);
			assert.equal(message.type, 'document');
			assert.equal(message.direction, 'outbound');
			assert.deepEqual(message.content, {
				url,
				caption: `Hello ${contact.name}, here is your document.`,
				fileName,
			});
			assert.deepEqual(itemsOf(runData, 'Send to the open chat'), [
				JSON.parse(JSON.stringify(message)),
			]);
		});

		it('a contact without an open chat: exactly one document goes to their phone, in a new chat', async () => {
			const workflow = structuredClone(example(FILE));
			const contact = ex.sandbox.state.contacts.find(
				(c) => !ex.sandbox.state.chats.some((chat) => chat.phone === c.phone),
			);
			assert.ok(contact, 'the sandbox has a contact without any chat');
			workflow.id = 'vmExampleSendDo2';
			workflow.name += ' (contact without a chat)';
			const input = nodeNamed(workflow, 'Phone and document');
			input.parameters.assignments.assignments.find((a) => a.name === 'phone').value =
				contact.phone;
			await ex.n8n.importWorkflow(workflow);

			const { runData, sent, newChats } = await sendTo(workflow);
			assert.deepEqual(itemsOf(runData, 'Open chat?'), [{ exists: false, chatId: null }]);
			assert.ok(
				!ranNodes(runData).includes('Send to the open chat'),
				'the chat branch did not run',
			);
			assert.equal(sent.length, 1, JSON.stringify(sent, null, 2));
			assert.equal(newChats.length, 1);
			assert.equal(newChats[0].phone, contact.phone);
			assert.equal(newChats[0].contactId, contact.id);
			assert.equal(sent[0].chatId, newChats[0].id);
			assert.equal(sent[0].type, 'document');
			assert.equal(sent[0].content.caption, `Hello ${contact.name}, here is your document.`);
			assert.deepEqual(itemsOf(runData, 'Send to the phone'), [
				JSON.parse(JSON.stringify(sent[0])),
			]);
		});
	});

	it('broadcast-delivery-follow-up: N messages sent, N statuses after the wait, the failed one listed', async () => {
		const workflow = example('broadcast-delivery-follow-up.json');
		const send = nodeNamed(workflow, 'Send order updates');
		const rows = send.parameters.recipients.recipient;
		assert.ok(rows.length >= 2, 'a few recipients');
		const failing = rows.filter((row) => /0000$/.test(row.phone));
		assert.equal(failing.length, 1, 'one sample number the sandbox fails on purpose');

		// The sandbox does not progress by itself here: move it one step as soon as the messages
		// exist (queued → sent; a number ending in 0000 → failed), i.e. during the Wait.
		const before = ex.sandbox.state.broadcastMessages.length;
		let advanced = false;
		const watcher = setInterval(() => {
			if (!advanced && ex.sandbox.state.broadcastMessages.length > before) {
				advanced = true;
				ex.sandbox.advance(1);
			}
		}, 20);
		let runData;
		try {
			({ runData } = await ex.execute(workflow));
		} finally {
			clearInterval(watcher);
		}
		const created = ex.sandbox.state.broadcastMessages.slice(before);
		assert.equal(created.length, rows.length, 'one message per recipient');
		assert.deepEqual(
			created.map((m) => [m.channel, m.recipient]),
			rows.map((row) => ['whatsapp', row.phone]),
		);
		const sentItems = itemsOf(runData, 'Send order updates');
		assert.deepEqual(
			sentItems.map((m) => [m.id, m.status]),
			created.map((m) => [m.id, 'queued']),
		);

		const wait = runData['Wait 5 seconds'][0];
		assert.ok(wait.executionTime >= 4_900, `the Wait node waited ${wait.executionTime} ms`);
		const statuses = itemsOf(runData, 'Get delivery status');
		assert.deepEqual(
			statuses.map((m) => m.id),
			created.map((m) => m.id),
			'one status per message, in order',
		);
		assert.deepEqual(
			statuses.map((m) => m.status),
			rows.map((row) => (/0000$/.test(row.phone) ? 'failed' : 'sent')),
		);
		const failedMessage = created.find((m) => m.recipient === failing[0].phone);
		assert.deepEqual(itemsOf(runData, 'List failures'), [
			{
				recipient: failing[0].phone,
				channel: 'whatsapp',
				messageId: failedMessage.id,
				error: 'Recipient unreachable',
				alert: `❌ whatsapp message ${failedMessage.id} to ${failing[0].phone} failed: Recipient unreachable`,
			},
		]);
		assert.equal(itemsOf(runData, 'Failed?', 1).length, rows.length - 1, 'the others: not failed');
	});

	describe('from their trigger (Fetch Test Event)', () => {
		it('reply-follow-up: the customer’s newest message marks the chat important and gets the price list', async () => {
			const workflow = example('reply-follow-up.json');
			const trigger = nodeOfType(workflow, 'n8n-nodes-voice-messaging.messengerLiveTrigger');
			assert.equal(trigger.parameters.event, 'messageReceived');
			const chat = ex.sandbox.state.chats.find((c) => c.phone === trigger.parameters.chats);
			assert.ok(chat, `the sandbox has a chat for ${trigger.parameters.chats}`);
			chat.important = false;
			const [wrote] = ex.sandbox.customerWrites({
				chatId: chat.id,
				text: 'E2E: is the quote still valid?',
			}).items;
			const run = await ex.runTrigger(workflow);
			const [event] = itemsOf(run.runData, run.trigger);
			assert.deepEqual(
				[event.messageId, event.chatId, event.phone, event.direction, event.text],
				[wrote.id, chat.id, chat.phone, 'inbound', 'E2E: is the quote still valid?'],
			);
			assert.equal(itemsOf(run.runData, 'Mark the chat important')[0].important, true);
			assert.equal(chat.important, true);
			const [sent] = itemsOf(run.runData, 'Answer with the price list');
			const reply = ex.sandbox.state.messages.find((m) => m.id === sent.id);
			assert.deepEqual(
				[reply.chatId, reply.direction, reply.type],
				[chat.id, 'outbound', 'document'],
			);
			assert.match(reply.content.caption, /"E2E: is the quote still valid\?"/);
		});
	});

	describe('customer-documents', () => {
		it('the file the customer sent is saved with its bytes, and the customer gets one answer', async () => {
			const shipped = example('customer-documents.json');
			// The run's n8n may write only below its files folder (npm start allows /tmp/customer-documents).
			const workflow = structuredClone(shipped);
			workflow.id = 'e2eExCustDocs01';
			const save = nodeNamed(workflow, 'Save the file');
			save.parameters.fileName = save.parameters.fileName.replace(
				'/tmp/customer-documents',
				ex.n8n.filesDir,
			);
			await ex.n8n.importWorkflows([workflow]);
			const trigger = nodeOfType(workflow, 'n8n-nodes-voice-messaging.messengerTrigger');
			assert.deepEqual(
				[trigger.parameters.options.downloadMedia, trigger.parameters.options.groupByChat],
				[true, true],
			);
			const chat = ex.sandbox.state.chats.find((c) => c.phone === trigger.parameters.chats);
			const [doc] = ex.sandbox.customerWrites({
				chatId: chat.id,
				type: 'document',
				fileSize: 400_000,
				fileName: 'Invoice 2026-11.pdf',
				text: 'E2E: my invoice',
			}).items;
			const before = ex.sandbox.state.messages.length;
			const run = await ex.runTrigger(workflow);
			const [group] = itemsOf(run.runData, run.trigger);
			assert.deepEqual(
				[group.chatId, group.messageIds, group.text],
				[chat.id, [doc.id], 'E2E: my invoice'],
			);
			const replies = ex.sandbox.state.messages.slice(before).filter((m) => m.chatId === chat.id);
			assert.equal(replies.length, 1, 'one answer for the group');
			assert.match(replies[0].content.caption, /your 1 message\(s\) and your files/);
			const saved = readdirSync(ex.n8n.filesDir).find((f) => f.startsWith(doc.id));
			assert.equal(saved, `${doc.id}-Invoice 2026-11.pdf`);
			const fileId = /med_\w+/.exec(doc.content.url)[0];
			const bytes = readFileSync(join(ex.n8n.filesDir, saved));
			assert.equal(
				createHash('sha256').update(bytes).digest('hex'),
				ex.sandbox.mediaSha256(fileId),
			);
		});
	});

	it('every example of this suite (RUN_BY in examples.mjs) was run by a test above', () => {
		assert.deepEqual(
			notRun(),
			[],
			'examples without a test: add one to test/e2e/examples/messaging.e2e.test.mjs',
		);
	});
});
