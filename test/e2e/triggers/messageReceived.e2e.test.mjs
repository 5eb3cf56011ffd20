// Messenger Trigger, Message Received, polling for real: activated workflows in a running n8n
// against the sandbox, whose demo customers write between two polls (each test changes the
// sandbox right after a poll and waits for the next one). A baseline at activation, one message,
// a chat and a phone in one list, several messages, a burst over three history pages. After a
// restart of n8n: messageReceivedRestart.e2e.test.mjs. On n8n 1.x: n8n1.e2e.test.mjs.
import assert from 'node:assert/strict';
import { describe } from 'node:test';

import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { sandboxCredential, suiteOptions } from '../harness.mjs';
import { messageReceivedSteps, messageReceivedWorkflow } from './messageReceived.mjs';
import { usePollingN8n } from './polling.mjs';

const { version, title, it } = suiteOptions(
	'Messenger Trigger, Message Received, in an activated workflow of a running n8n',
);

const WORKFLOW_ID = 'e2eMsgReceived01';
const CREDENTIAL = { id: 'e2eMsgRecvCred01', name: 'Message Received client (e2e)' };
const CLIENT = DEMO_CLIENTS.messengerOnly;
/**
 * A second workflow, with its own client (its polls do not count as the first one's), watching a
 * chat by ID and a phone written as WhatsApp shows numbers, in one Chats list.
 */
const BOTH = {
	workflowId: 'e2eMsgReceived02',
	credential: { id: 'e2eMsgRecvCred02', name: 'Message Received, chat and phone (e2e)' },
	client: DEMO_CLIENTS.full,
	phoneAsWritten: '+52 1 55 9999 9999',
	phone: '+5215599999999',
};

describe(title, { timeout: 15 * 60_000 }, () => {
	/** The chat the first workflow watches, and the second workflow's. */
	let chatA;
	let chatC;
	const suite = usePollingN8n({
		version,
		credentials: (sandbox) => [
			sandboxCredential(CREDENTIAL, sandbox, CLIENT),
			sandboxCredential(BOTH.credential, sandbox, BOTH.client),
		],
		workflows: (sandbox, cronSecond) => {
			[chatA, , chatC] = sandbox.state.chats;
			const chats = `${chatC.id}, ${BOTH.phoneAsWritten}`;
			return [
				messageReceivedWorkflow(WORKFLOW_ID, CREDENTIAL, chatA.id, cronSecond),
				messageReceivedWorkflow(BOTH.workflowId, BOTH.credential, chats, cronSecond),
			];
		},
	});
	const { baseline, pollCount, messagesOfNextPoll, afterAPoll, assertNothingTwice, diagnostics } =
		messageReceivedSteps(suite, { workflowId: WORKFLOW_ID, client: CLIENT, watched: () => chatA });
	const pollCountOfBoth = () => pollCount(BOTH.client, chatC);

	it('activation records a baseline and starts no execution, although the chat has history', async () => {
		const { sandbox, api } = suite;
		await baseline();
		await afterAPoll();
		assert.ok(
			sandbox.state.messages.some((m) => m.chatId === chatA.id && m.direction === 'inbound'),
		);
		assert.deepEqual(await api.executionsOf(WORKFLOW_ID), []);
		assert.deepEqual(
			sandbox.log.filter((e) => e.status >= 400),
			[],
		);
	});

	it('a message written between two polls starts one execution with it', async () => {
		const polls = await afterAPoll();
		const [message] = suite.sandbox.customerWrites({
			chatId: chatA.id,
			text: 'Is the quote still valid?',
		}).items;
		const executions = await messagesOfNextPoll(polls);
		assert.equal(executions.length, 1, JSON.stringify(executions));
		assert.deepEqual(
			executions[0].map((i) => [i.messageId, i.chatId, i.direction, i.type, i.text]),
			[[message.id, chatA.id, 'inbound', 'text', 'Is the quote still valid?']],
		);
	});

	it('a trigger watching "<chat ID>, +52 1 55 9999 9999" activates and reports messages of both', async () => {
		const { sandbox, api } = suite;
		// Activated with the first workflow: the phone (no chat yet) was looked up as +5215599999999.
		await afterAPoll();
		const polls = pollCountOfBoth();
		assert.ok(polls >= 1, `the second workflow did not poll${diagnostics()}`);
		assert.deepEqual(await api.executionsOf(BOTH.workflowId), []);
		const checks = sandbox.log.filter(
			(e) => e.clientId === BOTH.client.clientId && e.path.endsWith('/chats/check-existing'),
		);
		assert.ok(checks.length >= 1);
		for (const check of checks)
			assert.deepEqual([check.query.phone, check.status], [BOTH.phone, 200]);
		const [inChat] = sandbox.customerWrites({ chatId: chatC.id, text: 'About my order' }).items;
		const written = sandbox.customerWrites({ phone: BOTH.phone, text: 'Hola, soy cliente nuevo' });
		const executions = await messagesOfNextPoll(polls, BOTH.workflowId, pollCountOfBoth);
		const byId = (a, b) => (a[0] < b[0] ? -1 : 1);
		assert.deepEqual(
			executions
				.flat()
				.map((i) => [i.messageId, i.chatId, i.phone, i.text])
				.sort(byId),
			[
				[inChat.id, chatC.id, null, 'About my order'],
				[written.items[0].id, written.chat.id, BOTH.phone, 'Hola, soy cliente nuevo'],
			].sort(byId),
			diagnostics(),
		);
	});

	it('several messages between polls, two with one createdAt: one execution, in order', async () => {
		const { sandbox } = suite;
		const polls = await afterAPoll();
		const time = new Date().toISOString();
		const written = [
			...sandbox.customerWrites({
				chatId: chatA.id,
				count: 2,
				createdAt: time,
				sameCreatedAt: true,
			}).items,
			...sandbox.customerWrites({ chatId: chatA.id, type: 'image', text: 'the damage' }).items,
		];
		const executions = await messagesOfNextPoll(polls);
		assert.equal(executions.length, 1);
		const expected = [...written].sort((a, b) =>
			a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1,
		);
		assert.deepEqual(
			executions[0].map((i) => i.messageId),
			expected.map((m) => m.id),
		);
		assert.equal(executions[0][2].text, 'the damage');
		assertNothingTwice();
	});

	it('a burst of 250 in one chat: every message once, in one execution, three history pages', async () => {
		const { sandbox } = suite;
		const polls = await afterAPoll();
		const burst = sandbox.customerWrites({ chatId: chatA.id, count: 250 }).items;
		const mark = sandbox.log.length;
		const executions = await messagesOfNextPoll(polls);
		assert.equal(executions.length, 1);
		assert.deepEqual(
			executions[0].map((i) => i.messageId),
			burst.map((m) => m.id),
		);
		const pages = sandbox.log
			.slice(mark)
			.filter((e) => e.clientId === CLIENT.clientId && e.path.endsWith(`/chat/${chatA.id}`));
		assert.deepEqual(
			pages.map((e) => String(e.query.page)),
			['1', '2', '3'],
		);
		assertNothingTwice();
	});
});
