// The Messenger Live Trigger's schedule: which chat is read next and when, on a clock of the test's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ChatSchedule, LIVE_SCHEDULE } from '../../../../nodes/Messenger/trigger/liveSchedule.ts';

const MINUTE = 60_000;

/** Reads a minute that the chats' gaps at `now` come to. */
function readsPerMinute(schedule, keys, now) {
	return keys.reduce((sum, key) => sum + MINUTE / schedule.gapMs(key, now), 0);
}

describe('Messenger Live Trigger schedule', () => {
	it('every chat is due at the start, in the order listed', () => {
		const schedule = new ChatSchedule(['a', 'b'], 1000, () => 60);
		assert.deepEqual(schedule.next(1000), { key: 'a', at: 1000 });
		schedule.read('a', 1000);
		assert.deepEqual(schedule.next(1000), { key: 'b', at: 1000 });
	});

	it('with many chats, those in conversation are read more often and together they fill the budget, no more', () => {
		const keys = Array.from({ length: 20 }, (_, index) => `c${index}`);
		const schedule = new ChatSchedule(keys, 0, () => 60);
		// Ten chats changed just now, ten are quiet.
		for (const key of keys.slice(0, 10)) schedule.read(key, 0, true);
		for (const key of keys.slice(10)) schedule.read(key, 0);
		const active = schedule.gapMs('c0', 1);
		const quiet = schedule.gapMs('c19', 1);
		assert.ok(Math.abs(quiet / active - LIVE_SCHEDULE.quietRatio) < 0.01, `${quiet} / ${active}`);
		assert.ok(Math.abs(readsPerMinute(schedule, keys, 1) - 60) < 0.5);
		// Half the budget (another live trigger on it): every gap twice as long.
		const halved = new ChatSchedule(keys, 0, () => 30);
		for (const key of keys.slice(0, 10)) halved.read(key, 0, true);
		assert.ok(Math.abs(readsPerMinute(halved, keys, 1) - 30) < 0.5);
	});

	it('a chat is in conversation for a while after it changed, then quiet again', () => {
		const keys = Array.from({ length: 20 }, (_, index) => `c${index}`);
		const schedule = new ChatSchedule(keys, 0, () => 60);
		schedule.read('c0', 0, true);
		const span = LIVE_SCHEDULE.activeSpanMs;
		assert.ok(schedule.gapMs('c0', span - 1) < schedule.gapMs('c1', span - 1));
		assert.equal(schedule.gapMs('c0', span), schedule.gapMs('c1', span));
	});

	it('with few chats, the gaps stop at their bounds and the budget is not spent', () => {
		const schedule = new ChatSchedule(['a', 'b'], 0, () => 60);
		schedule.read('a', 0, true);
		schedule.read('b', 0);
		assert.equal(schedule.gapMs('a', 1), LIVE_SCHEDULE.activeGapMs);
		assert.equal(schedule.gapMs('b', 1), LIVE_SCHEDULE.quietGapMs.min);
		// Not sooner than due: here the bounds, not the budget, set the gaps.
		assert.deepEqual(schedule.next(1), { key: 'a', at: LIVE_SCHEDULE.activeGapMs });
		assert.deepEqual(schedule.next(LIVE_SCHEDULE.activeGapMs), {
			key: 'a',
			at: LIVE_SCHEDULE.activeGapMs,
		});
		// Many chats on a small budget: a quiet chat's gap stops at its longest.
		const many = new ChatSchedule(
			Array.from({ length: 50 }, (_, index) => `c${index}`),
			0,
			() => 10,
		);
		assert.equal(many.gapMs('c0', 0), LIVE_SCHEDULE.quietGapMs.max);
	});

	it('while the budget sets the gaps, a read it leaves room for goes to the chat due earliest, once past its bound', () => {
		const keys = Array.from({ length: 20 }, (_, index) => `c${index}`);
		const schedule = new ChatSchedule(keys, 0, () => 60);
		// c0…c9 in conversation, read at 0 and 100 ms apart; c10…c19 quiet, read at 0.
		for (const [index, key] of keys.slice(0, 10).entries()) schedule.read(key, index * 100, true);
		for (const key of keys.slice(10)) schedule.read(key, 0);
		const gap = schedule.gapMs('c0', 1000);
		assert.ok(gap > LIVE_SCHEDULE.activeGapMs * 2, `the budget sets a gap of ${gap} ms`);
		// Before any bound has passed, the chat that may be read first, when it may.
		assert.deepEqual(schedule.next(1000), { key: 'c0', at: LIVE_SCHEDULE.activeGapMs });
		// Past the bound of the chats in conversation, long before they are due: read now, in order.
		const now = LIVE_SCHEDULE.activeGapMs + 500;
		assert.deepEqual(schedule.next(now), { key: 'c0', at: now });
		schedule.read('c0', now);
		assert.deepEqual(schedule.next(now), { key: 'c1', at: now });
		// Those in conversation just read: a quiet chat past its bound goes, long before it is due.
		const later = LIVE_SCHEDULE.quietGapMs.min;
		for (const key of keys.slice(0, 10)) schedule.read(key, later - 1, true);
		assert.ok(schedule.gapMs('c10', later) > later);
		assert.deepEqual(schedule.next(later), { key: 'c10', at: later });
	});
});

