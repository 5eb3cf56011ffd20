// Messenger Trigger, Message Received: the Chats list (chat IDs and phones) and the Message Types
// option.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { MessengerTrigger } from '../../../../nodes/Messenger/MessengerTrigger.node.ts';
import {
	MAX_WATCHED_CHATS,
	MESSAGE_TYPES,
	watchEntries,
} from '../../../../nodes/Messenger/trigger/messageSettings.ts';

describe('Chats parameter', () => {
	it('reads chat IDs and phones (normalised), once each, from text or an array', () => {
		assert.deepEqual(watchEntries('cht_1, +34-600-123-456\n 0034 600 123 456 ;cht_1'), [
			{ key: 'cht_1', chatId: 'cht_1' },
			{ key: '+34600123456', phone: '+34600123456' },
		]);
		assert.deepEqual(watchEntries(['cht_2']), [{ key: 'cht_2', chatId: 'cht_2' }]);
	});

	it('refuses more than the maximum with advice, and bad entries naming the entry', () => {
		const many = Array.from({ length: MAX_WATCHED_CHATS + 1 }, (_, i) => `cht_${i}`);
		assert.throws(
			() => watchEntries(many),
			(error) => {
				assert.match(
					error.message,
					new RegExp(`${MAX_WATCHED_CHATS + 1} entries; at most ${MAX_WATCHED_CHATS}`),
				);
				assert.match(error.description, /one request per poll/);
				return true;
			},
		);
		assert.throws(() => watchEntries('cht_1, +3412'), /Chat 2 "\+3412" is not a phone number/);
		assert.throws(() => watchEntries('cht_1; ../auth'), /Chat 2 "..\/auth" is not a valid ID/);
		// A space belongs to an entry (phones have them): IDs separated by spaces are one bad entry.
		assert.throws(
			() => watchEntries('cht_1 cht_2'),
			(error) => {
				assert.match(error.message, /^Chat "cht_1 cht_2" contains a space$/);
				assert.match(error.description, /commas, semicolons or new lines/);
				return true;
			},
		);
		assert.throws(
			() => watchEntries('+34 600 123 456 +34 600 123 457'),
			(error) => {
				assert.match(error.message, /^Chat "\+34 600 123 456 \+34 600 123 457" is not a phone/);
				assert.match(error.description, /more than one number/);
				return true;
			},
		);
		assert.throws(() => watchEntries(''), /Chats is empty/);
	});

	it('the Message Types option lists the one constant of message types', () => {
		const property = new MessengerTrigger().description.properties.find(
			(p) => p.name === 'messageTypes',
		);
		assert.deepEqual(
			property.options.map((o) => o.value),
			[...MESSAGE_TYPES],
		);
	});
});
