// Call Finished in queue mode: the main instance polls, the workers run the executions, and each
// call attempt that ends after activation is reported once, retries included. The campaign is on
// the trigger's own sandbox (queueWorkflows.mjs CALLS) and moves on two steps after each poll,
// in the background, while the other parts of the suite keep the workers busy; the last part
// checks every item once the campaign has ended and a poll has read its end.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { doubled, endedAttempts, itemKey } from '../../tools/callTruth.mjs';
import { waitFor } from '../../tools/processes.mjs';
import { POLL_NOOP_NODE } from '../../tools/workflows.mjs';
import { CALLS, CALLS_WORKFLOW } from './queueWorkflows.mjs';

/** @typedef {ReturnType<typeof import('./cluster.mjs').useQueueCluster>} Cluster */

/** Steps the campaign moves after each poll: every attempt stays readable for one poll. */
const STEPS_PER_POLL = 2;
/** A poll has read the campaign's data once this long has passed since its list request. */
const POLL_DONE_MS = 15_000;

/** @param {Cluster} q */
const polls = (q) =>
	q.callSandbox.log.filter(
		(entry) =>
			entry.clientId === CALLS.client.clientId &&
			entry.status === 200 &&
			entry.path.endsWith('/voice/campaigns') &&
			entry.query.status === 'in_progress',
	);

/**
 * Registered after the baseline test: the baseline starts nothing; then the calls land in the
 * background, STEPS_PER_POLL steps after each poll has read them.
 * @param {Cluster} q
 */
export function callsLandTests(q) {
	it('Call Finished: the baseline starts nothing; calls land while the workers are busy', async () => {
		await waitFor(() => polls(q).length >= 1, {
			timeoutMs: 120_000,
			describe: () => `no baseline poll of Call Finished${q.diagnostics()}`,
		});
		const { callSandbox: sandbox, callCampaign: campaign } = q;
		const before = endedAttempts(sandbox, campaign);
		assert.ok(before.size > 0, 'calls had ended before activation');
		assert.deepEqual(await q.executionsOf(CALLS_WORKFLOW), []);
		let stepped = polls(q).length;
		const stepper = setInterval(() => {
			const all = polls(q);
			const last = all.at(-1);
			if (all.length <= stepped || Date.now() - Date.parse(last.at) < POLL_DONE_MS) return;
			stepped = all.length;
			if (campaign.status !== 'completed') sandbox.stepCalls(STEPS_PER_POLL, campaign.id);
			else clearInterval(stepper);
		}, 1_000);
		q.calls = { before, stepper };
	});
}

/**
 * Registered last: once the campaign has ended and a poll has read its end, every attempt that
 * ended after activation is one item of one of the executions, none twice.
 * @param {Cluster} q
 */
export function callsFiredOnceTests(q) {
	it('Call Finished: each attempt that ended after activation fired once, retries included', async () => {
		assert.ok(q.calls, 'the calls ran');
		const { callSandbox: sandbox, callCampaign: campaign } = q;
		const truth = () => endedAttempts(sandbox, campaign);
		const expected = () => [...truth().keys()].filter((key) => !q.calls.before.has(key)).sort();
		// The campaign ends five to eight polls after activation, before the other parts are done;
		// the wait ends when the executions hold every attempt (or times out, and the comparison
		// below shows what is missing).
		let last = [];
		await waitFor(
			async () => {
				if (campaign.status !== 'completed') return false;
				last = await q.api.emittedItems(CALLS_WORKFLOW, POLL_NOOP_NODE);
				return last.length >= expected().length;
			},
			{ timeoutMs: 8 * 60_000, intervalMs: 5_000, describe: () => 'the attempts below' },
		).catch(() => {});
		clearInterval(q.calls.stepper);
		assert.equal(campaign.status, 'completed', `the campaign ended${q.diagnostics()}`);
		assert.deepEqual(doubled(last), [], 'no attempt reported twice');
		assert.deepEqual(last.map(itemKey).sort(), expected());
		assert.ok(
			last.some((item) => item.attempts > 1),
			'a retried number fired again',
		);
		const executions = await q.executionsOf(CALLS_WORKFLOW);
		assert.ok(executions.length >= 2, `over several polls: ${executions.length} executions`);
		console.log(
			`# Call Finished: ${last.length} attempts in ${executions.length} executions, ${polls(q).length} polls`,
		);
	});
}
