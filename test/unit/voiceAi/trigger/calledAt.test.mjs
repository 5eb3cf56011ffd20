// What calledAt stamps (nodes/VoiceAi/trigger/calledAt.ts): learned only from what one reading
// makes impossible, and the first read's judgement of a record that ended around activation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
	MAX_UNDECIDED,
	calledAtSettings,
	endedAfter,
	holdUndecided,
	learnMeaning,
	settleUndecided,
} from '../../../../nodes/VoiceAi/trigger/calledAt.ts';
import { readCall } from '../../../../nodes/VoiceAi/trigger/callRecords.ts';

const T = Date.UTC(2026, 0, 5, 9, 0, 0);
const iso = (ms) => new Date(ms).toISOString();
const call = (status, { attempts = 1, calledAt, duration } = {}) =>
	readCall({
		phoneNumber: '+34600000001',
		status,
		attempts,
		...(calledAt === undefined ? {} : { calledAt: iso(calledAt) }),
		...(duration === undefined ? {} : { durationSeconds: duration }),
	});
const slack = calledAtSettings.clockSlackMs;
const alone = { alone: () => true };

describe('what calledAt stamps, learned from the records', () => {
	it('an ended call whose calledAt + durationSeconds lies after its read: calledAt is the end', () => {
		const state = {};
		// Read 20 s after a 60 s call ended, with calledAt its end: the sum is 40 s ahead of the read.
		learnMeaning(state, 'c1', call('answered', { calledAt: T, duration: 60 }), T + 20_000, alone);
		assert.equal(state.meaning, 'end');
		// With calledAt its start, the sum is never after the read (within the clock's slack).
		const start = {};
		const read = T + 60_000 + slack;
		learnMeaning(start, 'c1', call('answered', { calledAt: T, duration: 60 }), read, alone);
		assert.equal(start.meaning, undefined);
	});

	it('a calledAt shown while a call goes on tells nothing by itself (it may move to the end)', () => {
		const state = {};
		const before = call('pending', { attempts: 0 }).signature;
		learnMeaning(state, 'c1', call('calling', { calledAt: T }), T + 30_000, {
			before,
			alone: () => true,
		});
		assert.equal(state.meaning, undefined);
		// Then ended with calledAt moved to its end: that says nothing of the start either.
		const calling = call('calling', { calledAt: T });
		learnMeaning(
			state,
			'c1',
			call('answered', { calledAt: T + 60_000, duration: 60 }),
			T + 125_000,
			{
				before: calling.signature,
				alone: () => true,
			},
		);
		assert.equal(state.meaning, undefined);
	});

	it('a call seen being called, then ended with the calledAt it showed, from before that read: the start', () => {
		const state = {};
		const calling = call('calling', { attempts: 2, calledAt: T });
		learnMeaning(state, 'c1', calling, T + 30_000, alone);
		assert.ok(state.probes['c1 +34600000001'], 'the read is kept');
		const ended = call('answered', { attempts: 2, calledAt: T, duration: 40 });
		learnMeaning(state, 'c1', ended, T + 90_000, { before: calling.signature, alone: () => true });
		assert.equal(state.meaning, 'start');
		assert.equal(state.probes, undefined, 'probes go once the meaning is known');
	});

	it('calledAt that moved at the end, or a call seen only just after it was placed: nothing learned', () => {
		// calledAt its end: the calling record showed the end of the attempt before.
		const state = {};
		const calling = call('calling', { attempts: 2, calledAt: T });
		learnMeaning(state, 'c1', calling, T + 30_000, alone);
		const end = T + 70_000;
		const ended = call('answered', { attempts: 2, calledAt: end, duration: 40 });
		learnMeaning(state, 'c1', ended, end + 60_000, {
			before: calling.signature,
			alone: () => true,
		});
		assert.equal(state.meaning, undefined);
		// Seen being called within the clock's slack of its calledAt: too close to tell.
		const close = {};
		learnMeaning(close, 'c1', calling, T + slack - 1, alone);
		const same = call('answered', { attempts: 2, calledAt: T, duration: 40 });
		learnMeaning(close, 'c1', same, T + 120_000, { before: calling.signature, alone: () => true });
		assert.equal(close.meaning, undefined);
	});

	it('probes are few and let go after an hour', () => {
		const state = {};
		for (let i = 0; i < 40; i++) {
			const calling = readCall({ phoneNumber: `+3460000${100 + i}`, status: 'calling' });
			learnMeaning(state, 'c1', calling, T, alone);
		}
		assert.equal(Object.keys(state.probes).length, 32);
		const late = readCall({ phoneNumber: '+34600000999', status: 'calling' });
		learnMeaning(state, 'c1', late, T + 3_600_001, alone);
		assert.deepEqual(Object.keys(state.probes), ['c1 +34600000999']);
	});
});

