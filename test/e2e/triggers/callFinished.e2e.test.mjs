// Voice AI Trigger, Call Finished, polling for real (triggers/polling.mjs says how n8n polls):
// three activated workflows against the sandbox's call campaigns, whose calls the test moves on
// between polls. A: 40 numbers with results before activation (Every Attempt; Final Outcome Only
// with No Answer and Busy); B: 2,000 numbers read within 10 data requests a poll.
import assert from 'node:assert/strict';
import { before, describe } from 'node:test';

import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { doubled, endedAttempts, finalOutcomes, itemKey } from '../../../tools/callTruth.mjs';
import { sleep, waitFor } from '../../../tools/processes.mjs';
import { sandboxCredential } from '../../../tools/workflows.mjs';
import { suiteOptions } from '../harness.mjs';
import { callFinishedSteps, callFinishedWorkflow } from './callFinished.mjs';
import { usePollingN8n } from './polling.mjs';

const { version, title, it } = suiteOptions('Voice AI Trigger, Call Finished, in a running n8n');
const CREDENTIALS = {
	full: { id: 'e2eCallsCredFull', name: 'Call Finished full client (e2e)' },
	voice: { id: 'e2eCallsCredVoic', name: 'Call Finished voice client (e2e)' },
};
const BOUND = 10;
const WORKFLOWS = {
	every: { id: 'e2eCallsEvery001', credential: CREDENTIALS.full },
	final: { id: 'e2eCallsFinal001', credential: CREDENTIALS.voice },
	bound: { id: 'e2eCallsBound001', credential: CREDENTIALS.full },
};

