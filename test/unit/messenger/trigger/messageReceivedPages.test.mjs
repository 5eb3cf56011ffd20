// Message Received and a history whose pages move while they are read, or that comes in another
// order than asked: newest first with customers writing between two pages (the pages shift), and
// oldest first in pages too small to show their order, also with late messages (a createdAt older
// than messages already there) shifting them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { MessengerTrigger } from '../../../../nodes/Messenger/MessengerTrigger.node.ts';
import { createPollContext, scriptedHttp } from '../../../../tools/context.mjs';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
let counter = 0;
const message = (second, id = `msg_${String(++counter).padStart(4, '0')}`) => ({
	id,
	chatId: 'cht_a',
	direction: 'inbound',
	type: 'text',
	content: `hello ${counter}`,
	createdAt: new Date(T0 + second * 1000).toISOString(),
});

/** A message stamped `ms` from now (the API's clock is n8n's here, and sends no Date header). */
const messageIn = (ms) => ({ ...message(0), createdAt: new Date(Date.now() + ms).toISOString() });

/**
 * One chat's history in pages of `pageSize` (the API's own size, whatever `limit` asks), newest
 * first or always oldest first (`order`); `between(page)` runs before each page is answered.
 * Check Existing answers with the chat once `phone.open` says so.
 */
function pagedChat({ pageSize, order = 'desc', between = () => {}, phone = { open: true } }) {
	const history = [];
	const { http, calls } = scriptedHttp(async (options) => {
		if (options.url.endsWith('/check-existing')) {
			return phone.open ? { exists: true, chatId: 'cht_a' } : { exists: false };
		}
		const page = Number(options.qs?.page ?? 1);
		between(page);
		// By createdAt, then ID (docs/api.md).
		const key = (m) => `${m.createdAt} ${m.id}`;
		const sorted = [...history].sort((a, b) => (key(a) < key(b) ? -1 : 1));
		if (order === 'desc') sorted.reverse();
		const items = sorted.slice((page - 1) * pageSize, page * pageSize);
		return { items, total: sorted.length, page, totalPages: Math.ceil(sorted.length / pageSize) };
	});
	return { http, calls, history };
}

function trigger(api, chats = 'cht_a') {
	const node = new MessengerTrigger();
	const staticData = {};
	return async () => {
		const { context, emittedErrors } = createPollContext({
			params: { event: 'messageReceived', chats, direction: 'inbound', messageTypes: [] },
			http: api.http,
			credentials: { baseUrl: 'https://api.example.com', requestsPerMinute: 0 },
			staticData,
		});
		const result = await node.poll.call(context);
		assert.deepEqual(emittedErrors, []);
		return result ? result[0].map((item) => item.json.messageId) : [];
	};
}

describe('Message Received: pages that move or come in another order', () => {
	it('customers writing between two pages of a read (newest first) shift the pages: a page of messages already read does not end the read', async () => {
		let arrivals = [];
		const api = pagedChat({
			pageSize: 2,
			between: (page) => {
				if (page === 2) api.history.push(...arrivals.splice(0));
			},
		});
		api.history.push(message(1));
		const poll = trigger(api);
		await poll();
		const first = [message(2), message(3), message(4)];
		api.history.push(...first);
		// Two more while the poll reads: page 2 then holds page 1's messages again.
		arrivals = [message(5), message(6)];
		assert.deepEqual(
			await poll(),
			first.map((m) => m.id),
		);
		assert.deepEqual(await poll(), [api.history[4].id, api.history[5].id]);
		assert.deepEqual(await poll(), []);
	});

	it('pages oldest first (sort ignored) of one message each: every new message, once', async () => {
		const api = pagedChat({ pageSize: 1, order: 'asc' });
		api.history.push(message(1), message(2));
		const poll = trigger(api);
		await poll();
		const fresh = [message(3), message(4)];
		api.history.push(...fresh);
		assert.deepEqual(
			await poll(),
			fresh.map((m) => m.id),
		);
		assert.deepEqual(await poll(), []);
	});

	it('pages oldest first whose messages share one createdAt: every new message, once', async () => {
		const api = pagedChat({ pageSize: 2, order: 'asc' });
		api.history.push(message(1), message(1), message(2));
		const poll = trigger(api);
		await poll();
		const [later] = [message(3)];
		api.history.push(later);
		assert.deepEqual(await poll(), [later.id]);
		assert.deepEqual(await poll(), []);
	});

	it('oldest first: a message stamped with the time of messages read already, sorted before them by ID, arriving during the read, comes at the next poll', async () => {
		let arrivals = [];
		const api = pagedChat({
			pageSize: 1,
			order: 'asc',
			between: (page) => {
				if (page === 3) api.history.push(...arrivals.splice(0));
			},
		});
		api.history.push(message(1, 'msg_m'));
		const poll = trigger(api);
		await poll();
		const pair = [message(5, 'msg_p'), message(5, 'msg_q')];
		api.history.push(...pair);
		// While page 3 is asked for: one more at second 5 (before msg_p by ID), and a later one.
		const behind = message(5, 'msg_a');
		const later = message(6, 'msg_z');
		arrivals = [behind, later];
		const first = await poll();
		assert.deepEqual(first, ['msg_p', 'msg_q']);
		assert.deepEqual(await poll(), ['msg_a', 'msg_z']);
		assert.deepEqual(await poll(), []);
	});

	it("oldest first in pages of one message, two late messages written between the first read's pages (they look newest first): the message from before watching began is never reported", async () => {
		const api = pagedChat({
			pageSize: 1,
			order: 'asc',
			between: (page) => {
				// Page 1 is then the late one; page 2 another, older still, as newest first would be.
				if (page === 1) api.history.push(message(5));
				if (page === 2) api.history.push(message(2), message(2));
			},
		});
		const before = message(10);
		api.history.push(before);
		const poll = trigger(api);
		assert.deepEqual(await poll(), []);
		const after = message(20);
		api.history.push(after);
		assert.deepEqual(await poll(), [after.id], `not ${before.id}`);
		assert.deepEqual(await poll(), []);
	});

	it("oldest first in pages of one message, a phone's chat opened after watching began with a message and one late by 30 s: the message comes", async () => {
		const phone = { open: false };
		const api = pagedChat({ pageSize: 1, order: 'asc', phone });
		const poll = trigger(api, '+34600000007');
		assert.deepEqual(await poll(), []);
		// Its first page, the late one, is older than when watching began: newest first, nothing new.
		const after = messageIn(1000);
		api.history.push(after, messageIn(-30_000));
		phone.open = true;
		assert.deepEqual(await poll(), [after.id]);
		assert.deepEqual(await poll(), []);
	});
});
