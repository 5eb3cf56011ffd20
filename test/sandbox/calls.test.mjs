// The sandbox's call campaigns: numbers go pending → calling → ended (answered, no_answer, busy,
// failed), some are retried with attempts + 1, and the campaign completes; by stepCalls() or, in
// real time, every callStepMs. Their data in the shapes, orders and pagings the alternatives give;
// numbers listed twice, a campaign that completes while calls are on a line, and data that cannot
// be read (failCampaignData).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { MAX_ATTEMPTS, callScript } from '../../sandbox/data.mjs';
import { RETRY_DELAY_STEPS } from '../../sandbox/api/calls.mjs';
import {
	compareCounts,
	countsSince,
	doubled,
	endedAttemptCounts,
	endedSinceWatching,
	finalOutcomeCounts,
	itemKey,
	recordsNow,
} from '../../tools/callTruth.mjs';
import { waitFor } from '../../tools/processes.mjs';
import { sandboxFor, sandboxWithClient } from '../support/sandboxApi.mjs';

const ENDED = ['answered', 'no_answer', 'busy', 'failed'];
const records = (sandbox, campaign) => sandbox.state.campaignData.get(campaign.id);

/**
 * A call campaign of 10 numbers, all dialed at the first step, and its data as the sandbox serves
 * it when calledAt stamps the start or the end (`served(stamps)`).
 */
async function stampedCampaign(t) {
	const { sandbox, api } = await sandboxWithClient(t, { rateLimitPerMinute: 0 });
	const campaign = sandbox.startCallCampaign({ numbers: 10, lines: 10 });
	const path = `/api/v1/voice/campaigns/${campaign.id}/data`;
	const served = async (stamps) => {
		sandbox.setOptions({ calledAtStamps: stamps });
		return (await api.get(path)).body.items;
	};
	return { sandbox, campaign, served };
}

