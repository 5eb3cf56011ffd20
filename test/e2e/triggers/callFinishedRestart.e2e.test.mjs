// Own n8n: the test stops and starts n8n while a campaign's calls land.
// Voice AI Trigger, Call Finished, across a restart of n8n: the attempts that end while n8n is down
// fire once after it is back, with those of the polls before and after (Every Attempt on A); a
// campaign that ends while n8n is down still reports each number's last result once (Final Outcome
// Only on B). On n8n 1.x: n8n1Restart.e2e.test.mjs.
import assert from 'node:assert/strict';
import { before, describe } from 'node:test';

import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { doubled, endedAttempts, finalOutcomes, itemKey } from '../../../tools/callTruth.mjs';
import { sleep, waitFor } from '../../../tools/processes.mjs';
import { sandboxCredential } from '../../../tools/workflows.mjs';
import { suiteOptions } from '../harness.mjs';
import { callFinishedSteps, callFinishedWorkflow } from './callFinished.mjs';
import { usePollingN8n } from './polling.mjs';

const { version, title, it } = suiteOptions('Voice AI Trigger, Call Finished, across a restart');
const CREDENTIALS = {
	full: { id: 'e2eCallsCredFul2', name: 'Call Finished restart, full client (e2e)' },
	voice: { id: 'e2eCallsCredVoi2', name: 'Call Finished restart, voice client (e2e)' },
};
const WORKFLOWS = {
	every: { id: 'e2eCallsEvery002', credential: CREDENTIALS.full },
	final: { id: 'e2eCallsFinal002', credential: CREDENTIALS.voice },
};

describe(title, { timeout: 15 * 60_000 }, () => {
	/** @type {{ a: any, b: any }} */
	const campaigns = { a: undefined, b: undefined };
	const suite = usePollingN8n({
		version,
		ownN8n: true,
		credentials: (sandbox) => [
			sandboxCredential(CREDENTIALS.full, sandbox, DEMO_CLIENTS.full),
			sandboxCredential(CREDENTIALS.voice, sandbox, DEMO_CLIENTS.voiceOnly),
		],
		workflows: (sandbox, cronSecond) => {
			// Some first calls of each have ended at activation.
			campaigns.a = sandbox.startCallCampaign({ numbers: 40, lines: 20, name: 'E2E restart A' });
			campaigns.b = sandbox.startCallCampaign({ numbers: 30, lines: 10, name: 'E2E restart B' });
			sandbox.stepCalls(2);
			return [
				callFinishedWorkflow(WORKFLOWS.every, cronSecond, { campaignIds: [campaigns.a.id] }),
				callFinishedWorkflow(WORKFLOWS.final, cronSecond, {
					campaignIds: [campaigns.b.id],
					report: 'finalOutcome',
				}),
			];
		},
	});
	const { polls, diagnostics, itemsOf, nextPoll } = callFinishedSteps(suite);

	before(async () => {
		await waitFor(() => polls() >= 1, {
			timeoutMs: 60_000,
			describe: () => `no baseline poll${diagnostics()}`,
		});
		await sleep(3_000);
	});

	it('n8n restarted while calls land: every attempt once, and the last results of a campaign that ended meanwhile', async () => {
		const { sandbox } = suite;
		const { a, b } = campaigns;
		const beforeA = endedAttempts(sandbox, a);
		const beforeB = endedAttempts(sandbox, b);
		assert.ok(beforeA.size > 0 && beforeB.size > 0);
		// Two polls with calls landing, then n8n stops: A moves on two steps (every attempt stays
		// readable for a poll) and B to its end while it is down.
		for (let poll = 0; poll < 2; poll++) {
			sandbox.stepCalls(2, a.id);
			await nextPoll();
		}
		await suite.server.stop();
		sandbox.stepCalls(2, a.id);
		while (b.status !== 'completed') sandbox.stepCalls(1, b.id);
		assert.ok(a.status !== 'completed', 'A still calls when n8n comes back');
		await suite.restart();
		// A to its end, two steps a poll, and one poll after it ended.
		let pollsAfterEnd = 0;
		for (let poll = 0; poll < 12 && pollsAfterEnd < 1; poll++) {
			await nextPoll();
			if (a.status === 'completed') pollsAfterEnd++;
			sandbox.stepCalls(2, a.id);
		}
		assert.equal(a.status, 'completed', `A ended${diagnostics()}`);

		const every = await itemsOf(WORKFLOWS.every);
		assert.deepEqual(doubled(every), [], 'no attempt of A twice');
		const expected = [...endedAttempts(sandbox, a).keys()].filter((key) => !beforeA.has(key));
		assert.deepEqual(every.map(itemKey).sort(), expected.sort());
		assert.ok(
			every.some((i) => i.attempts > 1),
			'a retried number fired again',
		);

		const final = await itemsOf(WORKFLOWS.final);
		// A number whose last attempt had ended at activation was there before: it does not fire.
		const last = [...finalOutcomes(sandbox, b).keys()].filter((key) => !beforeB.has(key));
		assert.ok(last.length > 0);
		assert.deepEqual(final.map(itemKey).sort(), last.sort(), `B's last results${diagnostics()}`);
		assert.ok(final.every((i) => i.campaign.status === 'completed'));
		assert.doesNotMatch(suite.output(), /poll failed/);
	});
});