describe('the first read: did a call end after watching began?', () => {
	const since = T;
	it('judged alike by both readings: news or old at once', () => {
		assert.equal(
			endedAfter({}, call('answered', { calledAt: T + 1, duration: 30 }), since),
			'news',
		);
		assert.equal(
			endedAfter({}, call('answered', { calledAt: T - 31_000, duration: 30 }), since),
			'old',
		);
		assert.equal(endedAfter({}, call('answered'), since), 'old', 'without calledAt');
		assert.equal(
			endedAfter({}, call('answered', { calledAt: T - 10_000 }), since),
			'old',
			'no duration',
		);
	});

	it('placed before and ended after as the start, ended before as the end: waits, then follows the meaning', () => {
		const straddling = call('answered', { calledAt: T - 10_000, duration: 60 });
		assert.equal(endedAfter({}, straddling, since), 'undecided');
		assert.equal(endedAfter({ meaning: 'start' }, straddling, since), 'news');
		assert.equal(endedAfter({ meaning: 'end' }, straddling, since), 'old');
	});

	it('waiting attempts: reported once the meaning is the start, dropped when it is the end', () => {
		const attempt = (n, sweep = 0) => ({
			campaignId: 'c1',
			phoneNumber: `+${n}`,
			signature: n,
			sweep,
			item: { n },
		});
		const none = new Map();
		const state = {};
		holdUndecided(state, attempt(1));
		holdUndecided(state, attempt(2));
		assert.deepEqual(settleUndecided(state, none), [], 'kept while not known');
		assert.equal(state.undecided.length, 2);
		state.meaning = 'start';
		assert.deepEqual(
			settleUndecided(state, none).map((a) => a.item.n),
			[1, 2],
		);
		assert.equal(state.undecided, undefined);
		const ends = { meaning: 'end' };
		holdUndecided(ends, attempt(3));
		assert.deepEqual(settleUndecided(ends, none), []);
		assert.equal(ends.undecided, undefined);
	});

	it('without the meaning: taken by the start reading once a full read of its campaign after its own told nothing', () => {
		const state = {};
		const attempt = (n, campaignId, sweep) => ({
			campaignId,
			phoneNumber: `+${n}`,
			signature: n,
			sweep,
			item: { n },
		});
		holdUndecided(state, attempt(1, 'c1', 0));
		holdUndecided(state, attempt(2, 'c1', 1));
		holdUndecided(state, attempt(3, 'c2', 0));
		// c1's first read (sweep 0) ended: nothing yet.
		assert.deepEqual(settleUndecided(state, new Map([['c1', 1]])), []);
		// Its next full read: the one read in the first.
		const settled = settleUndecided(state, new Map([['c1', 2]]));
		assert.deepEqual(
			settled.map((a) => a.item.n),
			[1],
		);
		assert.deepEqual(
			state.undecided.map((a) => a.item.n),
			[2, 3],
		);
		// A campaign read for the last time: no read will tell more.
		assert.deepEqual(
			settleUndecided(state, new Map([['c2', Infinity]])).map((a) => a.item.n),
			[3],
		);
	});

	it(`at most ${MAX_UNDECIDED} wait: the oldest go`, () => {
		const state = {};
		for (let n = 0; n < MAX_UNDECIDED + 3; n++) {
			holdUndecided(state, {
				campaignId: 'c1',
				phoneNumber: `+${n}`,
				signature: n,
				sweep: 0,
				item: {},
			});
		}
		assert.equal(state.undecided.length, MAX_UNDECIDED);
		assert.equal(state.undecided[0].signature, 3);
	});
});
