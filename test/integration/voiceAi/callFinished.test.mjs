// Voice AI Trigger, Call Finished, against the sandbox's call campaigns (their calls progress by
// `stepCalls()`): every ended attempt once, retries included, none from before the first poll,
// the last results of a campaign that ended between polls, and a bounded read of a big campaign.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { VoiceAiTrigger } from '../../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import {
	attemptKey,
	compareCounts,
	countsSince,
	doubled,
	endedAttemptCounts,
	endedAttempts,
	finalOutcomes,
	itemKey,
} from '../../../tools/callTruth.mjs';
import { apiCallsSince, apiError, sandboxSuite, watcher } from '../../support/integration.mjs';

/** Pacing off: these tests make hundreds of polls. */
const UNPACED = { credentials: { requestsPerMinute: 0 } };
const watch = (sandbox, params = {}, options = {}) =>
	watcher(
		VoiceAiTrigger,
		sandbox,
		{ event: 'callFinished', ...params },
		{ ...UNPACED, ...options },
	);

const dataReads = (entries, campaign) =>
	entries.filter((e) => e.path === `/api/v1/voice/campaigns/${campaign.id}/data`);

/** Polls after every step until the campaign has completed, and once more; all the items. */
async function pollEachStep(sandbox, campaign, watchers) {
	const items = watchers.map(() => []);
	const pollAll = async () => {
		for (const [i, w] of watchers.entries()) items[i].push(...(await w.poll()).items);
	};
	while (campaign.status !== 'completed') {
		sandbox.stepCalls();
		await pollAll();
	}
	await pollAll();
	return items;
}

/** A fresh sandbox per test: a few campaigns besides the call campaigns the tests start. */
const SETTINGS = { campaignCount: 12, activeCampaignCount: 2, rateLimitPerMinute: 0 };