describe(title, { timeout: 15 * 60_000 }, () => {
	/** @type {{ a: any, b: any }} */
	const campaigns = { a: undefined, b: undefined };
	const suite = usePollingN8n({
		version,
		credentials: (sandbox) => [
			sandboxCredential(CREDENTIALS.full, sandbox, DEMO_CLIENTS.full),
			sandboxCredential(CREDENTIALS.voice, sandbox, DEMO_CLIENTS.voiceOnly),
		],
		workflows: (sandbox, cronSecond) => {
			// Half of A's first calls have ended at activation, half are on a line.
			campaigns.a = sandbox.startCallCampaign({ numbers: 40, lines: 20, name: 'E2E calls A' });
			sandbox.stepCalls(2);
			campaigns.b = sandbox.startCallCampaign({
				numbers: 2000,
				lines: 200,
				name: 'E2E calls B',
				retryDelaySteps: 50,
			});
			const workflow = (w, parameters) => callFinishedWorkflow(w, cronSecond, parameters);
			return [
				workflow(WORKFLOWS.every, { campaignIds: [campaigns.a.id] }),
				workflow(WORKFLOWS.final, {
					campaignIds: [campaigns.a.id],
					report: 'finalOutcome',
					outcomes: ['no_answer', 'busy'],
				}),
				workflow(WORKFLOWS.bound, {
					campaignIds: [campaigns.b.id],
					dataRequestsPerPoll: BOUND,
				}),
			];
		},
	});

	const { polls, dataReads, diagnostics, itemsOf, nextPoll } = callFinishedSteps(suite);

	/** What the run saw: B's data reads per poll, and A's results before activation. */
	const run = { beforeA: new Map(), bReadsPerPoll: [], bFirstSweep: new Map(), ran: false };

	before(async () => {
		await waitFor(() => polls() >= 1 && dataReads(campaigns.b).length >= 20, {
			timeoutMs: 60_000,
			describe: () => `no baseline poll${diagnostics()}`,
		});
		await sleep(3_000);
	});

	it('the first poll is quiet, although calls had ended before activation', async () => {
		const { sandbox } = suite;
		run.beforeA = endedAttempts(sandbox, campaigns.a);
		assert.ok(run.beforeA.size > 0);
		for (const workflow of Object.values(WORKFLOWS)) {
			assert.deepEqual(await suite.api.executionsOf(workflow.id), []);
		}
		// Calls land between the polls: A two steps at a time (every attempt stays readable for a
		// poll), B's first 200 results once, then, after two polls, B to its end at once.
		const { a, b } = campaigns;
		sandbox.stepCalls(2, a.id);
		sandbox.stepCalls(2, b.id);
		run.bFirstSweep = endedAttempts(sandbox, b);
		let aEndedBefore = Infinity;
		const readsBefore = dataReads(b).length;
		for (let poll = 1; poll <= 8 && !(poll > aEndedBefore && poll > 5); poll++) {
			await nextPoll();
			if (poll === 2) while (b.status !== 'completed') sandbox.stepCalls(1, b.id);
			sandbox.stepCalls(2, a.id);
			if (a.status === 'completed') aEndedBefore = Math.min(aEndedBefore, poll + 1);
		}
		// B's reads by poll: a poll's reads come together and polls are a minute apart, so a gap of
		// 30 s ends one (a loaded machine may finish a poll after the next poll of the clock).
		const reads = dataReads(b).slice(readsBefore);
		for (const [i, entry] of reads.entries()) {
			if (i === 0 || Date.parse(entry.at) - Date.parse(reads[i - 1].at) > 30_000)
				run.bReadsPerPoll.push(0);
			run.bReadsPerPoll[run.bReadsPerPoll.length - 1]++;
		}
		run.ran = true;
		assert.doesNotMatch(suite.output(), /poll failed/);
	});

	it('Every Attempt: each attempt that ended after activation fires once, retries included', async () => {
		assert.ok(run.ran, 'the calls ran');
		const items = await itemsOf(WORKFLOWS.every);
		const truth = endedAttempts(suite.sandbox, campaigns.a);
		const expected = [...truth.keys()].filter((key) => !run.beforeA.has(key)).sort();
		assert.deepEqual(doubled(items), []);
		assert.deepEqual(items.map(itemKey).sort(), expected);
		assert.ok(
			items.some((i) => i.attempts > 1),
			'a retried number fired again',
		);
		assert.ok(
			items.every((i) => i.campaignId === campaigns.a.id && i.campaign.name === 'E2E calls A'),
		);
	});

	it('Final Outcome Only, No Answer or Busy: each such number once, after its campaign ended', async () => {
		assert.ok(run.ran, 'the calls ran');
		const items = await itemsOf(WORKFLOWS.final);
		// A number's last attempt that had ended at activation was there before: it does not fire.
		const missed = [...finalOutcomes(suite.sandbox, campaigns.a)]
			.filter(([key, status]) => ['no_answer', 'busy'].includes(status) && !run.beforeA.has(key))
			.map(([key]) => key);
		assert.ok(missed.length > 0);
		assert.deepEqual(items.map(itemKey).sort(), missed.sort());
		assert.ok(items.every((i) => i.campaign.status === 'completed'));
	});

	it('2,000 numbers within the bound: the results fire over several polls, nothing lost or doubled', async () => {
		assert.ok(run.ran, 'the calls ran');
		assert.ok(Math.max(...run.bReadsPerPoll) <= BOUND, `reads a poll: ${run.bReadsPerPoll}`);
		const items = await itemsOf(WORKFLOWS.bound);
		assert.deepEqual(doubled(items), []);
		const keys = new Set(items.map(itemKey));
		for (const key of run.bFirstSweep.keys()) assert.ok(keys.has(key), `first results: ${key}`);
		for (const key of finalOutcomes(suite.sandbox, campaigns.b).keys()) {
			assert.ok(keys.has(key), `last attempt ${key}`);
		}
		const truth = endedAttempts(suite.sandbox, campaigns.b);
		assert.ok(items.every((i) => truth.get(itemKey(i)) === i.status));
		const executions = await suite.api.executionsOf(WORKFLOWS.bound.id);
		assert.ok(executions.length >= 3, `over several polls: ${executions.length} executions`);
	});
});
