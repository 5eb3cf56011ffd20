// Voice AI Trigger, Call Finished in a running n8n against campaign data ordered by last change
// (the sandbox's `callDataOrder: 'last-change'`): calls land every couple of seconds while the
// pages are read (each answer takes 1 s), so records move to the first page during a sweep, and a
// sweep meets some of them twice and others not at all. Every attempt that ended after the
// workflow was activated comes once (or is counted in the next item's skippedAttempts), none
// twice. On n8n 2.41's durable scheduler: callFinishedReorderDurable.e2e.test.mjs; on n8n 1.x:
// n8n1CallFinishedReorder.e2e.test.mjs.
import assert from 'node:assert/strict';
import { before, describe } from 'node:test';

import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import {
	countKeys,
	endedSinceWatching,
	heldToTruth,
	itemKey,
	recordsNow,
	unaccounted,
} from '../../../tools/callTruth.mjs';
import { pollDiagnostics, sandboxCredential, sleep, suiteOptions } from '../harness.mjs';
import { afterNextPoll, callFinishedWorkflow, executionsWithItems } from './callFinished.mjs';
import { usePollingN8n } from './polling.mjs';

const { version, env, title, it } = suiteOptions(
	'Voice AI Trigger, Call Finished on data ordered by last change, in a running n8n',
);

/** Every answer is held back this long: a poll's six pages take six seconds or more. */
const LATENCY_MS = 1_000;
/** While a poll reads, the calls on a line end (and others start) this often. */
const STEP_EVERY_MS = 2_000;
const NUMBERS = 600;
const { full } = DEMO_CLIENTS;
const CREDENTIAL = { id: 'e2eReorderCred01', name: 'Call Finished, reordering data (e2e)' };
const WORKFLOW = { id: 'e2eReorderFlow01', credential: CREDENTIAL };

describe(title, { timeout: 15 * 60_000 }, () => {
	const suite = usePollingN8n({
		version,
		env,
		credentials: (sandbox) => [sandboxCredential(CREDENTIAL, sandbox, full)],
		workflows: () => [],
	});
	const describeRun = () => pollDiagnostics(suite.sandbox, suite, 30);

	let campaign;
	let atActivation;
	let steps = 0;
	let pollsWithCalls = 0;
	before(async () => {
		const { sandbox, n8n } = suite;
		sandbox.setOptions({ callDataOrder: 'last-change' });
		sandbox.setFaults({ latencyMs: LATENCY_MS });
		// Pending when the workflow is activated: every attempt comes after.
		campaign = sandbox.startCallCampaign({
			numbers: NUMBERS,
			lines: 100,
			retryDelaySteps: 1,
			name: 'E2E reorder',
		});
		const records = recordsNow(sandbox, campaign);
		const cronSecond = Math.floor(Date.now() / 1000 + 30) % 60;
		const workflow = callFinishedWorkflow(WORKFLOW, cronSecond, { campaignIds: [campaign.id] });
		await n8n.importWorkflow(workflow);
		atActivation = { from: Date.now(), records };
		await n8n.activate(workflow.id);
		await afterNextPoll(sandbox, [full], {
			since: [0],
			latencyMs: LATENCY_MS,
			describe: describeRun,
		});

		// Each scheduled poll: calls land while it reads its pages, until the campaign completes;
		// then polls until one has read the completed campaign to its end.
		const dataPath = `/api/v1/voice/campaigns/${campaign.id}/data`;
		const dataReads = () => sandbox.log.filter((e) => e.path === dataPath).length;
		for (let poll = 0; poll < 12 && campaign.status !== 'completed'; poll++) {
			const reads = dataReads();
			const stepsBefore = steps;
			const polled = afterNextPoll(sandbox, [full], {
				latencyMs: LATENCY_MS,
				describe: describeRun,
			});
			let done = false;
			polled.finally(() => (done = true)).catch(() => {});
			while (!done && campaign.status !== 'completed') {
				if (dataReads() > reads) {
					sandbox.stepCalls(1, campaign.id);
					steps++;
				}
				await sleep(STEP_EVERY_MS);
			}
			await polled;
			if (steps > stepsBefore) pollsWithCalls++;
		}
		assert.equal(campaign.status, 'completed', `the campaign completed${describeRun()}`);
		for (let poll = 0; poll < 2; poll++) {
			await afterNextPoll(sandbox, [full], { latencyMs: LATENCY_MS, describe: describeRun });
		}
	});

	it('each attempt that ended after activation comes once or is counted as skipped, none twice', async (t) => {
		const executions = await executionsWithItems(suite.api, WORKFLOW.id);
		assert.deepEqual(
			executions.filter((e) => e.status !== 'success').map((e) => e.error),
			[],
			'no failed execution',
		);
		const items = executions.flatMap((e) => e.items);
		const truth = endedSinceWatching(suite.sandbox, campaign, atActivation.records, atActivation);
		const { extra } = heldToTruth(items, truth);
		assert.deepEqual(extra, [], 'nothing twice');
		assert.deepEqual(unaccounted(items, truth), [], 'every attempt reported or counted as skipped');
		const skipped = items.reduce((sum, item) => sum + (Number(item.skippedAttempts) || 0), 0);
		const twice = [...countKeys(items.map(itemKey)).values()].filter((n) => n > 1).length;
		const expected = [...truth.expected.values()].reduce((a, b) => a + b, 0);
		t.diagnostic(
			`${expected} attempts ended after activation: ${items.length} items, ${skipped} counted as skipped, ${twice} twice; ${steps} steps of calls during the reads of ${pollsWithCalls} polls, ${executions.length} executions`,
		);
	});
});
