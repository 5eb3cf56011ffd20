// The Messenger triggers on the API's clock, an hour behind n8n's or an hour ahead: where watching
// began is taken from the API's answers (their Date header), never from n8n's clock, since the
// messages' createdAt is stamped by the API. A message written after activation comes once; the
// messages written 10 and 20 minutes before it never do. Without the fix, an API an hour behind
// lost the message written after activation, and one an hour ahead sent the two older ones.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { MessengerTrigger } from '../../../../nodes/Messenger/MessengerTrigger.node.ts';
import { LIVE_LOOP } from '../../../../nodes/Messenger/trigger/messageLive.ts';
import { ApiClock } from '../../../../nodes/shared/answerClock.ts';
import { createPollContext } from '../../../../tools/context.mjs';
import { fakeApi, message } from './chatApi.mjs';
import { activate, pause, until, useLiveTrigger } from './liveTrigger.mjs';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const PHONE = '+34600000009';
useLiveTrigger();

/** Messages stamped by the API 20 and 10 minutes before now: written before activation. */
const writtenBefore = (api, chatId) => [
	api.written(chatId, -20 * MINUTE),
	api.written(chatId, -10 * MINUTE),
];

/** The live trigger `t` handed over `after` alone from `chatId`, read a few times more, and stops. */
async function onlyAfter(t, api, chatId, after, older) {
	await until(() => t.emitted.length === 1, 6000);
	await until(() => api.historyCalls(chatId) >= 3, 6000);
	await t.stop();
	assert.deepEqual(t.ids(), [after.id], `not ${older.map((m) => m.id)}`);
}

/** Message Received polled as n8n polls it, its static data kept between polls. */
function polled(api, chats) {
	const node = new MessengerTrigger();
	const staticData = {};
	return async () => {
		const { context } = createPollContext({
			params: { event: 'messageReceived', direction: 'inbound', messageTypes: [], chats },
			http: api.http,
			credentials: { baseUrl: 'https://api.example.com', requestsPerMinute: 0 },
			staticData,
		});
		const result = await node.poll.call(context);
		return result ? result[0].map((item) => item.json.messageId) : [];
	};
}

for (const [clocks, aheadMs] of [
	['an hour behind', -HOUR],
	['an hour ahead', HOUR],
]) {
	describe(`Messenger triggers with the API's clock ${clocks} of n8n's`, () => {
		it('Live Trigger: a chat the activation had no time to read counts from the activation on', async () => {
			// Room for the first read's turn on a busy machine, none for a second read.
			LIVE_LOOP.activationBudgetMs = 100;
			const api = fakeApi({ aheadMs });
			api.add('cht_a', message('cht_a', 1));
			const older = writtenBefore(api, 'cht_b');
			// A slow API: the activation's time ends after the first chat.
			const slowHttp = async (type, options) => {
				await pause(150);
				return await api.http(type, options);
			};
			const t = await activate({ ...api, http: slowHttp }, { chats: 'cht_a, cht_b' });
			assert.equal(api.historyCalls('cht_b'), 0, 'cht_b was not read at activation');
			await onlyAfter(t, api, 'cht_b', api.written('cht_b'), older);
		});

		it('Live Trigger: a phone whose chat opens after activation counts from its Check Existing answer', async () => {
			const api = fakeApi({ aheadMs });
			const t = await activate(api, { chats: PHONE });
			// A chat that opens later (reopened) with messages from before activation.
			const older = writtenBefore(api, 'cht_p');
			const after = api.written('cht_p');
			api.phones.set(PHONE, 'cht_p');
			await onlyAfter(t, api, 'cht_p', after, older);
		});

		it('Message Received (polling): a phone whose chat opens after activation counts from its Check Existing answer', async () => {
			const api = fakeApi({ aheadMs });
			const poll = polled(api, PHONE);
			assert.deepEqual(await poll(), []);
			const older = writtenBefore(api, 'cht_p');
			const after = api.written('cht_p');
			api.phones.set(PHONE, 'cht_p');
			assert.deepEqual(await poll(), [after.id], `not ${older.map((m) => m.id)}`);
			assert.deepEqual(await poll(), []);
		});
	});
}

describe("the API's clock (shared/answerClock.ts)", () => {
	it('since(at) is the earliest the API can have shown at n8n’s moment at; a record of the answer’s second counts as after', () => {
		let now = Date.parse('2026-03-01T10:00:00.700Z');
		const clock = new ApiClock(() => now);
		assert.equal(clock.since(now), new Date(now).toISOString(), 'n8n’s time while no answer said');
		// Sent at .700, answered at 10:00:01.400 by n8n's clock, stamped in 09:00:01 (an hour behind).
		const sent = now;
		now = Date.parse('2026-03-01T10:00:01.400Z');
		clock.answerDate(Date.parse('2026-03-01T09:00:01.000Z'));
		assert.equal(clock.since(sent), '2026-03-01T09:00:00.300Z');
		assert.equal(clock.since(now), '2026-03-01T09:00:01.000Z');
	});
});
