// Messenger Trigger, Message Received, against the sandbox over real HTTP: customers write through
// the sandbox's control endpoint, the trigger polls the chat history as in n8n.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { MessengerTrigger } from '../../../nodes/Messenger/MessengerTrigger.node.ts';
import { CUSTOMER_MESSAGES_PATH, DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { apiCall } from '../../support/sandboxApi.mjs';
import { MESSENGER_API, sandboxSuite, watcher } from '../../support/integration.mjs';

const watch = (sandbox, params) =>
	watcher(
		MessengerTrigger,
		sandbox,
		{ event: 'messageReceived', direction: 'inbound', messageTypes: [], ...params },
		{ client: DEMO_CLIENTS.messengerOnly, credentials: { requestsPerMinute: 0 } },
	);

const historyRequests = (sandbox, mark, chatId) =>
	sandbox.log.slice(mark).filter((e) => e.path === `${MESSENGER_API}/messages/chat/${chatId}`);

describe('Messenger Trigger: Message Received against the sandbox', () => {
	const env = sandboxSuite({ rateLimitPerMinute: 0, tokenRateLimitPerMinute: 0 });

	it('the control endpoint makes a customer write: text or media, many, equal createdAt', async () => {
		const { sandbox } = env;
		const chat = sandbox.state.chats[2];
		const response = await fetch(`${sandbox.url}${CUSTOMER_MESSAGES_PATH}`, {
			method: 'POST',
			body: JSON.stringify({
				chatId: chat.id,
				count: 3,
				type: 'video',
				text: 'Clip',
				createdAt: '2030-01-01T00:00:00Z',
				sameCreatedAt: true,
			}),
		});
		assert.equal(response.status, 201);
		const { items } = await response.json();
		assert.deepEqual(
			items.map((m) => [m.chatId, m.direction, m.type, m.content.caption, m.createdAt]),
			[1, 2, 3].map((n) => [
				chat.id,
				'inbound',
				'video',
				`Clip (${n}/3)`,
				'2030-01-01T00:00:00.000Z',
			]),
		);
		const refused = await fetch(`${sandbox.url}${CUSTOMER_MESSAGES_PATH}`, {
			method: 'POST',
			body: JSON.stringify({ type: 'sticker' }),
		});
		assert.equal(refused.status, 400);
		assert.equal(
			sandbox.log.filter((e) => e.path === CUSTOMER_MESSAGES_PATH).length,
			0,
			'not in the API log',
		);
	});

	it('chat history: newest first with the envelope, page/limit/sort, text content as a string', async () => {
		const { sandbox } = env;
		const chat = sandbox.state.chats[0];
		const get = (qs) =>
			apiCall(
				sandbox,
				DEMO_CLIENTS.full,
				'GET',
				`${MESSENGER_API}/messages/chat/${chat.id}?${new URLSearchParams(qs)}`,
			);
		const page = await get({});
		assert.equal(page.items.length, 10);
		assert.equal(page.page, 1);
		const times = page.items.map((m) => m.createdAt);
		assert.deepEqual(times, [...times].sort().reverse());
		const asc = await get({ sort: 'asc', limit: 5, page: 2 });
		assert.equal(asc.items.length, 5);
		assert.ok(asc.items[0].createdAt <= asc.items[4].createdAt);
		const text = page.items.find((m) => m.type === 'text');
		assert.equal(typeof text.content, 'string');
	});

	it('between polls: each message once, oldest first; a burst of 250 costs the extra pages only', async () => {
		const { sandbox } = env;
		const chat = sandbox.state.chats[1];
		const w = watch(sandbox, { chats: chat.id });
		assert.deepEqual((await w.poll()).items, []);
		const one = sandbox.customerWrites({
			chatId: chat.id,
			text: 'Is the quote still valid?',
		}).items;
		const { items } = await w.poll();
		assert.deepEqual(
			items.map((i) => [i.messageId, i.text, i.chatId]),
			[[one[0].id, 'Is the quote still valid?', chat.id]],
		);
		const burst = sandbox.customerWrites({ chatId: chat.id, count: 250 }).items;
		const mark = sandbox.log.length;
		const after = await w.poll();
		assert.deepEqual(
			after.items.map((i) => i.messageId),
			burst.map((m) => m.id),
		);
		assert.equal(historyRequests(sandbox, mark, chat.id).length, 3);
		const quiet = sandbox.log.length;
		assert.deepEqual((await w.poll()).items, []);
		assert.equal(historyRequests(sandbox, quiet, chat.id).length, 1);
	});

	it('messages with one createdAt split over two polls are each reported once', async () => {
		const { sandbox } = env;
		const chat = sandbox.state.chats[3];
		const w = watch(sandbox, { chats: chat.id });
		await w.poll();
		const time = new Date(Date.now() + 60_000).toISOString();
		const first = sandbox.customerWrites({
			chatId: chat.id,
			count: 4,
			createdAt: time,
			sameCreatedAt: true,
		}).items;
		assert.equal((await w.poll()).items.length, 4);
		const second = sandbox.customerWrites({
			chatId: chat.id,
			count: 4,
			createdAt: time,
			sameCreatedAt: true,
		}).items;
		const { items } = await w.poll();
		assert.deepEqual(
			items.map((i) => i.messageId).sort(),
			second.map((m) => m.id).sort(),
			`first: ${first.map((m) => m.id)}`,
		);
		assert.deepEqual((await w.poll()).items, []);
	});

	it('a phone with no chat yet: checked each poll; when the customer writes, that message is reported', async () => {
		const { sandbox } = env;
		const phone = '+34699000111';
		const w = watch(sandbox, { chats: `${phone}, ${sandbox.state.chats[4].id}` });
		await w.poll();
		assert.deepEqual((await w.poll()).items, []);
		const [message] = sandbox.customerWrites({ phone, text: 'Hello, I saw your ad' }).items;
		const { items } = await w.poll();
		assert.deepEqual(
			items.map((i) => [i.messageId, i.phone, i.text]),
			[[message.id, phone, 'Hello, I saw your ad']],
		);
		const chat = sandbox.state.chats.find((c) => c.phone === phone);
		assert.equal(w.staticData.poll.state.chats[phone].chatId, chat.id);
	});

	it('an unknown chat ID fails activation, naming it; Fetch Test Event gives the latest real message', async () => {
		const { sandbox } = env;
		const chat = sandbox.state.chats[5];
		const wrong = watch(sandbox, { chats: `${chat.id}\ncht_does_not_exist` });
		await assert.rejects(wrong.poll(), (error) => {
			assert.match(error.message, /The watched chat "cht_does_not_exist" was not found/);
			assert.deepEqual(error.failure, { cause: 'configuration-invalid' });
			return true;
		});
		const w = watch(sandbox, { chats: chat.id });
		await w.poll();
		const [latest] = sandbox.customerWrites({
			chatId: chat.id,
			type: 'image',
			text: 'Photo of the damage',
		}).items;
		const snapshot = JSON.stringify(w.staticData);
		const sample = await w.poll('manual');
		assert.deepEqual(
			sample.items.map((i) => [i.messageId, i.type, i.text]),
			[[latest.id, 'image', 'Photo of the damage']],
		);
		assert.equal(JSON.stringify(w.staticData), snapshot);
		assert.deepEqual(
			(await w.poll()).items.map((i) => i.messageId),
			[latest.id],
		);
	});
});
