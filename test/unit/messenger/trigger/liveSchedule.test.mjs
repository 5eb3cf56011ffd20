// The Messenger Live Trigger's schedule: which chat is read next and when, on a clock of the test's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
	ChatSchedule,
	LIVE_SCHEDULE,
	quietGapMs,
} from '../../../../nodes/Messenger/trigger/liveSchedule.ts';

describe('Messenger Live Trigger schedule', () => {
	it('a quiet chat’s gap spreads the budget over the chats, within its bounds', () => {
		assert.equal(quietGapMs(20, 60), 20_000 / LIVE_SCHEDULE.quietShare);
		assert.equal(quietGapMs(1, 60), LIVE_SCHEDULE.quietGapMs.min);
		assert.equal(quietGapMs(50, 10), LIVE_SCHEDULE.quietGapMs.max);
	});

	it('every chat is due at the start, in the order listed', () => {
		const schedule = new ChatSchedule(['a', 'b'], 1000, 20_000);
		assert.deepEqual(schedule.next(), { key: 'a', at: 1000 });
		schedule.read('a', 1000);
		assert.deepEqual(schedule.next(), { key: 'b', at: 1000 });
	});

	it('after a change every few seconds, then ever less often; never faster than half a round', () => {
		const schedule = new ChatSchedule(['a', 'b'], 0, 20_000);
		schedule.read('b', 0);
		schedule.read('a', 0, true);
		assert.deepEqual(schedule.next(), { key: 'a', at: LIVE_SCHEDULE.activeGapMs });
		schedule.read('a', 40_000);
		assert.equal(schedule.next().key, 'b');
		assert.equal(schedule.gapMs('a', 40_000), 40_000 * LIVE_SCHEDULE.sinceChangeShare);
		assert.equal(schedule.gapMs('a', 400_000), 20_000);
		assert.equal(schedule.gapMs('b', 1), 20_000, 'never changed: quiet');
		const many = new ChatSchedule(['a'], 0, 20_000, 20_000);
		many.read('a', 0, true);
		assert.equal(many.gapMs('a', 0), 20_000 * LIVE_SCHEDULE.busyFloorShare);
	});
});
