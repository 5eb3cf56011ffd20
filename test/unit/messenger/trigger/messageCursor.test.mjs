// Messenger Trigger, Message Received: the cursor of one chat (the newest time seen and the IDs
// seen at that time), bounded however many messages share one time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
	MAX_TIED_IDS,
	advanceCursor,
	isAfter,
} from '../../../../nodes/Messenger/trigger/messageCursor.ts';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (second) => new Date(T0 + second * 1000).toISOString();

describe('chat cursor', () => {
	const cursor = { at: at(5), ids: ['msg_b'] };

	it('a message is new when later, or at the same time with an ID not seen', () => {
		assert.equal(isAfter(cursor, { id: 'msg_a', createdAt: at(6) }), true);
		assert.equal(isAfter(cursor, { id: 'msg_z', createdAt: at(4) }), false);
		assert.equal(isAfter(cursor, { id: 'msg_b', createdAt: at(5) }), false);
		assert.equal(isAfter(cursor, { id: 'msg_a', createdAt: at(5) }), true);
		// Another spelling of the same instant is the same time.
		assert.equal(isAfter(cursor, { id: 'msg_b', createdAt: '2026-03-01T10:00:05Z' }), false);
	});

	it('moves to the newest time and keeps the IDs seen there, merged while the time stays', () => {
		const later = advanceCursor(cursor, [
			{ id: 'msg_c', createdAt: at(7) },
			{ id: 'msg_d', createdAt: at(7) },
			{ id: 'msg_e', createdAt: at(6) },
		]);
		assert.deepEqual(later, { at: at(7), ids: ['msg_c', 'msg_d'] });
		assert.deepEqual(advanceCursor(later, [{ id: 'msg_a', createdAt: at(7) }]), {
			at: at(7),
			ids: ['msg_a', 'msg_c', 'msg_d'],
		});
		assert.equal(advanceCursor(later, [{ id: 'msg_x', createdAt: at(1) }]), later);
	});

	it(`stays bounded: past ${MAX_TIED_IDS} IDs at one time, the greatest are kept with a floor`, () => {
		const tied = Array.from({ length: MAX_TIED_IDS + 20 }, (_, i) => ({
			id: `msg_${String(i).padStart(4, '0')}`,
			createdAt: at(9),
		}));
		const next = advanceCursor({ at: '', ids: [] }, tied);
		assert.equal(next.ids.length, MAX_TIED_IDS);
		assert.equal(next.floor, true);
		for (const seen of tied) assert.equal(isAfter(next, seen), false, seen.id);
		assert.equal(isAfter(next, { id: 'msg_9999', createdAt: at(9) }), true);
	});
});
