import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';

import { pacingSettings, reserveSendTime, resetPacing } from '../../nodes/shared/pacing.ts';

afterEach(() => {
	resetPacing();
	pacingSettings.windowMs = 60_000;
});

describe('reserveSendTime', () => {
	it('lets `limit` requests go at once, then one more each time an old one leaves the window', () => {
		const times = Array.from({ length: 7 }, () => reserveSendTime('cred', 3, 1000));
		// the window plus its safety margin of 250 ms + 1 %
		assert.deepEqual(times, [1000, 1000, 1000, 61_850, 61_850, 61_850, 122_700]);
	});

	it('never lets more than `limit` fall in any window, whatever the arrival pattern', () => {
		const sent = [];
		let now = 0;
		for (let i = 0; i < 500; i++) {
			now += Math.floor((i * 7919) % 1300); // uneven arrivals
			sent.push(reserveSendTime('cred', 100, now));
		}
		sent.sort((a, b) => a - b);
		for (let i = 100; i < sent.length; i++) {
			assert.ok(
				sent[i] - sent[i - 100] >= 60_000,
				`requests ${i - 100} and ${i} fall in one window`,
			);
		}
	});

	it('does not delay requests that arrive slower than the budget', () => {
		const sent = Array.from({ length: 50 }, (_, i) => reserveSendTime('cred', 100, i * 700));
		assert.deepEqual(
			sent,
			Array.from({ length: 50 }, (_, i) => i * 700),
		);
	});

	it('keeps one budget per credential', () => {
		reserveSendTime('a', 1, 0);
		assert.equal(reserveSendTime('a', 1, 0), 60_850);
		assert.equal(reserveSendTime('b', 1, 0), 0);
	});

	it('follows a shortened window', () => {
		pacingSettings.windowMs = 1000;
		assert.deepEqual(
			[0, 0, 0].map(() => reserveSendTime('w', 2, 0)),
			[0, 0, 1260],
		);
	});
});
