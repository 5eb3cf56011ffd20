// Messenger Live Trigger in an activated workflow of a running n8n, against the sandbox: n8n runs
// its trigger() (no Poll Times); customers write into the watched chats one after another, and
// each message starts one execution within seconds. Deactivated, it sends no request more.
import assert from 'node:assert/strict';
import { describe } from 'node:test';

import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { quantile } from '../../../tools/stats.mjs';
import {
	lastRunItems,
	pollingWorkflow,
	sandboxCredential,
	sleep,
	suiteOptions,
	waitFor,
} from '../harness.mjs';
import { useSandboxAndN8n } from '../../support/n8n.mjs';

const { version, env, title, it } = suiteOptions(
	'Messenger Live Trigger, Message Received within seconds, in an activated workflow of a running n8n',
);

const WORKFLOW_ID = 'e2eMsgLive000001';
const CREDENTIAL = { id: 'e2eMsgLiveCred01', name: 'Messenger Live Trigger client (e2e)' };
const TRIGGER = 'Customer wrote';
const CHATS = 5;

/** The workflow: the live trigger on `chats`, then a No-Op. */
function liveWorkflow(chats) {
	const workflow = pollingWorkflow({
		id: WORKFLOW_ID,
		name: 'e2e messenger live trigger',
		triggerName: TRIGGER,
		type: 'n8n-nodes-voice-messaging.messengerLiveTrigger',
		parameters: { event: 'messageReceived', chats, direction: 'inbound', messageTypes: [] },
		credential: CREDENTIAL,
		cronSecond: 0,
	});
	delete workflow.nodes[0].parameters.pollTimes;
	return workflow;
}

describe(title, { timeout: 10 * 60_000 }, () => {
	const suite = useSandboxAndN8n({
		version,
		env,
		credentials: (sandbox) => [sandboxCredential(CREDENTIAL, sandbox, DEMO_CLIENTS.messengerOnly)],
	});
	const historyReads = () =>
		suite.sandbox.log.filter(
			(entry) =>
				entry.clientId === DEMO_CLIENTS.messengerOnly.clientId &&
				entry.path.includes('/messages/chat/'),
		).length;

	it('each message starts one execution within seconds; deactivated, no request follows', async () => {
		const { sandbox, n8n } = suite;
		const chats = sandbox.state.chats.slice(0, CHATS);
		await n8n.importWorkflow({ ...liveWorkflow(chats.map((c) => c.id).join(', ')), active: true });
		// Activation read each chat's baseline; the loop reads them on from there.
		await waitFor(async () => historyReads() >= 2 * CHATS || undefined, {
			timeoutMs: 60_000,
			describe: () => `history reads: ${historyReads()}`,
		});
		const written = [];
		for (const [index, chat] of [...chats, ...chats].entries()) {
			const [message] = sandbox.customerWrites({
				chatId: chat.id,
				text: `E2E live ${index}`,
			}).items;
			written.push({ id: message.id, chatId: chat.id, at: Date.now() });
			await sleep(3_000);
		}
		const executions = await waitFor(
			async () => {
				const all = await n8n.executionsOf(WORKFLOW_ID);
				return all.length >= written.length ? all : undefined;
			},
			{ timeoutMs: 90_000, describe: () => 'an execution per message' },
		);
		const items = await n8n.emittedItems(WORKFLOW_ID, TRIGGER);
		// Each message once; chats are read one at a time, so only a chat's own messages keep their order.
		assert.deepEqual(
			items.map((item) => item.messageId).sort(),
			written.map((message) => message.id).sort(),
			'each message once',
		);
		for (const chat of chats) {
			const ofChat = (list) => list.filter((m) => m.chatId === chat.id).map((m) => m.id);
			assert.deepEqual(
				ofChat(items.map((item) => ({ id: item.messageId, chatId: item.chatId }))),
				ofChat(written),
				`the messages of ${chat.id} in order`,
			);
		}
		const latencies = [];
		for (const execution of executions) {
			const { runData } = await n8n.runDataOf(execution.id);
			const [{ messageId: id }] = lastRunItems(runData, TRIGGER);
			const message = written.find((m) => m.id === id);
			latencies.push((Date.parse(execution.startedAt) - message.at) / 1000);
		}
		console.log(
			`message → execution start, ${CHATS} chats: p50 ${quantile(latencies, 0.5)} s, p95 ${quantile(latencies, 0.95)} s`,
		);
		assert.ok(quantile(latencies, 0.95) <= 15, `latencies ${latencies.join(', ')} s`);

		await n8n.deactivate(WORKFLOW_ID);
		// A read under way when n8n stopped the trigger may still be answered (logged on its answer).
		await sleep(3_000);
		const after = historyReads();
		await sleep(15_000);
		assert.equal(historyReads(), after, 'no read after deactivation');
	});
});