describe('sandbox: call campaigns', () => {
	test('numbers are called a few lines at a time, end as scripted, some retried, until the campaign completes', async (t) => {
		const sandbox = await sandboxFor(t, { rateLimitPerMinute: 0 });
		const campaign = sandbox.startCallCampaign({ numbers: 60, lines: 4 });
		assert.equal(campaign.status, 'pending');
		assert.ok(records(sandbox, campaign).every((r) => r.status === 'pending' && r.attempts === 0));
		sandbox.stepCalls();
		assert.equal(campaign.status, 'in_progress');
		assert.equal(records(sandbox, campaign).filter((r) => r.status === 'calling').length, 4);
		/** When each number's attempts were last seen calling, by step. */
		const calledAt = new Map();
		let steps = 1;
		records(sandbox, campaign).forEach((r, i) => r.status === 'calling' && calledAt.set(i, 1));
		while (campaign.status === 'in_progress') {
			const before = records(sandbox, campaign).map((r) => ({ ...r }));
			sandbox.stepCalls();
			steps++;
			const after = records(sandbox, campaign);
			const ended = after.filter((r, i) => before[i].status === 'calling');
			assert.ok(ended.length <= 4 && ended.every((r) => ENDED.includes(r.status)));
			for (const [i, r] of after.entries()) {
				if (r.status !== 'calling' || before[i].status === 'calling') continue;
				assert.equal(r.attempts, before[i].attempts + 1, 'a call is one more attempt');
				if (r.attempts > 1) {
					assert.ok(steps - calledAt.get(i) >= RETRY_DELAY_STEPS + 1, 'a retry waits');
					assert.ok(Date.parse(r.calledAt) > Date.parse(before[i].calledAt));
				}
				calledAt.set(i, steps);
			}
			assert.ok(steps < 200);
		}
		assert.equal(campaign.status, 'completed');
		const done = records(sandbox, campaign);
		assert.ok(done.every((r) => ENDED.includes(r.status) && r.attempts <= MAX_ATTEMPTS));
		done.forEach((r, i) => {
			const script = callScript(1, campaign.id, i);
			assert.equal(r.attempts, script.length);
			assert.equal(r.status, script.at(-1).outcome);
		});
		assert.ok(
			done.some((r) => r.attempts > 1),
			'some numbers were retried',
		);
		assert.ok(new Set(done.map((r) => r.status)).size >= 3);
		const seeded = sandbox.state.campaigns.filter((c) => c.id !== campaign.id);
		sandbox.advance(3);
		assert.equal(campaign.status, 'completed', 'advance() leaves call campaigns to their calls');
		assert.ok(seeded.every((c) => ['completed', 'failed', 'cancelled'].includes(c.status)));
	});

	test('a cancelled call campaign stops calling: the calls on a line fail as cancelled', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t, { rateLimitPerMinute: 0 });
		const campaign = sandbox.startCallCampaign({ numbers: 30, lines: 3 });
		sandbox.stepCalls(3);
		const cancel = await api.post(`/api/v1/voice/campaigns/${campaign.id}/cancel`, {});
		assert.equal(cancel.status, 200);
		const after = records(sandbox, campaign).map((r) => ({ ...r }));
		assert.ok(after.every((r) => r.status !== 'calling'));
		assert.ok(after.some((r) => r.result === 'cancelled'));
		sandbox.stepCalls(5);
		assert.deepEqual(records(sandbox, campaign), after);
		assert.equal(campaign.status, 'cancelled');
	});

	test('in real time: a step every callStepMs, and callCampaigns kept running', async (t) => {
		const sandbox = await sandboxFor(t, {
			callStepMs: 20,
			callCampaigns: 2,
			callCampaignNumbers: 6,
		});
		const calls = () => [...sandbox.state.callRuns.values()].map((run) => run.campaign);
		assert.equal(calls().length, 2);
		await waitFor(() => calls().some((c) => c.status === 'completed'), {
			timeoutMs: 10_000,
			describe: () => 'no call campaign completed',
		});
		await waitFor(() => calls().filter((c) => c.status !== 'completed').length === 2, {
			timeoutMs: 5_000,
			describe: () => 'no new call campaign started',
		});
		sandbox.setOptions({ callStepMs: 0 });
		const frozen = JSON.stringify(calls());
		await new Promise((resolve) => setTimeout(resolve, 100));
		assert.equal(JSON.stringify(calls()), frozen, 'callStepMs 0 stops the steps');
	});

	test('their data: in pages, all at once, the last changed first, in other shapes', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t, { rateLimitPerMinute: 0 });
		const campaign = sandbox.startCallCampaign({ numbers: 250, lines: 30 });
		sandbox.stepCalls(4);
		const path = `/api/v1/voice/campaigns/${campaign.id}/data`;
		const paged = await api.get(`${path}?page=2&limit=100`);
		assert.deepEqual(paged.body.items, records(sandbox, campaign).slice(100, 200));
		assert.equal(paged.body.totalPages, 3);

		sandbox.setOptions({ callDataPaging: 'all' });
		const all = await api.get(`${path}?page=2&limit=10`);
		assert.equal(all.body.items.length, 250);

		sandbox.setOptions({ callDataPaging: 'pages', callDataOrder: 'last-change' });
		const [newest] = (await api.get(`${path}?limit=100`)).body.items;
		sandbox.stepCalls();
		const moved = (await api.get(`${path}?limit=100`)).body.items;
		assert.notDeepEqual(moved[0], newest);
		assert.ok(
			moved.slice(0, 30).every((r) => r.status === 'calling'),
			'the last called first',
		);

		sandbox.setOptions({ callDataOrder: 'upload', callRecordShape: 'snake' });
		const [snake] = (await api.get(path)).body.items;
		assert.deepEqual(Object.keys(snake).sort(), [
			'attempts',
			'called_at',
			'duration_seconds',
			'phone',
			'result',
			'status',
		]);
		sandbox.setOptions({ callRecordShape: 'minimal' });
		const [minimal] = (await api.get(path)).body.items;
		assert.ok(!('attempts' in minimal) && !('calledAt' in minimal) && 'phoneNumber' in minimal);
		sandbox.setOptions({ callRecordShape: 'unknown' });
		const [unknown] = (await api.get(path)).body.items;
		assert.deepEqual(Object.keys(unknown).sort(), ['msisdn', 'outcome', 'tries']);
	});

	test('calledAtStamps: the start (kept through the call) or the end (moved when the call ends)', async (t) => {
		const { sandbox, campaign, served } = await stampedCampaign(t);
		// A number whose first attempt is retried (the sandbox's scripts, seed 1).
		const i = records(sandbox, campaign).findIndex(
			(_, n) => callScript(1, campaign.id, n).length > 1,
		);
		sandbox.stepCalls();
		const calling = (await served('start'))[i];
		assert.equal(calling.status, 'calling');
		assert.equal((await served('end'))[i].calledAt, null, 'no end before the first');
		// Steps until that number has ended an attempt and is being called again.
		let ended;
		for (let step = 0; step < 40; step++) {
			sandbox.stepCalls();
			const now = (await served('start'))[i];
			if (!ended && now.status !== 'calling') {
				ended = now;
				const atEnd = (await served('end'))[i];
				const end = Date.parse(now.calledAt) + now.durationSeconds * 1000;
				assert.equal(Date.parse(atEnd.calledAt), end, 'the end of the call');
				assert.equal(now.calledAt, calling.calledAt, 'the start did not move');
			} else if (ended && now.status === 'calling' && now.attempts > ended.attempts) {
				const atEnd = (await served('end'))[i];
				const end = Date.parse(ended.calledAt) + ended.durationSeconds * 1000;
				assert.equal(
					Date.parse(atEnd.calledAt),
					end,
					'being called: the end of the attempt before',
				);
				return;
			}
		}
		assert.fail(`no retry of ${calling.phoneNumber} seen`);
	});

	test('calledAtStamps: an answered call seen calling, then ended: at the end its calledAt moved to the end, at the start it did not; the truth goes by the real end either way', async (t) => {
		const { sandbox, campaign, served } = await stampedCampaign(t);
		// A number whose first attempt is answered: it talks, so its start and its end differ.
		const i = records(sandbox, campaign).findIndex(
			(_, n) => callScript(1, campaign.id, n)[0].outcome === 'answered',
		);
		assert.ok(i >= 0, 'an answered first attempt among the scripts (seed 1)');
		sandbox.stepCalls();
		const calling = { start: (await served('start'))[i], end: (await served('end'))[i] };
		assert.equal(calling.start.status, 'calling');
		assert.equal(calling.end.calledAt, null, 'being called, no attempt ended before');
		const steppedAt = Date.now();
		sandbox.stepCalls();
		const ended = { start: (await served('start'))[i], end: (await served('end'))[i] };
		assert.equal(ended.start.status, 'answered');
		assert.ok(ended.start.durationSeconds > 0);
		assert.equal(ended.end.durationSeconds, ended.start.durationSeconds);
		// The end: when the step ended it (the sandbox's clock), whatever the record shows.
		const end = sandbox.state.campaignData.get(campaign.id)[i];
		const endedAt = Date.parse(end.calledAt) + end.durationSeconds * 1000;
		assert.ok(endedAt >= steppedAt && endedAt <= Date.now(), 'it ended at the step');
		assert.equal(Date.parse(ended.end.calledAt), endedAt, 'end: calledAt is the end');
		assert.ok(Date.parse(ended.end.calledAt) > Date.parse(calling.start.calledAt), 'moved');
		assert.ok(
			Date.parse(ended.start.calledAt) <= Date.parse(calling.start.calledAt),
			'start: not moved to the end (placed back by its length at most)',
		);
		assert.equal(
			Date.parse(ended.start.calledAt) + ended.start.durationSeconds * 1000,
			endedAt,
			'start: calledAt + durationSeconds is the end',
		);
		// tools/callTruth.mjs holds runs to the real end in both modes, not to what is served.
		for (const stamps of ['start', 'end']) {
			sandbox.setOptions({ calledAtStamps: stamps });
			assert.equal(recordsNow(sandbox, campaign)[i].endedAt, endedAt, stamps);
			const after = endedSinceWatching(sandbox, campaign, recordsNow(sandbox, campaign), {
				from: endedAt + 1,
			});
			assert.equal(after.either.has(itemKey(ended.start)), false, `${stamps}: ended before`);
		}
	});

	test('duplicates: numbers listed twice have a second record later in the data, whose calls play out apart', async (t) => {
		const sandbox = await sandboxFor(t, { rateLimitPerMinute: 0 });
		const campaign = sandbox.startCallCampaign({ numbers: 30, lines: 6, duplicates: 5 });
		const phones = records(sandbox, campaign).map((r) => r.phoneNumber);
		assert.equal(phones.length, 35);
		assert.equal(new Set(phones).size, 30);
		const twice = phones.slice(30);
		assert.ok(twice.every((phone) => phones.indexOf(phone) < 30));
		// Not the same call twice: each record at its own place, with its own script.
		let apart = false;
		while (campaign.status !== 'completed') {
			sandbox.stepCalls();
			const now = records(sandbox, campaign);
			for (const [i, phone] of twice.entries()) {
				const first = now[phones.indexOf(phone)];
				if (first.status !== now[30 + i].status) apart = true;
			}
		}
		assert.ok(apart, 'a number and its second record were at different points');
		records(sandbox, campaign).forEach((r, i) => {
			const script = callScript(1, campaign.id, i);
			assert.equal(r.attempts, script.length);
			assert.equal(r.status, script.at(-1).outcome);
		});

		// The truth counts a number's attempts once per record that ended them.
		const counts = endedAttemptCounts(sandbox, campaign);
		for (const phone of twice) assert.equal(counts.get(`${phone}#1`), 2, phone);
		assert.equal(
			[...counts.values()].reduce((a, b) => a + b, 0),
			records(sandbox, campaign).reduce((sum, r) => sum + r.attempts, 0),
		);
		const items = [...counts].flatMap(([key, times]) => {
			const [phoneNumber, attempts] = key.split('#');
			return Array.from({ length: times }, () => ({ phoneNumber, attempts: Number(attempts) }));
		});
		assert.deepEqual(compareCounts(items, counts), { missing: [], extra: [] });
		assert.deepEqual(doubled(items, counts), []);
		assert.equal(
			doubled(items).length,
			twice.length,
			'without the counts, a second record doubles',
		);
		// Each key once: a second record's attempt is missing.
		const once = [...counts.keys()].map((key) => items.find((item) => itemKey(item) === key));
		assert.deepEqual(
			compareCounts(once, counts).missing,
			twice.map((phone) => `${phone}#1`).sort(),
		);
		assert.deepEqual(compareCounts([...items, items[0]], counts).extra, [
			`${items[0].phoneNumber}#1`,
		]);
		assert.deepEqual(
			[...countsSince(counts, counts).keys()],
			[],
			'nothing ended since the same counts',
		);
		const finals = finalOutcomeCounts(sandbox, campaign);
		assert.equal(
			[...finals.values()].reduce((a, b) => a + b, 0),
			35,
		);
	});

	test('endsWhileCalling: the campaign completes while its last calls are on a line; they end at the next step, without retries', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t, { rateLimitPerMinute: 0 });
		const campaign = sandbox.startCallCampaign({ numbers: 20, lines: 6, endsWhileCalling: true });
		const other = sandbox.startCallCampaign({ numbers: 20, lines: 6 });
		let steps = 0;
		while (campaign.status !== 'completed' && steps++ < 100) sandbox.stepCalls(1, campaign.id);
		const calling = records(sandbox, campaign).filter((r) => r.status === 'calling');
		assert.ok(calling.length > 0, 'calls on a line when it completed');
		const path = `/api/v1/voice/campaigns/${campaign.id}/data`;
		const read = (await api.get(`${path}?limit=100`)).body.items;
		assert.equal(read.filter((r) => r.status === 'calling').length, calling.length);
		assert.equal(
			(await api.get(`/api/v1/voice/campaigns/${campaign.id}`)).body.status,
			'completed',
		);

		sandbox.stepCalls();
		const after = records(sandbox, campaign).map((r) => ({ ...r }));
		assert.ok(
			after.every((r) => ENDED.includes(r.status)),
			'the last calls ended',
		);
		assert.equal(campaign.status, 'completed');
		for (const r of calling) {
			const now = after.find((x) => x.phoneNumber === r.phoneNumber);
			assert.equal(now.attempts, r.attempts, 'no retry follows');
		}
		sandbox.stepCalls(5);
		assert.deepEqual(records(sandbox, campaign), after, 'then nothing moves');
		// The default: a campaign completes once its last call has ended.
		while (other.status !== 'completed') {
			sandbox.stepCalls(1, other.id);
			if (other.status === 'completed') {
				assert.ok(records(sandbox, other).every((r) => ENDED.includes(r.status)));
			}
		}
	});

	test('failCampaignData: every read of that campaign’s data answers the status, logged; null heals it', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t, { rateLimitPerMinute: 0 });
		const broken = sandbox.startCallCampaign({ numbers: 150, lines: 10 });
		const healthy = sandbox.startCallCampaign({ numbers: 150, lines: 10 });
		sandbox.stepCalls(2);
		const path = (campaign, page = 1) =>
			`/api/v1/voice/campaigns/${campaign.id}/data?page=${page}&limit=100`;
		sandbox.failCampaignData(broken.id);
		for (const page of [1, 2]) {
			const answer = await api.get(path(broken, page));
			assert.equal(answer.status, 500);
			assert.equal(answer.body.statusCode, 500);
			assert.match(answer.body.message, /campaign data/);
		}
		assert.equal((await api.get(path(healthy))).status, 200);
		assert.equal(
			(await api.get(`/api/v1/voice/campaigns/${broken.id}`)).status,
			200,
			'the campaign itself reads',
		);
		const logged = sandbox.log.filter((e) => e.path.endsWith(`${broken.id}/data`));
		assert.deepEqual(
			logged.map((e) => e.status),
			[500, 500],
		);
		sandbox.failCampaignData(broken.id, 503);
		assert.equal((await api.get(path(broken))).status, 503);
		sandbox.failCampaignData(broken.id, null);
		const healed = await api.get(path(broken));
		assert.equal(healed.status, 200);
		assert.deepEqual(healed.body.items, records(sandbox, broken).slice(0, 100));
	});
});
