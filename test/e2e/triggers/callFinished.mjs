// What the Call Finished suites share (callFinished.e2e.test.mjs, callFinishedRestart.e2e.test.mjs,
// callFinishedScale.e2e.test.mjs): the trigger's workflow, and the steps of a suite from
// usePollingN8n (polling.mjs) whose workflows poll the sandbox's call campaigns.

import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { sleep, waitFor } from '../../../tools/processes.mjs';
import { lastRunItems } from '../../../tools/runData.mjs';
import { POLL_NOOP_NODE, pollingWorkflow } from '../../../tools/workflows.mjs';
import { pollDiagnostics } from '../harness.mjs';

/** An activated Call Finished workflow on the chosen campaigns, with the suite's credential. */
export const callFinishedWorkflow = ({ id, credential }, cronSecond, parameters) =>
	pollingWorkflow({
		id,
		name: `e2e ${id}`,
		triggerName: 'Call Finished',
		type: 'n8n-nodes-voice-messaging.voiceAiTrigger',
		parameters: { event: 'callFinished', campaignScope: 'chosen', ...parameters },
		credential,
		cronSecond,
	});

/**
 * The steps of a Call Finished suite. Its clock is the polls of the workflow that polls with the
 * voice-only client (its in-progress campaign lists): one such workflow per suite.
 * @param {ReturnType<typeof import('./polling.mjs').usePollingN8n>} suite
 */
export function callFinishedSteps(suite) {
	const polls = () =>
		suite.sandbox.log.filter(
			(e) =>
				e.clientId === DEMO_CLIENTS.voiceOnly.clientId &&
				e.path.endsWith('/voice/campaigns') &&
				e.query.status === 'in_progress',
		).length;
	const dataReads = (campaign) =>
		suite.sandbox.log.filter((e) => e.path === `/api/v1/voice/campaigns/${campaign.id}/data`);
	const diagnostics = () => pollDiagnostics(suite.sandbox, suite, 30);

	/** Every item the workflow's executions have emitted, in order. */
	const itemsOf = ({ id }) => suite.api.emittedItems(id, POLL_NOOP_NODE);

	/** Waits for the next poll (scheduled, or the one at a start) and lets it finish. */
	async function nextPoll() {
		const count = polls();
		await waitFor(() => polls() > count, {
			timeoutMs: 80_000,
			describe: () => `no scheduled poll${diagnostics()}`,
		});
		await sleep(4_000);
	}

	return { polls, dataReads, diagnostics, itemsOf, nextPoll };
}

/** How many polls `client` has made on `sandbox`: each asks once for the in-progress campaigns. */
export const pollsOf = (sandbox, client) =>
	sandbox.log.filter(
		(e) =>
			e.clientId === client.clientId &&
			e.path.endsWith('/voice/campaigns') &&
			e.query.status === 'in_progress',
	).length;

/**
 * Waits until each of `clients` has made a poll on `sandbox` after the ones counted in `since`
 * (pollsOf each; now by default), and the poll has ended: its requests follow each other (the
 * retries of a failed read within a few seconds), so a pause of `quietMs` after the last answer
 * ends it. With `latencyMs`, each answer comes that long after its request.
 * @param {{ log: any[] }} sandbox @param {Array<{ clientId: string }>} clients
 * @param {{ since?: number[], latencyMs?: number, quietMs?: number, describe?: () => string }} [options]
 */
export async function afterNextPoll(
	sandbox,
	clients,
	{
		since = clients.map((c) => pollsOf(sandbox, c)),
		latencyMs = 0,
		quietMs = 6_000,
		describe = () => '',
	} = {},
) {
	await waitFor(() => clients.every((client, i) => pollsOf(sandbox, client) > since[i]), {
		timeoutMs: 130_000,
		intervalMs: 500,
		describe: () => `no poll of ${clients.map((c) => c.clientId)}${describe()}`,
	});
	const ids = new Set(clients.map((c) => c.clientId));
	const lastAt = () => {
		const last = sandbox.log.findLast((e) => ids.has(e.clientId));
		return last ? Date.parse(last.at) + latencyMs : 0;
	};
	await waitFor(() => Date.now() - lastAt() > quietMs, {
		timeoutMs: 90_000,
		intervalMs: 500,
		describe: () => `the poll of ${[...ids]} did not end${describe()}`,
	});
	// n8n records the execution (and the static data) once the poll has handed its items over.
	await sleep(1_500);
}

/**
 * Every execution of a polling workflow, oldest first, once none is still running: its status,
 * when it started, its items (the No-Op node's output) or, for one that failed, its error.
 * @param {{ executionsOf: (id: string) => Promise<any[]>, runDataOf: (id: string) => Promise<any> }} api
 * @param {string} workflowId
 */
export async function executionsWithItems(api, workflowId) {
	const unfinished = (e) => ['new', 'running', 'waiting'].includes(e.status);
	const executions = await waitFor(
		async () => {
			const all = await api.executionsOf(workflowId);
			return all.some(unfinished) ? undefined : all;
		},
		{ timeoutMs: 60_000, intervalMs: 1_000, describe: () => `executions of ${workflowId} running` },
	);
	const result = [];
	for (const execution of executions.sort((x, y) => Number(x.id) - Number(y.id))) {
		const { runData, error } = await api.runDataOf(execution.id);
		result.push({
			id: execution.id,
			status: execution.status,
			startedAt: Date.parse(execution.startedAt ?? execution.createdAt),
			items: execution.status === 'success' ? lastRunItems(runData, POLL_NOOP_NODE) : [],
			error: error ? { message: error.message, description: error.description } : undefined,
		});
	}
	return result;
}