describe('Voice AI Trigger: Call Finished', () => {
	const env = sandboxSuite(SETTINGS, undefined, { each: true });

	it('the first poll is quiet; then each ended attempt fires once, retries included, with its campaign', async () => {
		const { sandbox } = env;
		const campaign = sandbox.startCallCampaign({ numbers: 120, lines: 8 });
		sandbox.stepCalls(5);
		const before = endedAttempts(sandbox, campaign);
		assert.ok(before.size > 0, 'results were there at activation');
		const w = watch(sandbox);
		assert.deepEqual((await w.poll()).items, [], 'the first poll only records what is there');

		const [items] = await pollEachStep(sandbox, campaign, [w]);
		assert.notEqual(w.staticData.poll.state.calledAt?.meaning, 'end', 'what calledAt stamps');
		const truth = endedAttempts(sandbox, campaign);
		const expected = [...truth.keys()].filter((key) => !before.has(key)).sort();
		assert.deepEqual(doubled(items), [], 'nothing twice');
		assert.deepEqual(items.map(itemKey).sort(), expected);
		for (const item of items) assert.equal(item.status, truth.get(itemKey(item)), itemKey(item));
		assert.ok(
			items.some((i) => i.attempts > 1),
			'a retried number fires again with its new attempts',
		);
		const record = sandbox.state.campaignData
			.get(campaign.id)
			.find((r) => r.phoneNumber === items[0].phoneNumber);
		assert.deepEqual(
			items.filter((i) => i.skippedAttempts !== 0),
			[],
			'polled at every step, no attempt ends unseen',
		);
		const { campaignId, campaign: about, skippedAttempts, ...asSent } = items[items.length - 1];
		assert.deepEqual(
			Object.keys(asSent).sort(),
			Object.keys(record).sort(),
			'the record unchanged',
		);
		assert.equal(campaignId, campaign.id);
		assert.deepEqual(about, {
			id: campaign.id,
			name: campaign.name,
			agentName: campaign.agentName,
			status: 'completed',
		});
		assert.ok(!(campaign.id in w.staticData.poll.state.watched), 'dropped after its last read');
		const mark = sandbox.log.length;
		await w.poll();
		assert.deepEqual(dataReads(apiCallsSince(sandbox, mark), campaign), [], 'not read again');
	});

	it('an API stamping calledAt at the end: nothing that ended before activation; what ends after, once', async () => {
		const { sandbox } = env;
		sandbox.setOptions({ calledAtStamps: 'end' });
		const campaign = sandbox.startCallCampaign({ numbers: 120, lines: 8 });
		sandbox.stepCalls(5);
		const before = endedAttempts(sandbox, campaign);
		const w = watch(sandbox);
		assert.deepEqual((await w.poll()).items, []);
		const [items] = await pollEachStep(sandbox, campaign, [w]);
		const truth = endedAttempts(sandbox, campaign);
		const expected = [...truth.keys()].filter((key) => !before.has(key)).sort();
		assert.deepEqual(doubled(items), [], 'nothing twice');
		assert.deepEqual(items.map(itemKey).sort(), expected);
		assert.equal(w.staticData.poll.state.calledAt.meaning, 'end', 'what calledAt stamps');
	});

	it('Final Outcome Only: an answered call as it lands, the other outcomes once the campaign has ended; Outcomes filter both', async () => {
		const { sandbox } = env;
		const watchers = {
			final: watch(sandbox, { report: 'finalOutcome' }),
			missed: watch(sandbox, { report: 'finalOutcome', outcomes: ['no_answer', 'busy'] }),
			answered: watch(sandbox, { outcomes: ['answered'] }),
		};
		const got = { final: [], missed: [], answered: [] };
		const pollAll = async () => {
			for (const [name, w] of Object.entries(watchers)) got[name].push(...(await w.poll()).items);
		};
		await pollAll();
		const campaign = sandbox.startCallCampaign({ numbers: 80, lines: 6 });
		while (campaign.status !== 'completed') {
			sandbox.stepCalls();
			if (campaign.status === 'completed') break;
			await pollAll();
		}
		const running = [...got.final, ...got.missed];
		assert.ok(got.final.length > 0 && got.missed.length === 0);
		assert.ok(
			running.every((i) => i.status === 'answered' && i.campaign.status === 'in_progress'),
			'while it runs, only answered calls',
		);
		await pollAll();
		const outcomes = finalOutcomes(sandbox, campaign);
		assert.deepEqual(doubled(got.final), []);
		assert.deepEqual(
			got.final.map(itemKey).sort(),
			[...outcomes.keys()].sort(),
			'one per number: its last attempt',
		);
		const missedKeys = [...outcomes].filter(([, s]) => s === 'no_answer' || s === 'busy');
		assert.ok(missedKeys.length > 0);
		assert.deepEqual(got.missed.map(itemKey).sort(), missedKeys.map(([key]) => key).sort());
		assert.ok(got.missed.every((i) => i.campaign.status === 'completed'));
		const answered = [...endedAttempts(sandbox, campaign)].filter(([, s]) => s === 'answered');
		assert.deepEqual(got.answered.map(itemKey).sort(), answered.map(([key]) => key).sort());
	});

	it('a campaign that ends between two polls: its last results still fire, each number once', async () => {
		const { sandbox } = env;
		const w = watch(sandbox);
		await w.poll();
		const campaign = sandbox.startCallCampaign({ numbers: 60, lines: 6 });
		const items = [];
		for (let i = 0; i < 4; i++) {
			sandbox.stepCalls();
			items.push(...(await w.poll()).items);
		}
		const reported = items.length;
		while (campaign.status !== 'completed') sandbox.stepCalls();
		const last = (await w.poll()).items;
		assert.ok(last.length > 0);
		items.push(...last);
		assert.deepEqual(doubled(items), [], 'nothing twice');
		for (const key of finalOutcomes(sandbox, campaign).keys()) {
			assert.ok(
				items.some((i) => itemKey(i) === key),
				`the last attempt ${key} fired`,
			);
		}
		assert.ok(
			last.every((i) => i.campaign.status === 'completed'),
			'with the campaign as it ended',
		);
		assert.ok(reported > 0);
		assert.deepEqual((await w.poll()).items, []);
	});

	it('a 2,000-number campaign is read within Data Requests per Poll over several polls, nothing lost or doubled', async () => {
		const { sandbox } = env;
		const budget = 5;
		const w = watch(sandbox, { campaignScope: 'all', dataRequestsPerPoll: budget });
		await w.poll();
		const campaign = sandbox.startCallCampaign({ numbers: 2000, lines: 150 });
		const items = [];
		const perPoll = [];
		let polls = 0;
		while (campaign.status !== 'completed') {
			sandbox.stepCalls();
			// A sweep of 20 pages takes 4 polls; calls land here once per sweep.
			for (let i = 0; i < 4; i++) {
				const mark = sandbox.log.length;
				items.push(...(await w.poll()).items);
				polls++;
				const made = apiCallsSince(sandbox, mark);
				perPoll.push(made.length);
				assert.ok(
					made.filter((e) => e.path.endsWith('/data')).length <= budget,
					`at most ${budget} data requests a poll`,
				);
			}
		}
		for (let i = 0; i < 4; i++) items.push(...(await w.poll()).items);
		const truth = endedAttempts(sandbox, campaign);
		assert.deepEqual(doubled(items), []);
		assert.deepEqual(items.map(itemKey).sort(), [...truth.keys()].sort());
		assert.ok(Math.max(...perPoll) <= budget + 4, `requests per poll: ${Math.max(...perPoll)}`);
		assert.ok(polls > 20);
	});

	it('only the chosen campaigns are read', async () => {
		const { sandbox } = env;
		const [mine, other] = [1, 2].map(() => sandbox.startCallCampaign({ numbers: 30, lines: 5 }));
		const w = watch(sandbox, { campaignScope: 'chosen', campaignIds: [mine.id] });
		await w.poll();
		const mark = sandbox.log.length;
		const [items] = await pollEachStep(sandbox, mine, [w]);
		assert.ok(items.length > 0 && items.every((i) => i.campaignId === mine.id));
		assert.deepEqual(dataReads(apiCallsSince(sandbox, mark), other), []);
	});

	it('a failed poll throws with its cause and changes nothing: what landed comes at the next good poll, once', async () => {
		const { sandbox } = env;
		let failData = false;
		const w = watch(
			sandbox,
			{},
			{
				wrapHttp: (http) => async (type, options) => {
					if (failData && String(options.url).endsWith('/data'))
						throw apiError(503, { message: 'down' });
					return http(type, options);
				},
			},
		);
		await w.poll();
		const campaign = sandbox.startCallCampaign({ numbers: 40, lines: 10 });
		sandbox.stepCalls(2);
		const stored = JSON.stringify(w.staticData);
		failData = true;
		await assert.rejects(w.poll(), (error) => {
			assert.deepEqual(error.failure, { cause: 'temporarily-unavailable' });
			return true;
		});
		assert.equal(JSON.stringify(w.staticData), stored, 'state as it was');
		failData = false;
		const { items } = await w.poll();
		assert.deepEqual(
			items.map(itemKey).sort(),
			[...endedAttempts(sandbox, campaign).keys()].sort(),
		);
		assert.deepEqual((await w.poll()).items, []);
	});

	it('a campaign whose data the API refuses (403) is a failed execution of its own, naming it; the others report; once healed, its results come once', async () => {
		const { sandbox } = env;
		let broken;
		const w = watch(
			sandbox,
			{},
			{
				wrapHttp: (http) => async (type, options) => {
					if (broken && String(options.url).endsWith(`/campaigns/${broken.id}/data`))
						throw apiError(403, { message: 'campaign locked' });
					return http(type, options);
				},
			},
		);
		await w.poll();
		const healthy = sandbox.startCallCampaign({ numbers: 30, lines: 10, name: 'Healthy' });
		broken = sandbox.startCallCampaign({ numbers: 30, lines: 10, name: 'Broken' });
		const items = [];
		for (let step = 0; step < 3; step++) {
			sandbox.stepCalls();
			const polled = await w.poll();
			items.push(...polled.items);
			assert.equal(polled.emittedErrors.length, 1, `step ${step}`);
			const [failure] = polled.emittedErrors;
			assert.match(
				failure.message,
				/The call data of campaign "Broken" \(cmp_[^)]+\) could not be read/,
			);
			assert.match(failure.description, /campaign locked/);
			assert.deepEqual(failure.failure, { cause: 'configuration-invalid' });
		}
		assert.ok(items.length > 0 && items.every((i) => i.campaignId === healthy.id));
		const brokenId = broken.id;
		broken = undefined;
		for (let i = 0; i < 3; i++) items.push(...(await w.poll()).items);
		const ended = [
			...endedAttempts(sandbox, healthy).keys(),
			...endedAttempts(sandbox, { id: brokenId }).keys(),
		];
		assert.deepEqual(doubled(items), [], 'nothing twice');
		assert.deepEqual(items.map(itemKey).sort(), ended.sort(), 'every attempt of both, once');
	});

	it('the state: under 12 bytes a number at 20,000 numbers, duplicates and all; each attempt once, or counted as skipped', async () => {
		const { sandbox } = env;
		const campaign = sandbox.startCallCampaign({
			numbers: 20_000,
			lines: 2_000,
			retryDelaySteps: 1,
			duplicates: 50,
		});
		sandbox.stepCalls();
		const w = watch(sandbox, { dataRequestsPerPoll: 100 });
		await w.poll();
		const before = endedAttemptCounts(sandbox, campaign);
		const items = [];
		let largest = 0;
		while (w.staticData.poll.state.watched[campaign.id]) {
			if (campaign.status !== 'completed') sandbox.stepCalls();
			items.push(...(await w.poll()).items);
			largest = Math.max(largest, Buffer.byteLength(JSON.stringify(w.staticData)));
		}
		const records = sandbox.state.campaignData.get(campaign.id).length;
		assert.ok(largest / records < 12, `${(largest / records).toFixed(2)} bytes a number`);
		const expected = countsSince(endedAttemptCounts(sandbox, campaign), before);
		assert.ok(
			[...expected.values()].some((times) => times === 2),
			'a number listed twice',
		);
		// A sweep takes two polls and a retry follows at the next step: some attempts end unseen,
		// and the number's next item counts them.
		const skipped = items.flatMap((item) =>
			Array.from({ length: item.skippedAttempts }, (_, k) => ({
				...item,
				attempts: item.attempts - 1 - k,
			})),
		);
		assert.ok(skipped.length > 0 && skipped.length < items.length / 4, `${skipped.length} skipped`);
		assert.deepEqual(
			compareCounts([...items, ...skipped], expected),
			{ missing: [], extra: [] },
			'every attempt after the first poll, once a record: reported or counted as skipped',
		);
	});

	it('Fetch Test Event: an ended call with its campaign, and the state left alone', async () => {
		const { sandbox } = env;
		const campaign = sandbox.startCallCampaign({ numbers: 30, lines: 10 });
		sandbox.stepCalls(2);
		const w = watch(sandbox, { outcomes: ['answered'] });
		const { items } = await w.poll('manual');
		assert.equal(items.length, 1);
		assert.equal(items[0].status, 'answered');
		assert.equal(items[0].campaign.id, campaign.id);
		assert.equal(items[0].skippedAttempts, 0, 'the field an Every Attempt item has');
		assert.equal(
			endedAttempts(sandbox, campaign).get(attemptKey(items[0].phoneNumber, items[0].attempts)),
			'answered',
		);
		assert.deepEqual(w.staticData, {});
	});
});
