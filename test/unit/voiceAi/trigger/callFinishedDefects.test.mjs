// Call Finished, one test per defect found by driving the built trigger against a scripted API
// (each failed before the fix): pages that shift while they are read, a number listed twice,
// records without attempts or calledAt, numbers whose hashed keys met, an outage met by one
// campaign, a record the trigger cannot read, and the first read judged by n8n's clock.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';

import { ObservableObject } from 'n8n-workflow';

import { VoiceAiTrigger } from '../../../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { readCall } from '../../../../nodes/VoiceAi/trigger/callRecords.ts';
import { httpError } from '../../../../tools/context.mjs';
import { at, callWatcher, campaignsApi, keys, record } from '../../../support/callApi.mjs';
import { run } from '../../../support/callHistories.mjs';
import { scriptedPoll } from '../../../support/unit.mjs';

const trigger = new VoiceAiTrigger();
// The settings the trigger reads: its modules load through require (an import is another copy).
const require = createRequire(import.meta.url);
const { retrySettings } = require('../../../../nodes/shared/transport.ts');
const { calledAtSettings } = require('../../../../nodes/VoiceAi/trigger/calledAt.ts');

/**
 * The statuses Final Outcome Only reports for listing `index` of a generated history, run as the
 * properties run it (callFinishedHistories: the Date header's whole seconds allowed for).
 */
async function finalOutcomesOf(world, index) {
	const slack = calledAtSettings.clockSlackMs;
	calledAtSettings.clockSlackMs = 1000;
	try {
		const { api, items } = await run(world, { report: 'finalOutcome' });
		const { number } = api.listings[index];
		return items.filter((i) => i.phoneNumber === number).map((i) => i.status);
	} finally {
		calledAtSettings.clockSlackMs = slack;
	}
}

