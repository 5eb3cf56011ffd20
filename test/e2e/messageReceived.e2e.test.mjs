// Messenger Trigger, Message Received, polling for real: an activated workflow in a running n8n
// (`n8n start`) against the sandbox, whose demo customers write through its control endpoint.
// Executions are read back through n8n's REST API; polls are counted in the sandbox log (the
// workflow has its own API client). n8n polls at most once a minute (see voiceAiTrigger.e2e):
// each test changes the sandbox right after a poll and waits for the next one.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';

import { DEMO_CLIENTS, startSandbox } from '../../sandbox/server.mjs';
import {
	cleanupPack,
	createN8nInstance,
	isN8n1,
	n8nRestApi,
	packPackage,
	pollDiagnostics,
	POLL_NOOP_NODE,
	pollingWorkflow,
	sandboxCredential,
	sleep,
	startWithOwner,
	logIn,
	suiteOptions,
	waitFor,
} from './harness.mjs';

const {
	version: N8N_VERSION,
	title,
	it,
} = suiteOptions('Messenger Trigger, Message Received, in an activated workflow of a running n8n');

const TRIGGER_TYPE = 'n8n-nodes-voice-messaging.messengerTrigger';
const OWNER = { email: 'owner@e2e.example', password: 'E2e-owner-Passw0rd' };
const BROWSER_ID = 'e2e-browser';
const TRIGGER_NODE = 'Customer wrote';
const NOOP_NODE = POLL_NOOP_NODE;
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
/** Seconds from writing the workflow until n8n has made its baseline poll (import, activate, start). */
const EXPECTED_STARTUP_S = 30;
const CHANGE_MARGIN_S = 12;

function workflow(chats, cronSecond, { id = WORKFLOW_ID, credential = CREDENTIAL } = {}) {
	return pollingWorkflow({
		id,
		name: `e2e message received ${id}`,
		triggerName: TRIGGER_NODE,
		type: TRIGGER_TYPE,
		parameters: { event: 'messageReceived', chats, direction: 'inbound', messageTypes: [] },
		credential,
		cronSecond,
	});
}

