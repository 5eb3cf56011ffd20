import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';

import { Messenger } from '../../../nodes/Messenger/Messenger.node.ts';
import { searchContacts } from '../../../nodes/Messenger/methods/listSearch.ts';
import { getWhatsappNumbers } from '../../../nodes/Messenger/methods/loadOptions.ts';
import { DEMO_CLIENTS, ENDPOINTS, startSandbox } from '../../../sandbox/server.mjs';
import { binaryItem, sha256 } from '../../../tools/binary.mjs';
import { createLoadOptionsContext } from '../../../tools/context.mjs';
import { NodeApiError, NodeOperationError } from '../../../tools/nodeShared.mjs';
import { requestsSince, sandboxRunner } from '../../../tools/sandboxRun.mjs';

const rl = (value) => ({ __rl: true, mode: 'id', value });
const M = '/api/v1/messenger';
const plain = (value) => JSON.parse(JSON.stringify(value));

describe('Messenger node against the sandbox', () => {
	let sandbox;
	let messenger;
	let mark;
	/** Requests since the test started, token exchanges left out. */
	const apiRequests = () => requestsSince(sandbox, mark).filter((r) => !r.includes('/auth/token'));

	before(async () => {
		sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 0 });
		messenger = sandboxRunner(Messenger, sandbox, DEMO_CLIENTS.messengerOnly);
	});
	after(async () => {
		await sandbox.close();
	});
	beforeEach(() => {
		mark = sandbox.log.length;
	});

	const loadOptionsContext = () =>
		createLoadOptionsContext({ credentials: messenger.store.data, http: messenger.http });
	const openChat = () => sandbox.state.chats.find((c) => c.status === 'open');

	it('WhatsApp Number → Get Many lists the numbers; the dropdown shows them by name', async () => {
		const output = await messenger.run({
			resource: 'whatsappNumber',
			operation: 'getAll',
			returnAll: true,
			options: {},
		});
		assert.deepEqual(
			output.map((o) => o.json),
			plain(sandbox.state.whatsappNumbers),
		);
		const limited = await messenger.run({
			resource: 'whatsappNumber',
			operation: 'getAll',
			returnAll: false,
			limit: 2,
			options: {},
		});
		assert.equal(limited.length, 2);
		const options = await getWhatsappNumbers.call(loadOptionsContext());
		assert.deepEqual(
			options.map((o) => o.value),
			sandbox.state.whatsappNumbers.map((n) => n.id),
		);
		assert.match(options[0].name, /^Main line \(\+\d+\)$/);
		assert.deepEqual(apiRequests(), Array(3).fill(`GET ${M}/messages/whatsapp-numbers 200`));
	});

	it('Chat → Check Existing: true with the ID for an open chat, false for a closed one', async () => {
		const open = openChat();
		const closed = sandbox.state.chats.find(
			(c) =>
				c.status === 'closed' &&
				!sandbox.state.chats.some((o) => o.status === 'open' && o.phone === c.phone),
		);
		const [yes] = await messenger.run({
			resource: 'chat',
			operation: 'checkExisting',
			phone: open.phone.replace(/^\+(\d\d)(\d{3})/, '+$1 $2 '),
			options: {},
		});
		assert.deepEqual(yes.json, { exists: true, chatId: open.id });
		const [no] = await messenger.run({
			resource: 'chat',
			operation: 'checkExisting',
			phone: closed.phone,
			options: {},
		});
		assert.deepEqual(no.json, { exists: false, chatId: null });
		const checks = sandbox.log.slice(mark).filter((e) => e.path === `${M}/chats/check-existing`);
		assert.deepEqual(
			checks.map((e) => [e.query.phone, e.status]),
			[
				[open.phone, 200],
				[closed.phone, 200],
			],
		);
	});

	it('Message → Send Media by URL sends exactly one message', async () => {
		const chat = openChat();
		const before = sandbox.state.messages.length;
		const [item] = await messenger.run({
			resource: 'message',
			operation: 'sendMedia',
			chatId: chat.id,
			url: 'https://example.com/brochure.pdf',
			mediaType: 'document',
			options: { caption: 'Our brochure', fileName: 'brochure.pdf' },
		});
		assert.equal(sandbox.state.messages.length, before + 1);
		assert.deepEqual(item.json, plain(sandbox.state.messages.at(-1)));
		assert.equal(item.json.type, 'document');
		assert.deepEqual(item.json.content, {
			url: 'https://example.com/brochure.pdf',
			caption: 'Our brochure',
			fileName: 'brochure.pdf',
		});
		assert.deepEqual(apiRequests(), [`POST ${M}/messages/send/media 200`]);
	});

	it('Message → Send Media to Phone from a chosen number opens a chat for a new phone', async () => {
		const [number] = await getWhatsappNumbers.call(loadOptionsContext());
		const before = sandbox.state.messages.length;
		const chatsBefore = sandbox.state.chats.length;
		const [item] = await messenger.run({
			resource: 'message',
			operation: 'sendMediaToPhone',
			phone: '+34 699 000 111',
			url: 'https://example.com/p.jpg',
			mediaType: 'image',
			options: { whatsappNumberId: number.value, caption: 'Hi' },
		});
		assert.equal(sandbox.state.messages.length, before + 1);
		assert.equal(sandbox.state.chats.length, chatsBefore + 1);
		assert.equal(sandbox.state.chats.at(-1).phone, '+34699000111');
		assert.equal(item.json.chatId, sandbox.state.chats.at(-1).id);
		assert.equal(item.json.type, 'image');
		await assert.rejects(
			messenger.run({
				resource: 'message',
				operation: 'sendMediaToPhone',
				phone: '+34699000111',
				url: 'https://example.com/p.jpg',
				mediaType: 'image',
				options: { whatsappNumberId: 'wan_nope' },
			}),
			/WhatsApp number not found/,
		);
		assert.equal(sandbox.state.messages.length, before + 1, 'the refused send added nothing');
		assert.deepEqual(apiRequests(), [
			`GET ${M}/messages/whatsapp-numbers 200`,
			`POST ${M}/messages/send/media-to-phone 200`,
			`POST ${M}/messages/send/media-to-phone 404`,
		]);
	});

	it('Message → Send Location sends exactly one location', async () => {
		const chat = openChat();
		const before = sandbox.state.messages.length;
		const [item] = await messenger.run({
			resource: 'message',
			operation: 'sendLocation',
			chatId: chat.id,
			latitude: 41.3874,
			longitude: 2.1686,
			options: { name: 'Office', address: 'Plaça de Catalunya' },
		});
		assert.equal(sandbox.state.messages.length, before + 1);
		assert.equal(item.json.type, 'location');
		assert.deepEqual(item.json.content, {
			latitude: 41.3874,
			longitude: 2.1686,
			name: 'Office',
			address: 'Plaça de Catalunya',
		});
		assert.deepEqual(apiRequests(), [`POST ${M}/messages/send/location 200`]);
	});

	it('Message → Send Media File uploads the exact bytes once, with name, type and caption', async () => {
		const chat = openChat();
		const data = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(300_000)]);
		const before = {
			messages: sandbox.state.messages.length,
			uploads: sandbox.state.uploads.length,
		};
		const [item] = await messenger.run(
			{
				resource: 'message',
				operation: 'sendMediaFile',
				chatId: chat.id,
				binaryPropertyName: 'data',
				options: { caption: 'Invoice for May' },
			},
			{ items: [binaryItem(data, { fileName: 'invoice-may.pdf', mimeType: 'application/pdf' })] },
		);
		assert.equal(sandbox.state.messages.length, before.messages + 1);
		assert.equal(sandbox.state.uploads.length, before.uploads + 1);
		const upload = sandbox.state.uploads.at(-1);
		assert.equal(upload.sha256, sha256(data));
		assert.equal(upload.size, data.length);
		assert.equal(upload.fileName, 'invoice-may.pdf');
		assert.equal(upload.mimeType, 'application/pdf');
		assert.equal(upload.caption, 'Invoice for May');
		assert.equal(upload.chatId, chat.id);
		assert.equal(upload.messageId, item.json.id);
		assert.equal(item.json.type, 'document');
		assert.deepEqual(apiRequests(), [`POST ${M}/messages/send/media-file 200`]);
	});

	it('Send Media File after the token expired: 401, a new token, the same body again, one upload', async () => {
		const chat = openChat();
		const data = randomBytes(1_500_000);
		const before = {
			messages: sandbox.state.messages.length,
			uploads: sandbox.state.uploads.length,
		};
		await messenger.run({
			resource: 'whatsappNumber',
			operation: 'getAll',
			returnAll: true,
			options: {},
		}); // a token is held
		mark = sandbox.log.length;
		sandbox.expireTokens();
		const [item] = await messenger.run(
			{
				resource: 'message',
				operation: 'sendMediaFile',
				chatId: chat.id,
				binaryPropertyName: 'photo',
				options: { fileName: 'tienda señal "2".jpg' },
			},
			{
				items: [
					binaryItem(data, { property: 'photo', fileName: 'IMG_0001.JPG', mimeType: 'image/jpeg' }),
				],
			},
		);
		assert.deepEqual(requestsSince(sandbox, mark), [
			`POST ${M}/messages/send/media-file 401`,
			'POST /api/v1/auth/token 200',
			`POST ${M}/messages/send/media-file 200`,
		]);
		assert.equal(sandbox.state.uploads.length, before.uploads + 1, 'exactly one upload recorded');
		assert.equal(sandbox.state.messages.length, before.messages + 1);
		const upload = sandbox.state.uploads.at(-1);
		assert.equal(upload.sha256, sha256(data));
		assert.equal(
			upload.fileName,
			'tienda señal %222%22.jpg',
			'UTF-8 arrives intact; quotes are escaped as RFC 7578 says',
		);
		assert.equal(upload.mimeType, 'image/jpeg');
		assert.equal(item.json.type, 'image');
	});

	it('Send Media File over 25 MB is refused by the API (413) and records nothing', async () => {
		const chat = openChat();
		const before = sandbox.state.uploads.length;
		const [item] = await messenger.run(
			{
				resource: 'message',
				operation: 'sendMediaFile',
				chatId: chat.id,
				binaryPropertyName: 'data',
				options: {},
			},
			{
				items: [
					binaryItem(Buffer.alloc(26_214_401, 1), { fileName: 'big.mp4', mimeType: 'video/mp4' }),
				],
				continueOnFail: true,
			},
		);
		assert.match(item.json.error, /too large \(413\)/);
		assert.equal(sandbox.state.uploads.length, before);
		assert.deepEqual(apiRequests(), [`POST ${M}/messages/send/media-file 413`]);
	});

	it('Message → Get and Remove Reaction', async () => {
		const withReaction = sandbox.state.messages.find((m) => m.reaction);
		const [got] = await messenger.run({
			resource: 'message',
			operation: 'get',
			messageId: withReaction.id,
		});
		assert.deepEqual(got.json, plain(withReaction));
		const [removed] = await messenger.run({
			resource: 'message',
			operation: 'removeReaction',
			messageId: withReaction.id,
		});
		assert.deepEqual(removed.json, { success: true });
		assert.equal(withReaction.reaction, null);
		await assert.rejects(
			messenger.run({ resource: 'message', operation: 'get', messageId: 'msg_nope' }),
			/Message not found: "msg_nope"/,
		);
		assert.deepEqual(apiRequests(), [
			`GET ${M}/messages/${withReaction.id} 200`,
			`DELETE ${M}/messages/${withReaction.id}/react 200`,
			`GET ${M}/messages/msg_nope 404`,
		]);
	});

	it('Chat → Get Messages: Return All pages through the history; Limit asks once', async () => {
		const chat = sandbox.state.chats[0];
		const history = sandbox.state.messages.filter((m) => m.chatId === chat.id);
		assert.ok(history.length > 20);
		const all = await messenger.run({
			resource: 'chat',
			operation: 'getMessages',
			chatId: chat.id,
			returnAll: true,
			options: {},
		});
		assert.deepEqual(new Set(all.map((o) => o.json.id)), new Set(history.map((m) => m.id)));
		assert.equal(all.length, history.length);
		mark = sandbox.log.length;
		const five = await messenger.run({
			resource: 'chat',
			operation: 'getMessages',
			chatId: chat.id,
			returnAll: false,
			limit: 5,
			options: { sort: 'asc' },
		});
		assert.equal(five.length, 5);
		const created = five.map((o) => o.json.createdAt);
		assert.deepEqual(created, [...created].sort());
		assert.deepEqual(
			sandbox.log.slice(mark).map((e) => [e.path, e.query.limit, e.query.sort, e.status]),
			[[`${M}/messages/chat/${chat.id}`, '5', 'asc', 200]],
		);
	});

	it('Chat → Mark Important sets and clears the mark', async () => {
		const chat = sandbox.state.chats.find((c) => !c.important);
		const [marked] = await messenger.run({
			resource: 'chat',
			operation: 'markImportant',
			chatId: chat.id,
			important: true,
			options: {},
		});
		assert.equal(marked.json.important, true);
		assert.equal(chat.important, true);
		const [cleared] = await messenger.run({
			resource: 'chat',
			operation: 'markImportant',
			chatId: chat.id,
			important: false,
			options: {},
		});
		assert.equal(cleared.json.important, false);
		assert.equal(chat.important, false);
		assert.deepEqual(
			apiRequests(),
			Array(2).fill(`PATCH ${M}/chats/${chat.id}/mark-important 200`),
		);
	});

	it('Chat → Reopen opens a closed chat; reopening an open one says it is already open', async () => {
		const chat = sandbox.state.chats.find((c) => c.status === 'closed');
		const [reopened] = await messenger.run({
			resource: 'chat',
			operation: 'reopen',
			chatId: chat.id,
		});
		assert.equal(reopened.json.status, 'open');
		assert.equal(chat.status, 'open');
		await assert.rejects(
			messenger.run({ resource: 'chat', operation: 'reopen', chatId: chat.id }),
			(error) => {
				assert.ok(error instanceof NodeApiError);
				assert.match(error.message, new RegExp(`Chat "${chat.id}" is already open`));
				assert.match(error.description, /Chat is already open/);
				return true;
			},
		);
		assert.deepEqual(apiRequests(), [
			`PATCH ${M}/chats/${chat.id}/reopen 200`,
			`PATCH ${M}/chats/${chat.id}/reopen 409`,
		]);
	});

	it('Contact → Create, Update Attribute, then Search finds it with the new value; Get and Replace Attributes', async () => {
		const [created] = await messenger.run({
			resource: 'contact',
			operation: 'create',
			name: 'Zoe Quintana',
			phone: '+34 611 222 333',
			options: { email: 'zoe.q@example.com', attributes: '{"plan": "basic", "city": "Sevilla"}' },
		});
		assert.equal(created.json.phone, '+34611222333');
		assert.deepEqual(created.json.attributes, { plan: 'basic', city: 'Sevilla' });
		const id = created.json.id;
		const [updated] = await messenger.run({
			resource: 'contact',
			operation: 'updateAttribute',
			contactId: rl(id),
			key: 'plan',
			valueType: 'text',
			value: 'gold',
			options: {},
		});
		assert.equal(updated.json.attributes.plan, 'gold');
		await messenger.run({
			resource: 'contact',
			operation: 'updateAttribute',
			contactId: rl(id),
			key: 'score',
			valueType: 'json',
			value: '42',
			options: {},
		});
		const found = await messenger.run({
			resource: 'contact',
			operation: 'search',
			customer: 'quintana',
			returnAll: true,
			options: {},
		});
		assert.deepEqual(
			found.map((o) => [o.json.id, o.json.attributes.plan, o.json.attributes.score]),
			[[id, 'gold', 42]],
		);
		const list = await searchContacts.call(loadOptionsContext(), 'Zoe');
		assert.deepEqual(list.results, [{ name: 'Zoe Quintana (+34611222333)', value: id }]);
		const [got] = await messenger.run({
			resource: 'contact',
			operation: 'get',
			contactId: { __rl: true, mode: 'list', value: id },
		});
		assert.equal(got.json.attributes.plan, 'gold');
		const [replaced] = await messenger.run({
			resource: 'contact',
			operation: 'replaceAttributes',
			contactId: rl(id),
			attributes: '{"vip": true}',
			options: {},
		});
		assert.deepEqual(replaced.json.attributes, { vip: true });
		assert.deepEqual(sandbox.state.contacts.find((c) => c.id === id).attributes, { vip: true });
		assert.deepEqual(apiRequests(), [
			`POST ${M}/contacts 201`,
			`PATCH ${M}/contacts/${id}/attributes/plan 200`,
			`PATCH ${M}/contacts/${id}/attributes/score 200`,
			`GET ${M}/contacts/search/quintana 200`,
			`GET ${M}/contacts/search/Zoe 200`,
			`GET ${M}/contacts/${id} 200`,
			`PUT ${M}/contacts/${id}/attributes 200`,
		]);
	});

	it('Contact → Create with a phone that exists says so (409); an unknown contact is "not found"', async () => {
		const existing = sandbox.state.contacts[0];
		await assert.rejects(
			messenger.run({
				resource: 'contact',
				operation: 'create',
				name: 'Dup',
				phone: existing.phone,
				options: {},
			}),
			new RegExp(`A contact with the phone \\${existing.phone} already exists`),
		);
		await assert.rejects(
			messenger.run({ resource: 'contact', operation: 'get', contactId: rl('ctc_nope') }),
			/Contact not found: "ctc_nope"/,
		);
	});

	it('Broadcast → Send to three recipients, then Get Status of each after progress', async () => {
		const before = sandbox.state.broadcastMessages.length;
		const [number] = sandbox.state.whatsappNumbers;
		const sent = await messenger.run({
			resource: 'broadcast',
			operation: 'send',
			channel: 'whatsapp',
			recipientsInput: 'rows',
			recipients: {
				recipient: [
					{ phone: '+34 600 111 222', variables: '{"name": "Ana"}' },
					{ phone: '+34600330000' },
					{ phone: '+447700900123' },
				],
			},
			messageContent: 'template',
			templateId: 'order_ready',
			options: { whatsappNumberId: number.id },
		});
		assert.equal(sandbox.state.broadcastMessages.length, before + 3);
		assert.deepEqual(
			sent.map((o) => [o.json.recipient, o.json.status, o.pairedItem.item]),
			[
				['+34600111222', 'queued', 0],
				['+34600330000', 'queued', 0],
				['+447700900123', 'queued', 0],
			],
		);
		sandbox.advance();
		const statuses = await messenger.run({
			resource: 'broadcast',
			operation: 'getStatus',
			messageIds: sent.map((o) => o.json.id),
		});
		assert.deepEqual(
			statuses.map((o) => o.json.id),
			sent.map((o) => o.json.id),
		);
		assert.equal(statuses[1].json.status, 'failed', 'a phone ending in 0000 fails');
		assert.ok(statuses[1].json.error);
		assert.equal(statuses[0].json.status, 'sent');
		assert.deepEqual(apiRequests(), [
			`POST ${M}/broadcast/messages 200`,
			...sent.map((o) => `GET ${M}/broadcast/messages/${o.json.id} 200`),
		]);
	});

	it('Broadcast → Send by email from a JSON array, status by comma-separated IDs', async () => {
		const sent = await messenger.run({
			resource: 'broadcast',
			operation: 'send',
			channel: 'email',
			recipientsInput: 'json',
			recipientsJson: JSON.stringify([
				{ email: 'ana@example.com', variables: { code: 'A1' } },
				{ email: 'fail.bob@example.com' },
			]),
			messageContent: 'text',
			text: 'Your code is ready',
			options: {},
		});
		assert.deepEqual(
			sent.map((o) => [o.json.channel, o.json.recipient]),
			[
				['email', 'ana@example.com'],
				['email', 'fail.bob@example.com'],
			],
		);
		const statuses = await messenger.run({
			resource: 'broadcast',
			operation: 'getStatus',
			messageIds: sent.map((o) => o.json.id).join(', '),
		});
		assert.equal(statuses.length, 2);
		await assert.rejects(
			messenger.run({ resource: 'broadcast', operation: 'getStatus', messageIds: 'bcm_nope' }),
			/Broadcast message not found: "bcm_nope"/,
		);
	});

	it('bad input sends nothing at all', async () => {
		const chat = openChat();
		const attempts = [
			{
				resource: 'message',
				operation: 'sendMediaToPhone',
				phone: '600123456',
				url: 'https://e.com/a.jpg',
				mediaType: 'image',
				options: {},
			},
			{
				resource: 'message',
				operation: 'sendLocation',
				chatId: chat.id,
				latitude: 100,
				longitude: 0,
				options: {},
			},
			{
				resource: 'contact',
				operation: 'updateAttribute',
				contactId: rl('x/../../auth/token'),
				key: 'a',
				valueType: 'text',
				value: '',
				options: {},
			},
			{
				resource: 'broadcast',
				operation: 'send',
				channel: 'sms',
				recipientsInput: 'rows',
				recipients: {},
				messageContent: 'text',
				text: 'x',
				options: {},
			},
		];
		for (const params of attempts) {
			await assert.rejects(messenger.run(params), (error) => error instanceof NodeOperationError);
		}
		await assert.rejects(
			messenger.run(
				{
					resource: 'message',
					operation: 'sendMediaFile',
					chatId: chat.id,
					binaryPropertyName: 'data',
					options: {},
				},
				{
					items: [
						binaryItem(Buffer.from('MZ'), {
							fileName: 'a.exe',
							mimeType: 'application/x-msdownload',
						}),
					],
				},
			),
			/cannot be sent/,
		);
		assert.deepEqual(requestsSince(sandbox, mark), []);
	});

	it('a client without the messenger role gets an error naming the role', async () => {
		const voiceOnly = sandboxRunner(Messenger, sandbox, DEMO_CLIENTS.voiceOnly);
		await assert.rejects(
			voiceOnly.run({
				resource: 'whatsappNumber',
				operation: 'getAll',
				returnAll: true,
				options: {},
			}),
			/"messenger" role/,
		);
	});

	it('the node reached every messaging endpoint', () => {
		const messaging = ENDPOINTS.filter((e) => e.path.startsWith(`${M}/`));
		assert.equal(messaging.length, 18);
		const toPattern = (path) => new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
		const succeeded = sandbox.log.filter((e) => e.status >= 200 && e.status < 300);
		// `/messages/{id}` must not count a call of the literal `/messages/whatsapp-numbers`.
		const literal = new Set(
			messaging.filter((e) => !e.path.includes('{')).map((e) => `${e.method} ${e.path}`),
		);
		const missing = messaging.filter(
			(endpoint) =>
				!succeeded.some(
					(e) =>
						e.method === endpoint.method &&
						toPattern(endpoint.path).test(e.path) &&
						(!endpoint.path.includes('{') || !literal.has(`${e.method} ${e.path}`)),
				),
		);
		assert.deepEqual(
			missing.map((e) => `${e.method} ${e.path}`),
			[],
		);
	});
});
