// Own n8n: these tests stop and start n8n, and edit the workflow through its CLI while it is down.
// Messenger Trigger, Message Received, across restarts: what arrived while n8n was down is reported
// once at the first poll after; a chat added to the list later gets its own baseline while the
// watched one loses nothing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe } from 'node:test';

import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { sandboxCredential, suiteOptions } from '../harness.mjs';
import { messageReceivedSteps, messageReceivedWorkflow, TRIGGER_NODE } from './messageReceived.mjs';
import { usePollingN8n } from './polling.mjs';

const { version, title, it } = suiteOptions(
	'Messenger Trigger, Message Received, across restarts of n8n',
);

const WORKFLOW_ID = 'e2eMsgReceived03';
const CREDENTIAL = { id: 'e2eMsgRecvCred03', name: 'Message Received restarts client (e2e)' };
const CLIENT = DEMO_CLIENTS.messengerOnly;

describe(title, { timeout: 15 * 60_000 }, () => {
	/** The chat watched from the start, and the one added to the list later. */
	let chatA;
	let chatB;
	const suite = usePollingN8n({
		version,
		ownN8n: true,
		credentials: (sandbox) => [sandboxCredential(CREDENTIAL, sandbox, CLIENT)],
		workflows: (sandbox, cronSecond) => {
			[chatA, chatB] = sandbox.state.chats;
			return [messageReceivedWorkflow(WORKFLOW_ID, CREDENTIAL, chatA.id, cronSecond)];
		},
	});
	const { baseline, pollCount, messagesOfNextPoll, afterAPoll, assertNothingTwice, diagnostics } =
		messageReceivedSteps(suite, { workflowId: WORKFLOW_ID, client: CLIENT, watched: () => chatA });

	before(async () => {
		// The CLI below names the workflow by the ID it was imported with.
		assert.equal(suite.n8n.workflowId(WORKFLOW_ID), WORKFLOW_ID);
		// Stopped after its baseline only: a restart before it would have nothing to compare with.
		await baseline();
	});

	it('n8n restarted: what arrived while it was down is reported once at the first poll after', async () => {
		const { sandbox } = suite;
		await afterAPoll();
		await suite.server.stop();
		const down = sandbox.customerWrites({
			chatId: chatA.id,
			count: 2,
			text: 'Anyone there?',
		}).items;
		const polls = pollCount();
		await suite.restart();
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
		const { sandbox } = suite;
		const { instance } = suite.n8n;
		await afterAPoll();
		await suite.server.stop();
		// As a user would: the workflow exported, its Chats edited, imported and activated again.
		const file = join(instance.userFolder, 'exported.json');
		await instance.n8n(['export:workflow', `--id=${WORKFLOW_ID}`, `--output=${file}`]);
		const [exported] = [].concat(JSON.parse(readFileSync(file, 'utf8')));
		const trigger = exported.nodes.find((n) => n.name === TRIGGER_NODE);
		trigger.parameters.chats = `${chatA.id}, ${chatB.id}`;
		// Unpublished first, as the CLI wants for an active workflow; importing makes a new version.
		await instance.n8n(['unpublish:workflow', `--id=${WORKFLOW_ID}`]);
		await instance.importWorkflow(exported);
		await instance.n8n(['publish:workflow', `--id=${WORKFLOW_ID}`]);
		const meanwhile = sandbox.customerWrites({ chatId: chatA.id, text: 'Still waiting' }).items;
		const polls = pollCount();
		await suite.restart();
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
		assert.doesNotMatch(suite.output(), /poll failed/);
	});
});
