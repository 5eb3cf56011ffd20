// Messenger Trigger, Message Received, for the triggers/ suites: the workflow, and the steps of a
// suite that lets the sandbox's demo customers write between two polls (its control endpoint) and
// reads what the next poll started. Polls are counted in the sandbox log: the workflow has its own
// API client; each poll reads the watched chat's history, page 1 first.
import assert from 'node:assert/strict';

import { POLL_NOOP_NODE, pollDiagnostics, pollingWorkflow, sleep, waitFor } from '../harness.mjs';
import { msToNextPoll } from './polling.mjs';

export const TRIGGER_NODE = 'Customer wrote';

/**
 * A workflow: Message Received on `chats` (inbound, every type) with `options`, polling at
 * `cronSecond`; `then` is a node after the trigger's No-Op.
 * @param {string} id @param {{ id: string, name: string }} credential
 * @param {string} chats @param {number} cronSecond
 * @param {{ options?: Record<string, unknown>, then?: Record<string, unknown> & { name: string } }} [more]
 */
export function messageReceivedWorkflow(id, credential, chats, cronSecond, { options, then } = {}) {
	const workflow = pollingWorkflow({
		id,
		name: `e2e message received ${id}`,
		triggerName: TRIGGER_NODE,
		type: 'n8n-nodes-voice-messaging.messengerTrigger',
		parameters: {
			event: 'messageReceived',
			chats,
			direction: 'inbound',
			messageTypes: [],
			...(options ? { options } : {}),
		},
		credential,
		cronSecond,
	});
	if (then) {
		workflow.nodes.push({ id: `${id}-then`, position: [440, 0], ...then });
		workflow.connections[POLL_NOOP_NODE] = {
			main: [[{ node: then.name, type: 'main', index: 0 }]],
		};
	}
	return workflow;
}

/**
 * The steps of a Message Received suite on `suite` (triggers/polling.mjs): its main workflow
 * `workflowId` polls with `client` and watches the chat `watched()` gives.
 * @param {ReturnType<typeof import('./polling.mjs').usePollingN8n>} suite
 * @param {{ workflowId: string, client: { clientId: string }, watched: () => { id: string } }} main
 */
export function messageReceivedSteps(suite, { workflowId, client, watched }) {
	/** Every message ID the workflows were started with, in order, across all executions. */
	const reported = [];
	const seenExecutions = new Set();

	const diagnostics = () => pollDiagnostics(suite.sandbox, suite);

	/**
	 * Polls so far of the main workflow (or of the one with `pollClient`, watching `chat`): each
	 * poll reads the watched chat's history (one request or more) once per poll, page 1.
	 */
	const pollCount = (pollClient = client, chat = watched()) =>
		suite.sandbox.log.filter(
			(e) =>
				e.clientId === pollClient.clientId &&
				e.path === `/api/v1/messenger/messages/chat/${chat.id}` &&
				String(e.query.page) === '1',
		).length;

	/**
	 * Waits for a poll after `pollsBefore`, then for the executions it started to finish: the run
	 * data of each (successful) execution, oldest first. The main workflow's, or the one `id`
	 * names, whose polls `polls` counts.
	 */
	async function runsOfNextPoll(pollsBefore, id = workflowId, polls = pollCount) {
		await waitFor(() => polls() > pollsBefore, {
			timeoutMs: 90_000,
			describe: () => `no poll after ${pollsBefore}${diagnostics()}`,
		});
		await sleep(3_000);
		const fresh = await waitFor(
			async () => {
				const list = (await suite.api.executionsOf(id)).filter((e) => !seenExecutions.has(e.id));
				return list.every((e) => e.status !== 'running' && e.status !== 'new') ? list : undefined;
			},
			{ timeoutMs: 60_000, describe: () => `executions did not finish${diagnostics()}` },
		);
		const runs = [];
		for (const summary of fresh.sort((a, b) => Number(a.id) - Number(b.id))) {
			seenExecutions.add(summary.id);
			assert.equal(summary.status, 'success', JSON.stringify(summary));
			const { runData } = await suite.api.runDataOf(summary.id);
			const items = runData[TRIGGER_NODE].at(-1).data.main[0].map((item) => item.json);
			// A Group by Chat item names its messages in `messageIds`.
			reported.push(...items.flatMap((item) => item.messageIds ?? [item.messageId]));
			runs.push(runData);
		}
		return runs;
	}

	/** The items (JSON) of each execution the next poll started (see runsOfNextPoll). */
	async function messagesOfNextPoll(pollsBefore, id = workflowId, polls = pollCount) {
		const runs = await runsOfNextPoll(pollsBefore, id, polls);
		return runs.map((runData) => runData[TRIGGER_NODE].at(-1).data.main[0].map((i) => i.json));
	}

	/** Lets the current poll (if one is running) finish, so that changes fall between two polls. */
	async function afterAPoll() {
		const polls = pollCount();
		if (msToNextPoll(suite.cronSecond) < 8_000) {
			await waitFor(() => pollCount() > polls, { timeoutMs: 30_000, describe: diagnostics });
			await sleep(4_000);
		}
		return pollCount();
	}

	/** Waits for the baseline poll of the main workflow, and for n8n to store what it read. */
	async function baseline() {
		await waitFor(() => pollCount() >= 1, {
			timeoutMs: 60_000,
			describe: () => `no baseline poll${diagnostics()}`,
		});
		await sleep(3_000);
	}

	const assertNothingTwice = () =>
		assert.equal(
			new Set(reported).size,
			reported.length,
			`a message was reported twice: ${reported}`,
		);

	return {
		baseline,
		pollCount,
		runsOfNextPoll,
		messagesOfNextPoll,
		afterAPoll,
		assertNothingTwice,
		diagnostics,
	};
}
