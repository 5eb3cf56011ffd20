// Voice AI Trigger, Call Finished, against a scripted API of several campaigns: numbers listed
// twice, attempts that ended unseen between two reads (skippedAttempts), an ended campaign read
// again while a call of it is still calling, Data Requests per Poll shared between campaigns, and
// a first read spread over polls that reports what ended after watching began.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ENDED_CAMPAIGN_READS } from '../../../../nodes/VoiceAi/trigger/callFinishedDescription.ts';
import { VoiceAiTrigger } from '../../../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { CallTable } from '../../../../nodes/VoiceAi/trigger/callState.ts';
import { at, callWatcher, campaignsApi, keys, record } from '../../../support/callApi.mjs';
import { API_URL, scriptedPoll, UNPACED } from '../../../support/unit.mjs';

const trigger = new VoiceAiTrigger();

describe('Call Finished at scale', () => {
	it('a number listed twice: every attempt of each listing once, and nothing again later', async () => {
		let records = [record('+1', 'calling'), record('+2', 'pending'), record('+1', 'pending')];
		const w = callWatcher(campaignsApi({ c1: { status: 'in_progress', records: () => records } }));
		assert.deepEqual((await w.poll()).items, []);
		records = [record('+1', 'answered'), record('+2', 'calling'), record('+1', 'calling')];
		assert.deepEqual(keys((await w.poll()).items), ['+1#1:answered']);
		records = [record('+1', 'answered'), record('+2', 'busy'), record('+1', 'no_answer')];
		assert.deepEqual(keys((await w.poll()).items), ['+2#1:busy', '+1#1:no_answer']);
		records[2] = record('+1', 'busy', 2);
		assert.deepEqual(keys((await w.poll()).items), ['+1#2:busy']);
		for (let i = 0; i < 3; i++) assert.deepEqual((await w.poll()).items, [], 'once each');
	});

	it('skippedAttempts: the attempts of a number that ended between two reads', async () => {
		let records = [
			record('+1', 'no_answer', 1),
			record('+2', 'calling', 1),
			record('+3', 'pending', 0),
		];
		const w = callWatcher(campaignsApi({ c1: { status: 'in_progress', records: () => records } }));
		await w.poll();
		records = [record('+1', 'busy', 3), record('+2', 'answered', 2), record('+3', 'failed', 2)];
		const items = (await w.poll()).items;
		assert.deepEqual(
			items.map((i) => [i.phoneNumber, i.skippedAttempts]),
			[
				['+1', 1],
				['+2', 1],
				['+3', 1],
			],
		);
		records = [record('+1', 'calling', 4), record('+2', 'answered', 2), record('+3', 'failed', 2)];
		await w.poll();
		records[0] = record('+1', 'answered', 4);
		assert.deepEqual(
			(await w.poll()).items.map((i) => i.skippedAttempts),
			[0],
		);
		const final = callWatcher(
			campaignsApi({ c1: { status: 'in_progress', records: () => records } }),
			{
				report: 'finalOutcome',
			},
		);
		await final.poll();
		records[1] = record('+2', 'answered', 3);
		const [item] = (await final.poll()).items;
		assert.equal(item.phoneNumber, '+2');
		assert.ok(!('skippedAttempts' in item), 'Final Outcome Only reports no skipped attempts');
	});

	for (const report of ['everyAttempt', 'finalOutcome']) {
		it(`${report}: a call still calling when its campaign ends is reported once it ends`, async () => {
			const campaign = { status: 'in_progress', records: () => records };
			let records = [record('+1', 'calling'), record('+2', 'calling')];
			const w = callWatcher(campaignsApi({ c1: campaign }), { report });
			await w.poll();
			records = [record('+1', 'no_answer'), record('+2', 'calling', 2)];
			campaign.status = 'completed';
			const atEnd = await w.poll();
			assert.deepEqual(keys(atEnd.items), ['+1#1:no_answer']);
			assert.ok(w.staticData.poll.state.watched.c1, 'still watched: a call is calling');
			records = [record('+1', 'no_answer'), record('+2', 'busy', 2)];
			assert.deepEqual(keys((await w.poll()).items), ['+2#2:busy']);
			assert.equal(w.staticData.poll.state.watched.c1, undefined, 'dropped: no call is calling');
			const after = await w.poll();
			assert.deepEqual(after.items, []);
			assert.ok(!after.calls.some((c) => c.url.endsWith('/data')), 'not read again');
		});
	}

	it(`an ended campaign with a call that never ends is read ${ENDED_CAMPAIGN_READS} times, then dropped`, async () => {
		const campaign = { status: 'in_progress', records: () => [record('+1', 'calling')] };
		const w = callWatcher(campaignsApi({ c1: campaign }));
		await w.poll();
		campaign.status = 'completed';
		let reads = 0;
		for (let i = 0; i < ENDED_CAMPAIGN_READS + 3; i++) {
			reads += (await w.poll()).calls.filter((c) => c.url.endsWith('/c1/data')).length;
		}
		assert.equal(reads, ENDED_CAMPAIGN_READS);
		assert.equal(w.staticData.poll.state.watched.c1, undefined);
	});

	it('Data Requests per Poll is shared: a big campaign first in turn does not hold back a small one', async () => {
		let big = Array.from({ length: 1000 }, (_, i) => record(`+1${i}`, 'pending', 0));
		let small = Array.from({ length: 100 }, (_, i) => record(`+2${i}`, 'pending', 0));
		const w = callWatcher(
			campaignsApi({
				big: { status: 'in_progress', records: () => big },
				small: { status: 'in_progress', records: () => small },
			}),
			{ dataRequestsPerPoll: 4 },
		);
		await w.poll();
		assert.deepEqual(w.staticData.poll.state.queue, ['big', 'small']);
		big = big.map((r) => ({ ...r, status: 'answered', attempts: 1, calledAt: at(1) }));
		small = small.map((r) => ({ ...r, status: 'answered', attempts: 1, calledAt: at(1) }));
		const { items, calls } = await w.poll();
		const reads = (id) => calls.filter((c) => c.url.endsWith(`/${id}/data`)).length;
		assert.equal(reads('small'), 1, 'read in the same poll, not after every page of the big one');
		assert.equal(items.filter((i) => i.campaignId === 'small').length, 100);
		assert.equal(reads('big'), 3, 'its share, 2 of the 4, and the request the small one left');
		assert.equal(items.filter((i) => i.campaignId === 'big').length, 300);
		assert.deepEqual(w.staticData.poll.state.queue, ['big', 'small']);
	});

	it('a poll whose next read the pace of requests leaves no time for ends there, each campaign read in one go', async () => {
		const records = Array.from({ length: 500 }, (_, i) => record(`+4${i}`, 'answered'));
		const respond = campaignsApi({
			a: { status: 'in_progress', records: () => records },
			b: { status: 'in_progress', records: () => records },
		});
		const staticData = {};
		const polls = async (credentials) => {
			const { context, calls } = scriptedPoll(respond, {
				params: { event: 'callFinished' },
				staticData,
				credentials,
				pollBudgetMs: 3_000,
			});
			await trigger.poll.call(context);
			return calls;
		};
		await polls(UNPACED);
		const encode = CallTable.prototype.encode;
		let reads = 0;
		CallTable.prototype.encode = function (...args) {
			reads++;
			return encode.apply(this, args);
		};
		try {
			// 6 requests a minute: after the campaign lists, the next read would wait past the poll.
			const calls = await polls({ baseUrl: API_URL, requestsPerMinute: 6 });
			assert.ok(calls.filter((c) => c.url.endsWith('/data')).length < 10);
			assert.ok(reads <= 2, `${reads} reads of the campaigns' state in one poll`);
		} finally {
			CallTable.prototype.encode = encode;
		}
	});

	it('a first read spread over polls reports, once, what ended after watching began', async () => {
		const started = Date.now();
		const count = 600;
		// Half ended long before watching began; the others end while the first read goes on.
		const records = Array.from({ length: count }, (_, i) =>
			record(`+3${i}`, i % 2 ? 'calling' : 'answered', 1, at(1)),
		);
		const respond = campaignsApi({ c1: { status: 'in_progress', records: () => records } });
		let ending = 1;
		const slow = async (options, n) => {
			if (options.url.endsWith('/data')) {
				await new Promise((resolve) => setTimeout(resolve, 40));
				// Each page read ends 15 more calls, now, all over the data.
				for (let n = 0; n < 15 && ending < count; n++, ending += 2) {
					records[ending] = record(
						records[ending].phoneNumber,
						'busy',
						1,
						new Date().toISOString(),
					);
				}
			}
			return respond(options, n);
		};
		const staticData = {};
		const items = [];
		let polls = 0;
		for (; polls < 40; polls++) {
			const { context } = scriptedPoll(slow, {
				params: { event: 'callFinished' },
				staticData,
				pollBudgetMs: 150,
			});
			const result = await trigger.poll.call(context);
			items.push(...(result ? result[0].map((i) => i.json) : []));
			const watched = staticData.poll?.state.watched.c1;
			if (watched && !watched.silent && records.every((r) => r.status !== 'calling')) {
				// One more sweep reads what ended since the last.
				const { context: last } = scriptedPoll(respond, {
					params: { event: 'callFinished' },
					staticData,
				});
				const tail = await trigger.poll.call(last);
				items.push(...(tail ? tail[0].map((i) => i.json) : []));
				break;
			}
		}
		assert.ok(polls >= 2, `the first read took ${polls + 1} polls`);
		const ended = records.filter((r) => Date.parse(r.calledAt) >= started);
		assert.ok(ended.length > 0);
		assert.deepEqual(
			items.map((i) => i.phoneNumber).sort(),
			ended.map((r) => r.phoneNumber).sort(),
			'each attempt that ended after watching began, once; none from before',
		);
	});
});