describe(title, { timeout: 15 * 60_000 }, () => {
	/** @type {Awaited<ReturnType<typeof startSandbox>>} */
	let sandbox;
	/** @type {Awaited<ReturnType<typeof createN8nInstance>>} */
	let n8n;
	/** @type {Awaited<ReturnType<Awaited<ReturnType<typeof createN8nInstance>>['start']>>} */
	let server;
	/** @type {ReturnType<typeof n8nRestApi>} */
	let api;
	let cronSecond = 0;
	/** The chat watched from the start, the one added to the list later, and the second workflow's. */
	let chatA;
	let chatB;
	let chatC;
	/** Every message ID the workflow was started with, in order, across all executions. */
	const reported = [];
	const seenExecutions = new Set();

	/**
	 * Polls so far of the first workflow (or of the one with `client`, watching `chat`): each poll
	 * reads the watched chat's history (one request or more) once per poll, page 1.
	 */
	const pollCount = (client = CLIENT, chat = chatA) =>
		sandbox.log.filter(
			(e) =>
				e.clientId === client.clientId &&
				e.path === `/api/v1/messenger/messages/chat/${chat.id}` &&
				String(e.query.page) === '1',
		).length;
	const pollCountOfBoth = () => pollCount(BOTH.client, chatC);

	const diagnostics = () => pollDiagnostics(sandbox, server);

	async function startN8n() {
		if (isN8n1(N8N_VERSION) && api) {
			// 1.x: the owner exists after the first start; log in again.
			server = await n8n.start();
			api = restApi(await logIn(server.baseUrl, OWNER, BROWSER_ID));
			return;
		}
		let cookie;
		({ server, cookie } = await startWithOwner(n8n, OWNER, BROWSER_ID));
		api = restApi(cookie);
	}
	const restApi = (cookie) =>
		n8nRestApi({ baseUrl: server.baseUrl, cookie, n8nDir: n8n.n8nDir, browserId: BROWSER_ID });

	async function activate(id = WORKFLOW_ID) {
		const args = isN8n1(N8N_VERSION)
			? ['update:workflow', `--id=${id}`, '--active=true']
			: ['publish:workflow', `--id=${id}`];
		await n8n.n8n(args);
	}

	/**
	 * Waits for a poll after `pollsBefore`, then for the executions it started to finish: their
	 * items. The first workflow's, or the one `workflowId` names, whose polls `polls` counts.
	 */
	async function messagesOfNextPoll(pollsBefore, workflowId = WORKFLOW_ID, polls = pollCount) {
		await waitFor(() => polls() > pollsBefore, {
			timeoutMs: 90_000,
			describe: () => `no poll after ${pollsBefore}${diagnostics()}`,
		});
		await sleep(3_000);
		const fresh = await waitFor(
			async () => {
				const list = (await api.executionsOf(workflowId)).filter((e) => !seenExecutions.has(e.id));
				return list.every((e) => e.status !== 'running' && e.status !== 'new') ? list : undefined;
			},
			{ timeoutMs: 60_000, describe: () => `executions did not finish${diagnostics()}` },
		);
		const executions = [];
		for (const summary of fresh.sort((a, b) => Number(a.id) - Number(b.id))) {
			seenExecutions.add(summary.id);
			assert.equal(summary.status, 'success', JSON.stringify(summary));
			const { runData } = await api.runDataOf(summary.id);
			const items = runData[TRIGGER_NODE].at(-1).data.main[0].map((item) => item.json);
			reported.push(...items.map((item) => item.messageId));
			executions.push(items);
		}
		return executions;
	}

	/** Lets the current poll (if one is running) finish, so that changes fall between two polls. */
	async function afterAPoll() {
		const polls = pollCount();
		const now = new Date();
		const msToNext =
			(((cronSecond - now.getUTCSeconds() + 60) % 60) * 1000 || 60_000) - now.getUTCMilliseconds();
		if (msToNext < 8_000) {
			await waitFor(() => pollCount() > polls, { timeoutMs: 30_000, describe: diagnostics });
			await sleep(4_000);
		}
		return pollCount();
	}

	const assertNothingTwice = () =>
		assert.equal(
			new Set(reported).size,
			reported.length,
			`a message was reported twice: ${reported}`,
		);

	before(async () => {
		sandbox = await startSandbox({ port: 0, host: '127.0.0.1', progressIntervalMs: 0 });
		[chatA, chatB, chatC] = sandbox.state.chats;
		const tarball = await packPackage();
		n8n = await createN8nInstance({
			tarball,
			version: N8N_VERSION,
			extraEnv: { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all', GENERIC_TIMEZONE: 'UTC' },
		});
		await n8n.importCredentials([
			sandboxCredential(CREDENTIAL, sandbox, CLIENT),
			sandboxCredential(BOTH.credential, sandbox, BOTH.client),
		]);
		cronSecond = Math.floor(Date.now() / 1000 + EXPECTED_STARTUP_S + CHANGE_MARGIN_S) % 60;
		await n8n.importWorkflow(workflow(chatA.id, cronSecond));
		await activate();
		const chats = `${chatC.id}, ${BOTH.phoneAsWritten}`;
		await n8n.importWorkflow(workflow(chats, cronSecond, { id: BOTH.workflowId, ...BOTH }));
		await activate(BOTH.workflowId);
		await startN8n();
	});

	after(async () => {
		await server?.stop();
		await n8n?.cleanup();
		await sandbox?.close();
		cleanupPack();
	});

	it('activation records a baseline and starts no execution, although the chat has history', async () => {
		await waitFor(() => pollCount() >= 1, {
			timeoutMs: 60_000,
			describe: () => `no baseline poll${diagnostics()}`,
		});
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
		const [message] = sandbox.customerWrites({
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

	it('n8n restarted: what arrived while it was down is reported once at the first poll after', async () => {
		await afterAPoll();
		await server.stop();
		const down = sandbox.customerWrites({
			chatId: chatA.id,
			count: 2,
			text: 'Anyone there?',
		}).items;
		const polls = pollCount();
		await startN8n();
		const executions = await messagesOfNextPoll(polls);
		assert.deepEqual(
			executions.flat().map((i) => i.messageId),
			down.map((m) => m.id),
		);
		// And a quiet poll after it starts nothing.
		const quiet = await afterAPoll();
		assert.deepEqual(await messagesOfNextPoll(quiet), []);
		assertNothingTwice();
	});

	it('a chat added to the list later gets its own baseline; the watched one loses nothing meanwhile', async () => {
		await afterAPoll();
		await server.stop();
		// As a user would: the workflow exported, its Chats edited, imported and activated again.
		const file = join(n8n.userFolder, 'exported.json');
		await n8n.n8n(['export:workflow', `--id=${WORKFLOW_ID}`, `--output=${file}`]);
		const [exported] = [].concat(JSON.parse(readFileSync(file, 'utf8')));
		const trigger = exported.nodes.find((n) => n.name === TRIGGER_NODE);
		trigger.parameters.chats = `${chatA.id}, ${chatB.id}`;
		// Unpublished first, as the CLI wants for an active workflow; importing makes a new version.
		await n8n.n8n(['unpublish:workflow', `--id=${WORKFLOW_ID}`]);
		await n8n.importWorkflow(exported);
		await activate();
		const meanwhile = sandbox.customerWrites({ chatId: chatA.id, text: 'Still waiting' }).items;
		const polls = pollCount();
		await startN8n();
		const first = await messagesOfNextPoll(polls);
		assert.deepEqual(
			first.flat().map((i) => i.messageId),
			meanwhile.map((m) => m.id),
			'chat B: baseline only',
		);
		assert.ok(
			sandbox.log.some(
				(e) => e.clientId === CLIENT.clientId && e.path.endsWith(`/chat/${chatB.id}`),
			),
			`chat B was read at the first poll (its baseline)${diagnostics()}`,
		);
		const next = await afterAPoll();
		const [inB] = sandbox.customerWrites({ chatId: chatB.id, text: 'Me too' }).items;
		const executions = await messagesOfNextPoll(next);
		assert.deepEqual(
			executions.flat().map((i) => [i.messageId, i.chatId]),
			[[inB.id, chatB.id]],
		);
		assertNothingTwice();
		assert.doesNotMatch(server.output(), /poll failed/);
	});
});
