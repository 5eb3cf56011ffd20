// Message Received's delivery: Group by Chat (one item per chat, texts joined, messages kept in
// order) and Wait for a Pause (a chat's messages held across polls until it has been quiet).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Readable } from 'node:stream';

import {
	MAX_HELD_MESSAGES,
	chatGroup,
	deliveredItems,
	releaseHeld,
} from '../../../../nodes/Messenger/trigger/messageDelivery.ts';
import { receivedMessage } from '../../../../nodes/Messenger/trigger/messageSettings.ts';
import { PollClock, withPollClock } from '../../../../nodes/shared/pollClock.ts';
import { createPollContext } from '../../../../tools/context.mjs';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
let counter = 0;
/** A Message Received item for `chatId`, written `second`s after T0. */
const item = (chatId, second, content = `text ${counter + 1}`) => {
	counter++;
	return receivedMessage(
		{
			id: `msg_${String(counter).padStart(4, '0')}`,
			chatId,
			direction: 'inbound',
			type: typeof content === 'string' ? 'text' : 'image',
			content,
			createdAt: new Date(T0 + second * 1000).toISOString(),
		},
		chatId === 'c1' ? '+34600000001' : undefined,
	);
};

describe('Group by Chat', () => {
	it("one item: the chat's messages oldest first, texts joined one a line, captions included", () => {
		const later = item('c1', 5, 'about my invoice');
		const first = item('c1', 1, 'hi');
		const photo = item('c1', 3, { url: 'https://x/p.jpg', caption: 'this one' });
		const located = item('c1', 4, { latitude: 1, longitude: 2 });
		const group = chatGroup([later, first, photo, located]);
		assert.equal(group.chatId, 'c1');
		assert.equal(group.phone, '+34600000001');
		assert.equal(group.messageCount, 4);
		assert.equal(group.text, 'hi\nthis one\nabout my invoice');
		assert.deepEqual(
			group.messageIds,
			[first, photo, located, later].map((m) => m.messageId),
		);
		assert.equal(group.firstAt, first.createdAt);
		assert.equal(group.lastAt, later.createdAt);
		assert.deepEqual(group.messages, [first, photo, located, later]);
	});
});

describe('Wait for a Pause', () => {
	const pause = 30;
	const now = (second) => T0 + second * 1000;

	it('without a pause every message is released at once', () => {
		const fresh = [item('c1', 0), item('c2', 0)];
		const { released, held } = releaseHeld(fresh, {}, 0, now(0));
		assert.deepEqual(released.flat(), fresh);
		assert.deepEqual(held, {});
	});

	it('holds a burst across polls and releases it once the chat was quiet long enough', () => {
		let state = {};
		const burst = [item('c1', 0), item('c1', 1)];
		let step = releaseHeld(burst, state, pause, now(2));
		assert.deepEqual(step.released, []);
		state = JSON.parse(JSON.stringify(step.held)); // as n8n stores it: plain JSON
		const more = [item('c1', 12)];
		step = releaseHeld(more, state, pause, now(12));
		assert.deepEqual(step.released, [], 'a new message starts the pause again');
		step = releaseHeld([], step.held, pause, now(40));
		assert.deepEqual(step.released, [], '28 s after the last one: still held');
		step = releaseHeld([], step.held, pause, now(42));
		assert.deepEqual(step.released, [[...burst, ...more]]);
		assert.deepEqual(step.held, {});
	});

	it('each chat has its own pause', () => {
		const a = item('c1', 0);
		let step = releaseHeld([a], {}, pause, now(0));
		const b = item('c2', 20);
		step = releaseHeld([b], step.held, pause, now(20));
		step = releaseHeld([], step.held, pause, now(31));
		assert.deepEqual(step.released, [[a]]);
		assert.deepEqual(Object.keys(step.held), ['c2']);
	});

	it(`releases a chat that never pauses at ${MAX_HELD_MESSAGES} messages, so the state stays bounded`, () => {
		const many = Array.from({ length: MAX_HELD_MESSAGES }, (_, i) => item('c1', i));
		const step = releaseHeld(many, {}, pause, now(MAX_HELD_MESSAGES));
		assert.equal(step.released[0].length, MAX_HELD_MESSAGES);
	});

	it('turning the pause off releases what was held', () => {
		const held = releaseHeld([item('c1', 0)], {}, pause, now(0)).held;
		assert.equal(releaseHeld([], held, 0, now(1)).released.flat().length, 1);
	});
});

describe("Download Media within a poll's time", () => {
	const media = (name) => ({
		url: `https://api.example.com/media/${name}`,
		fileName: `${name}.jpg`,
	});
	const settings = (groupByChat = false) => ({
		media: { download: true, binaryPropertyName: 'data', maxBytes: 2 ** 20 },
		groupByChat,
		pauseSeconds: 0,
	});
	/** Files answer at once, except `slow`, which waits until the request is aborted. */
	function filesContext(slow) {
		return createPollContext({
			params: {},
			credentials: { baseUrl: 'https://api.example.com', requestsPerMinute: 0 },
			http: async (_type, options) => {
				if (String(options.url).endsWith(slow)) {
					await new Promise((_resolve, reject) =>
						options.abortSignal?.addEventListener('abort', () =>
							reject(Object.assign(new Error('canceled'), { code: 'ERR_CANCELED' })),
						),
					);
				}
				return { body: Readable.from([Buffer.from('bytes')]), headers: {}, statusCode: 200 };
			},
		}).context;
	}

	it('a download the time cuts off, and the ones after it, wait for the next poll; the ones before are delivered', async () => {
		const [a, b, c] = [
			item('c2', 1, media('a')),
			item('c2', 2, media('b')),
			item('c3', 3, media('c')),
		];
		const context = filesContext('/media/b');
		const { output, undelivered } = await withPollClock(context, new PollClock(300), async () =>
			deliveredItems(context, [[a, b], [c]], settings()),
		);
		assert.deepEqual(
			output.items.map((i) => [i.json.messageId, Object.keys(i.binary ?? {})]),
			[[a.messageId, ['data']]],
		);
		assert.deepEqual(
			undelivered.map((chat) => chat.map((m) => m.messageId)),
			[[b.messageId], [c.messageId]],
		);
		assert.ok(undelivered.flat().every((m) => m.binaryProperty === undefined && !m.mediaError));
	});

	it('with a whole poll for it already (mustDeliverFirst), the first is delivered with mediaError', async () => {
		const b = item('c2', 2, media('b'));
		const context = filesContext('/media/b');
		const { output, undelivered } = await withPollClock(context, new PollClock(300), async () =>
			deliveredItems(context, [[b]], settings(), { mustDeliverFirst: true }),
		);
		assert.deepEqual(undelivered, []);
		assert.equal(output.items.length, 1);
		assert.equal(output.items[0].binary, undefined);
		assert.match(
			output.items[0].json.mediaError.message,
			/time budget .* while waiting for the API to answer/,
		);
	});
});
