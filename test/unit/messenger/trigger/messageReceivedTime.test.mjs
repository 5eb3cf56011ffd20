// Message Received and the end of a poll's time: it ends the poll's reading, never fails a chat.
// A chat not reached is read first at the next poll; the first poll on a slow API activates; files
// held for the next poll are delivered even when they take the rest of its time. The test's own
// clock (chatHistories.mjs) stands in for Date: a slow answer moves it past the poll's time.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';

import { MessengerTrigger } from '../../../../nodes/Messenger/MessengerTrigger.node.ts';
import { createPollContext, scriptedHttp } from '../../../../tools/context.mjs';
import { onTestClock, testClock } from './chatHistories.mjs';

const API_URL = 'https://api.example.com';
const BUDGET_MS = 10_000;
let counter = 0;
const message = (chatId, extra = {}) => ({
	id: `msg_${String(++counter).padStart(4, '0')}`,
	chatId,
	direction: 'inbound',
	type: 'text',
	content: `hello ${counter}`,
	createdAt: new Date(Date.now()).toISOString(),
	...extra,
});
const photo = (chatId) => {
	const id = `msg_${String(counter + 1).padStart(4, '0')}`;
	return message(chatId, { type: 'image', content: { url: `${API_URL}/media/${id}` } });
};

/** Chats in memory; `slow` names what answers only after the poll's time (a chat ID or a file). */
function slowApi() {
	const chats = new Map();
	const slow = new Set();
	/** How long an answer takes on the test's clock, by what is asked (a chat ID or a file). */
	const takes = new Map();
	const { http, calls } = scriptedHttp(async (options) => {
		const url = String(options.url);
		const what = decodeURIComponent(url.slice(url.lastIndexOf('/') + 1));
		if (slow.has(what)) {
			testClock.advance(options.timeout);
			throw Object.assign(new Error('timeout exceeded'), { code: 'ECONNABORTED' });
		}
		testClock.advance(takes.get(what) ?? 100);
		if (url.startsWith(`${API_URL}/media/`)) {
			return { body: Readable.from([Buffer.from('jpeg')]), headers: {}, statusCode: 200 };
		}
		const items = [...(chats.get(what) ?? [])].reverse();
		return { items, total: items.length, page: 1, totalPages: 1 };
	});
	const add = (chatId, ...messages) => {
		chats.set(chatId, [...(chats.get(chatId) ?? []), ...messages]);
		return messages;
	};
	return { http, calls, slow, takes, add };
}

function trigger(api, params) {
	const node = new MessengerTrigger();
	const staticData = {};
	const poll = async () => {
		const { context, emittedErrors } = createPollContext({
			params: { event: 'messageReceived', direction: 'inbound', messageTypes: [], ...params },
			http: api.http,
			credentials: { baseUrl: API_URL, requestsPerMinute: 0 },
			staticData,
			pollBudgetMs: BUDGET_MS,
		});
		const result = await node.poll.call(context);
		testClock.advance(60_000);
		return { items: result ? result[0] : [], emittedErrors };
	};
	return { poll, state: () => staticData.poll?.state };
}

const ids = (items) => items.map((item) => item.json.messageId);

describe("Message Received at the end of the poll's time", () => {
	it('a chat the time cut off is read first at the next poll, not a failed execution', async () => {
		await onTestClock(async () => {
			const api = slowApi();
			for (const chat of ['cht_a', 'cht_b', 'cht_c']) api.add(chat, message(chat));
			const t = trigger(api, { chats: 'cht_a, cht_b, cht_c' });
			await t.poll();
			const [a1] = api.add('cht_a', message('cht_a'));
			const [b1] = api.add('cht_b', message('cht_b'));
			const [c1] = api.add('cht_c', message('cht_c'));
			api.slow.add('cht_b');
			const cut = await t.poll();
			assert.deepEqual(cut.emittedErrors, [], 'the time is no failure of cht_b');
			assert.deepEqual(ids(cut.items), [a1.id]);
			assert.equal(t.state().next, 'cht_b');
			api.slow.delete('cht_b');
			assert.deepEqual(ids((await t.poll()).items), [b1.id, c1.id]);
		});
	});

	it('the first poll on a slow API activates: the chats read get their baseline, the others theirs at the next poll', async () => {
		await onTestClock(async () => {
			const api = slowApi();
			for (const chat of ['cht_a', 'cht_b', 'cht_c']) api.add(chat, message(chat));
			api.slow.add('cht_b');
			const t = trigger(api, { chats: 'cht_a, cht_b, cht_c' });
			const first = await t.poll();
			assert.deepEqual([first.items, first.emittedErrors], [[], []]);
			assert.deepEqual(Object.keys(t.state().chats), ['cht_a']);
			api.slow.delete('cht_b');
			const [a1] = api.add('cht_a', message('cht_a'));
			assert.deepEqual(ids((await t.poll()).items), [a1.id], 'no history of cht_b or cht_c');
			assert.deepEqual(Object.keys(t.state().chats).sort(), ['cht_a', 'cht_b', 'cht_c']);
			const [b1] = api.add('cht_b', message('cht_b'));
			assert.deepEqual(ids((await t.poll()).items), [b1.id]);
		});
	});

	it('files held for the next poll are delivered even when they take the rest of its time; the chats are read at the poll after', async () => {
		await onTestClock(async () => {
			const api = slowApi();
			api.add('cht_a', message('cht_a'));
			const t = trigger(api, { chats: 'cht_a', options: { downloadMedia: true } });
			await t.poll();
			const [held] = api.add('cht_a', photo('cht_a'));
			api.slow.add(held.id);
			assert.deepEqual((await t.poll()).items, [], 'the download was cut off: held');
			assert.equal(t.state().pending.flat().length, 1);
			api.slow.delete(held.id);
			api.takes.set(held.id, BUDGET_MS * 0.8);
			const [later] = api.add('cht_a', message('cht_a'));
			// Were the chat asked for now, its answer would come after the poll's time.
			api.slow.add('cht_a');
			const delivered = await t.poll();
			api.slow.delete('cht_a');
			assert.deepEqual(ids(delivered.items), [held.id]);
			assert.ok(delivered.items[0].binary?.data, 'with its file');
			assert.equal(t.state().pending, undefined);
			assert.equal(t.state().next, 'cht_a');
			assert.deepEqual(ids((await t.poll()).items), [later.id]);
		});
	});
});
