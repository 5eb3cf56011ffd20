// Own n8n: these tests stop and start n8n, and edit the workflow through its CLI while it is down.
// Messenger Trigger, Message Received, across restarts: what arrived while n8n was down is reported
// once at the first poll after; a chat added to the list later gets its own baseline while the
// watched one loses nothing; a burst held by Group by Chat + Wait for a Pause when n8n stops starts
// the workflow once after. On n8n 1.x (the last test): n8n1Restart.e2e.test.mjs.
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
/** A second workflow, on a chat of its own: Group by Chat, Wait for a Pause of 30 s (polls are a minute apart). */
const PAUSED = { workflowId: 'e2eMsgReceived04', options: { groupByChat: true, waitForPause: 30 } };

describe(title, { timeout: 15 * 60_000 }, () => {
	/** The chat watched from the start, and the one added to the list later. */
	let chatA;
	let chatB;
	let chatP;
	const suite = usePollingN8n({
		version,
		ownN8n: true,
		credentials: (sandbox) => [sandboxCredential(CREDENTIAL, sandbox, CLIENT)],
		workflows: (sandbox, cronSecond) => {
			[chatA, chatB, chatP] = sandbox.state.chats;
			return [
				messageReceivedWorkflow(WORKFLOW_ID, CREDENTIAL, chatA.id, cronSecond),
				messageReceivedWorkflow(PAUSED.workflowId, CREDENTIAL, chatP.id, cronSecond, {
					options: PAUSED.options,
				}),
			];
		},
	});
	const { baseline, pollCount, messagesOfNextPoll, afterAPoll, assertNothingTwice, diagnostics } =
		messageReceivedSteps(suite, { workflowId: WORKFLOW_ID, client: CLIENT, watched: () => chatA });

	before(async () => {
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
		// The CLI below names the workflow by the ID it was imported with (2.x keeps it).
		assert.equal(suite.n8n.workflowId(WORKFLOW_ID), WORKFLOW_ID);
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

	it('Group by Chat + Wait for a Pause: a burst held when n8n stops starts the workflow once after the restart', async () => {
		const { sandbox } = suite;
		const pausedPolls = () => pollCount(CLIENT, chatP);
		await afterAPoll();
		const before = pausedPolls();
		// A millisecond apart: messages written in the same one are ordered by ID.
		const at = Date.now();
		const burst = ['hi', 'I have a question', 'about my invoice'].map(
			(text, i) =>
				sandbox.customerWrites({
					chatId: chatP.id,
					text,
					createdAt: new Date(at + i).toISOString(),
				}).items[0],
		);
		// The poll that finds the burst holds it: the customer may still be writing.
		assert.deepEqual(await messagesOfNextPoll(before, PAUSED.workflowId, pausedPolls), []);
		await suite.server.stop();
		await suite.restart();
		// Released at the first poll that finds the chat quiet for 30 s: the first or second after
		// the start (n8n 1.x keeps a poll's state only when it starts an execution: the burst is
		// read and held again).
		let executions = [];
		for (let poll = 0; poll < 3 && executions.length === 0; poll++)
			executions = await messagesOfNextPoll(pausedPolls(), PAUSED.workflowId, pausedPolls);
		assert.equal(executions.length, 1, `one execution for the burst${diagnostics()}`);
		assert.equal(executions[0].length, 1, 'one item for the chat');
		const [group] = executions[0];
		assert.deepEqual(
			[group.chatId, group.messageCount, group.messageIds, group.text],
			[chatP.id, 3, burst.map((m) => m.id), 'hi\nI have a question\nabout my invoice'],
		);
		assert.deepEqual(
			group.messages.map((m) => m.messageId),
			burst.map((m) => m.id),
		);
		// The next poll starts nothing: the burst is not reported again.
		assert.deepEqual(await messagesOfNextPoll(pausedPolls(), PAUSED.workflowId, pausedPolls), []);
		assertNothingTwice();
	});
});