describe('Call Finished: the defects, each once', () => {
	// A 503 is asked again at once (the outage test counts failures, not waits).
	const saved = { ...retrySettings };
	before(() => Object.assign(retrySettings, { baseDelayMs: 0, maxDelayMs: 0 }));
	after(() => Object.assign(retrySettings, saved));

	it('pages that shift: a record read twice while calling stays one record, and its end is reported once', async () => {
		// Data newest change first, pages of 2: a record that changes moves to the front.
		let rows = [
			record('+1', 'calling'),
			record('+2', 'calling'),
			record('+3', 'calling'),
			record('+4', 'pending', 0),
		];
		const moveToFront = (number, changed) => {
			rows = [changed, ...rows.filter((r) => r.phoneNumber !== number)];
		};
		let between;
		const w = callWatcher(
			campaignsApi(
				{ c1: { status: 'in_progress', records: () => rows } },
				{ pageSize: 2, beforeData: (page) => page === 2 && between?.() },
			),
		);
		await w.poll();
		// Poll 1: +4 starts between page 1 and 2 and moves to the front: +2 is read twice.
		between = () => moveToFront('+4', record('+4', 'calling'));
		assert.deepEqual((await w.poll()).items, []);
		between = undefined;
		rows = rows.map((r) => (r.phoneNumber === '+2' ? record('+2', 'no_answer') : r));
		moveToFront('+2', record('+2', 'no_answer'));
		assert.deepEqual(keys((await w.poll()).items), ['+2#1:no_answer']);
		// Poll 3: two records change while the pages are read: +2 is met on both pages.
		between = () => {
			moveToFront('+1', record('+1', 'busy'));
			moveToFront('+3', record('+3', 'answered'));
		};
		const again = await w.poll();
		assert.ok(!keys(again.items).includes('+2#1:no_answer'), 'not +2 again');
		between = undefined;
		const later = [];
		for (let i = 0; i < 3; i++) later.push(...(await w.poll()).items);
		assert.deepEqual(keys([...again.items, ...later]).sort(), ['+1#1:busy', '+3#1:answered']);
	});

	it('a number listed twice, pages that shift: one listing ended and read twice while the other is not read yet: once, skipping none', async () => {
		const [first, second, other] = [
			record('+1', 'calling', 1, at(1)),
			record('+1', 'calling', 1, at(2)),
			record('+9', 'calling'),
		];
		let rows = [first, other, second];
		let between;
		const w = callWatcher(
			campaignsApi(
				{ c1: { status: 'in_progress', records: () => rows } },
				{ pageSize: 1, beforeData: (page) => page === 2 && between?.() },
			),
		);
		await w.poll();
		const ended = record('+1', 'no_answer', 1, at(2));
		rows = [ended, first, other];
		// Between page 1 and 2, +9 changes and moves to the front: the ended listing is read again.
		between = () => {
			rows = [record('+9', 'busy'), ended, first];
		};
		const { items } = await w.poll();
		assert.deepEqual(keys(items), ['+1#1:no_answer']);
		assert.equal(items[0].skippedAttempts, 0);
		between = undefined;
		const later = [];
		for (let i = 0; i < 3; i++) later.push(...(await w.poll()).items);
		assert.deepEqual(keys(later), ['+9#1:busy'], '+9 in the next sweep, +1 not again');
	});

	it('records without attempts, pages that shift: each end once (the history the properties shrank to)', async () => {
		const world = {
			shape: 'noAttempts',
			calledAt: 'start',
			order: 'lastChangeDesc',
			pageSize: 1,
			latencyMs: 0,
			budget: 1,
			listings: [
				{ number: 1, outcomes: ['answered'], startedBefore: 0 },
				{ number: 0, outcomes: ['answered'], startedBefore: 0 },
			],
			schedule: [],
			eventsPerAnswer: [0],
			failAt: [],
			restartAfter: [],
		};
		const { api, items } = await run(world);
		for (const l of api.listings) {
			assert.equal(items.filter((i) => i.phoneNumber === l.number).length, 1, l.number);
		}
	});

	it('Final Outcome Only: an attempt that waited for the meaning of calledAt, learned after the campaign ended but before its record was read again, is not reported when the number was called again (the history the properties shrank to)', async () => {
		// Number 0's first attempt (no answer, placed before watching began, ended after) waits
		// for the meaning of calledAt; the number is called again and answers; the campaign ends;
		// the meaning is learned from other records before the page holding number 0 is read again.
		const world = {
			shape: 'full',
			calledAt: 'start',
			order: 'stable',
			pageSize: 2,
			latencyMs: 0,
			budget: 1,
			listings: [
				{ number: 4, outcomes: ['answered'], startedBefore: 1 },
				{ number: 1, outcomes: ['answered', 'answered'], startedBefore: 1 },
				{ number: 2, outcomes: ['answered'], startedBefore: 0 },
				{ number: 3, outcomes: ['answered'], startedBefore: 0 },
				{ number: 0, outcomes: ['no_answer', 'answered'], startedBefore: 0 },
			],
			schedule: [922720546, 633092384, 153856525, 0, 0],
			eventsPerAnswer: [0, 2, 2],
			failAt: [],
			restartAfter: [],
		};
		assert.deepEqual(await finalOutcomesOf(world, 4), ['answered']);
	});

	it('Final Outcome Only: an attempt held once the meaning of calledAt is learned, after its record was read with the campaign ended, is reported at a further read (the history the properties shrank to)', async () => {
		const world = {
			shape: 'full',
			calledAt: 'start',
			order: 'lastChangeAsc',
			pageSize: 1,
			latencyMs: 0,
			budget: 1,
			listings: [
				{ number: 2, outcomes: ['answered', 'answered'], startedBefore: 2 },
				{ number: 1, outcomes: ['answered'], startedBefore: 0 },
				{ number: 0, outcomes: ['answered', 'no_answer'], startedBefore: 1 },
			],
			schedule: [159336380],
			eventsPerAnswer: [0, 1, 1],
			failAt: [],
			restartAfter: [],
		};
		assert.deepEqual(await finalOutcomesOf(world, 2), ['no_answer']);
	});

	it('two numbers that a 36-bit hash of them mixed up: each result once', async () => {
		const [a, b] = ['+4915100775246', '+4915101034780'];
		let rows = [record(a, 'calling'), record(b, 'calling')];
		const w = callWatcher(campaignsApi({ c1: { status: 'in_progress', records: () => rows } }));
		await w.poll();
		rows = [record(a, 'calling'), record(b, 'no_answer')];
		assert.deepEqual(keys((await w.poll()).items), [`${b}#1:no_answer`]);
		rows = [record(a, 'no_answer'), record(b, 'no_answer')];
		assert.deepEqual(keys((await w.poll()).items), [`${a}#1:no_answer`]);
		assert.deepEqual((await w.poll()).items, []);
	});

	it('one 503 after the first page is an outage: the poll fails once with its cause, no failed execution per campaign', async () => {
		const many = (prefix) =>
			Array.from({ length: 150 }, (_, i) => record(`${prefix}${i}`, 'calling'));
		const campaigns = {
			a: { status: 'in_progress', records: () => many('+1') },
			b: { status: 'in_progress', records: () => many('+2') },
			c: { status: 'in_progress', records: () => many('+3') },
		};
		let failing = false;
		const data = [];
		const respond = campaignsApi(campaigns, {
			failAt: (n, { url }) => {
				if (!url.endsWith('/data')) return;
				data.push(url);
				if (failing && data.length > 1) throw httpError(503, { message: 'Service Unavailable' });
			},
		});
		const w = callWatcher(respond);
		await w.poll();
		const before = JSON.stringify(w.staticData);
		failing = true;
		data.length = 0;
		const { context, emittedErrors } = scriptedPoll(respond, {
			params: { event: 'callFinished' },
			staticData: w.staticData,
		});
		await assert.rejects(trigger.poll.call(context), (error) => {
			assert.deepEqual(error.failure, { cause: 'temporarily-unavailable' });
			return true;
		});
		assert.equal(emittedErrors.length, 0, 'no failed execution per campaign');
		assert.equal(JSON.stringify(w.staticData), before, 'the state as it was');
	});

	it('a record without a number is named in a failed execution; the other records and campaigns report', async () => {
		let rows = [record('+1', 'calling'), record('+2', 'calling')];
		let other = [record('+3', 'calling')];
		const w = callWatcher(
			campaignsApi({
				c1: { status: 'in_progress', records: () => rows },
				c2: { status: 'in_progress', records: () => other },
			}),
		);
		await w.poll();
		rows = [{ status: 'answered', attempts: 1 }, record('+2', 'busy')];
		other = [record('+3', 'answered')];
		const polled = await w.poll();
		assert.deepEqual(keys(polled.items).sort(), ['+2#1:busy', '+3#1:answered']);
		assert.equal(polled.emittedErrors.length, 1);
		assert.match(polled.emittedErrors[0].message, /A record of campaign "Campaign c1" \(c1\)/);
		assert.match(polled.emittedErrors[0].message, /phoneNumber/);
	});

	it("the first read goes by the API's clock: with n8n's clock an hour off, nothing from before watching began, and what ends during it once", async () => {
		const apiNow = Date.UTC(2025, 0, 1, 0, 30);
		let rows = [
			record('+1', 'answered', 1, at(10)), // ended before watching began
			record('+2', 'calling', 1, at(29)),
		];
		const respond = campaignsApi(
			{ c1: { status: 'in_progress', records: () => rows } },
			{ clock: () => apiNow },
		);
		for (const skew of [-3_600_000, 3_600_000]) {
			const realNow = Date.now;
			Date.now = () => apiNow + skew;
			try {
				rows = [record('+1', 'answered', 1, at(10)), record('+2', 'calling', 1, at(29))];
				const w = callWatcher(respond);
				await w.poll();
				rows = [
					record('+1', 'answered', 1, at(10)),
					{ ...record('+2', 'answered', 1, at(29)), durationSeconds: 90 },
				];
				assert.deepEqual(keys((await w.poll()).items), ['+2#1:answered'], `skew ${skew}`);
				assert.deepEqual((await w.poll()).items, []);
			} finally {
				Date.now = realNow;
			}
		}
	});

	it('a calledAt without a zone is the API’s UTC, whatever zone n8n runs in', () => {
		const zone = process.env.TZ;
		process.env.TZ = 'America/New_York';
		try {
			const call = readCall({
				phoneNumber: '+1',
				status: 'answered',
				attempts: 1,
				calledAt: '2026-01-05T09:31:00',
				durationSeconds: 20,
			});
			assert.equal(call.calledAt, Date.UTC(2026, 0, 5, 9, 31, 0));
		} finally {
			if (zone === undefined) delete process.env.TZ;
			else process.env.TZ = zone;
		}
	});

	it('an API whose calledAt stamps the end: calls that ended just before activation are not reported', async () => {
		// Activation at 09:00:00 by the API's clock; two 60 s calls ended 10 s and 40 s before it,
		// stamped with their end, and one call ends during the first read: reported once.
		const activation = Date.UTC(2026, 0, 5, 9, 0, 0);
		let now = activation;
		const ended = (number, end) => ({
			phoneNumber: number,
			status: 'answered',
			attempts: 1,
			calledAt: new Date(end).toISOString(),
			durationSeconds: 60,
		});
		const rows = [
			ended('+1', activation - 10_000),
			ended('+2', activation - 40_000),
			{ phoneNumber: '+3', status: 'calling', attempts: 1 },
		];
		const w = callWatcher(
			campaignsApi(
				{ c1: { status: 'in_progress', records: () => rows } },
				{
					pageSize: 1,
					clock: () => now,
					// The third page is read 30 s later; +3 ended 5 s before.
					beforeData: (page) => {
						if (page !== 3) return;
						now = activation + 30_000;
						rows[2] = ended('+3', now - 5_000);
					},
				},
			),
		);
		const realNow = Date.now;
		Date.now = () => now;
		try {
			assert.deepEqual((await w.poll()).items, []);
			const next = await w.poll();
			assert.deepEqual(keys(next.items), ['+3#1:answered']);
			assert.equal(w.staticData.poll.state.calledAt.meaning, 'end');
			assert.deepEqual((await w.poll()).items, []);
		} finally {
			Date.now = realNow;
		}
	});

	it('state that n8n hands over as a proxy (its static data after a restart) is read and copied', async () => {
		const rows = [record('+1', 'calling'), record('+2', 'pending', 0)];
		const respond = campaignsApi({ c1: { status: 'in_progress', records: () => rows } });
		const w = callWatcher(respond);
		await w.poll();
		// As n8n loads a workflow's static data: wrapped in observable proxies.
		const proxied = ObservableObject.create(JSON.parse(JSON.stringify(w.staticData)));
		for (const key of Object.keys(w.staticData)) delete w.staticData[key];
		Object.assign(w.staticData, proxied);
		rows[0] = record('+1', 'answered');
		assert.deepEqual(keys((await w.poll()).items), ['+1#1:answered']);
	});
});