describe('Messenger Live Trigger schedule: a failing chat', () => {
	it('waits out a back-off of its own, doubling to its longest, with no share of the budget; a good read ends it', () => {
		const keys = Array.from({ length: 20 }, (_, index) => `c${index}`);
		const schedule = new ChatSchedule(keys, 0, () => 60);
		const nineteen = new ChatSchedule(keys.slice(1), 0, () => 60);
		const { min, max } = LIVE_SCHEDULE.backoffMs;
		let now = 0;
		const delays = [];
		for (let streak = 0; streak < 12; streak++) {
			schedule.failed('c0', now);
			const due = now + Math.min(max, min * 2 ** streak);
			delays.push(due - now);
			// Long past its bound, it is not read before its back-off ends.
			for (const key of keys.slice(1)) schedule.read(key, due - 1);
			const early = schedule.next(due - 1);
			assert.ok(early.key !== 'c0' || early.at === due, JSON.stringify(early));
			assert.deepEqual(schedule.next(due), { key: 'c0', at: due });
			now = due;
		}
		assert.equal(delays[1], 2 * delays[0]);
		assert.equal(delays.at(-1), max);
		assert.equal(schedule.failuresOf('c0'), 12);
		// The others share the budget as 19 chats would.
		assert.equal(schedule.gapMs('c1', now), nineteen.gapMs('c1', now));
		schedule.read('c0', now);
		assert.equal(schedule.failuresOf('c0'), 0);
		schedule.failed('c0', now);
		assert.deepEqual(schedule.next(now + min), { key: 'c0', at: now + min });
	});
});

describe('Messenger Live Trigger schedule: an outage', () => {
	it('three chats in a row failing for a cause every read would meet hold every read, doubling; a good read ends it', () => {
		const keys = Array.from({ length: 20 }, (_, index) => `c${index}`);
		const schedule = new ChatSchedule(keys, 0, () => 60);
		const { min, max } = LIVE_SCHEDULE.outageHoldMs;
		schedule.failed('c0', 0, true);
		schedule.failed('c1', 0, true);
		assert.deepEqual(schedule.next(0), { key: 'c2', at: 0 }, 'two chats may be their own');
		schedule.failed('c2', 0, true);
		assert.deepEqual(schedule.next(0), { key: 'c3', at: min });
		schedule.failed('c3', min, true);
		assert.deepEqual(schedule.next(min), { key: 'c4', at: 3 * min });
		for (let index = 4; index < 20; index++) schedule.failed(`c${index}`, 0, true);
		assert.equal(schedule.next(0).at, max);
		// A chat's own failures (403, 404) say nothing of the API; a good read ends the hold.
		const own = new ChatSchedule(keys, 0, () => 60);
		for (const key of keys.slice(0, 5)) own.failed(key, 0);
		assert.deepEqual(own.next(0), { key: 'c5', at: 0 });
		schedule.read('c0', max);
		assert.ok(schedule.next(max).at <= max, 'read at once');
		// One watched chat: its own failure is an outage too.
		const alone = new ChatSchedule(['c0'], 0, () => 60);
		alone.failed('c0', 0, true);
		assert.equal(alone.next(0).at, Math.max(min, LIVE_SCHEDULE.backoffMs.min));
	});
});

describe('Messenger Live Trigger schedule: the chats read change', () => {
	it('a chat left out (its other entry reads it) takes no share of the budget; one added is due at once', () => {
		// 40 quiet chats on 60 reads a minute: each every 40 s (the budget sets the gaps).
		const keys = Array.from({ length: 40 }, (_, index) => `c${index}`);
		const schedule = new ChatSchedule(keys, 0, () => 60);
		// c20 … c39 were read long ago: due before the others.
		for (const [index, key] of keys.entries()) schedule.read(key, index < 20 ? 0 : -100_000);
		assert.equal(schedule.gapMs('c0', 1), 40_000);
		assert.equal(schedule.next(1).key, 'c20');
		schedule.readOnly(keys.slice(0, 20), 1);
		assert.equal(schedule.gapMs('c0', 1), 20_000, 'half the chats, half the gap');
		assert.equal(schedule.next(1).key, 'c0', 'c20 … c39 are read no more');
		schedule.readOnly([...keys.slice(0, 20), 'phone'], 2);
		assert.deepEqual(schedule.next(2), { key: 'phone', at: 2 });
	});
});
