// Messenger Trigger: an outage is the poll's failure, a watched thing's own failure is named on its
// own. A 429, 5xx, timeout or network error anywhere (a chat's history, Check Existing, a fresh
// media link, a file's host, a broadcast message) stops reading and fails the poll once with its
// cause, the state as it was; a 403 or an answer the trigger cannot read is a failed execution
// that names the chat, phone or message, while the others are reported.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';

import { retrySettings } from '../../../../nodes/shared/transport.ts';
import { httpError, scriptedHttp } from '../../../../tools/context.mjs';
import { API_URL, trigger } from './triggerPolls.mjs';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
let counter = 0;
const message = (chatId, second, extra = {}) => ({
	id: `msg_${String(++counter).padStart(4, '0')}`,
	chatId,
	direction: 'inbound',
	type: 'text',
	content: `hello ${counter}`,
	createdAt: new Date(T0 + second * 1000).toISOString(),
	...extra,
});

/**
 * The Messenger API in memory: chat histories, phones with a chat, broadcast messages, files;
 * `answers` maps a path (or a file's URL) to what it answers instead, once or for good.
 */
function fakeApi() {
	const chats = new Map();
	const phones = new Map();
	const broadcast = new Map();
	const answers = new Map();
	const { http, calls } = scriptedHttp(async (options) => {
		const url = String(options.url);
		const instead = answers.get(url);
		if (instead) return instead(options);
		if (url.startsWith(`${API_URL}/media/`)) {
			return { body: Readable.from([Buffer.from('jpeg')]), headers: {}, statusCode: 200 };
		}
		if (url.endsWith('/chats/check-existing')) {
			const chatId = phones.get(options.qs.phone);
			return chatId ? { exists: true, chatId } : { exists: false };
		}
		const id = decodeURIComponent(url.slice(url.lastIndexOf('/') + 1));
		if (url.includes('/broadcast/messages/')) {
			if (!broadcast.has(id)) throw httpError(404, { message: 'Message not found' });
			return { id, status: broadcast.get(id) };
		}
		if (url.includes('/messages/chat/')) {
			const items = [...(chats.get(id) ?? [])].reverse();
			return { items, total: items.length, page: 1, totalPages: 1 };
		}
		const found = [...chats.values()].flat().find((m) => m.id === id);
		if (!found) throw httpError(404, { message: 'Message not found' });
		return found;
	});
	const add = (chatId, ...messages) => {
		chats.set(chatId, [...(chats.get(chatId) ?? []), ...messages]);
		return messages;
	};
	const failing = (status) => () => {
		throw httpError(status, { message: status === 403 ? 'Forbidden' : 'Unavailable' });
	};
	return { http, calls, chats, phones, broadcast, answers, add, failing };
}

/** The poll fails once with `cause`, changing nothing. */
async function failsWith(t, cause) {
	const snapshot = JSON.stringify(t.staticData);
	await assert.rejects(t.poll(), (error) => {
		assert.equal(error.failure?.cause, cause, error.message);
		return true;
	});
	assert.equal(JSON.stringify(t.staticData), snapshot);
}

const json = (items) => items.map((item) => item.json);

/** bm_0001 and bm_0002 queued, watched by a trigger that has read both once. */
async function watchingTwoBroadcasts() {
	const api = fakeApi();
	api.broadcast.set('bm_0001', 'queued');
	api.broadcast.set('bm_0002', 'queued');
	const t = trigger(api, { event: 'broadcastStatusChanged', messageIds: 'bm_0001, bm_0002' });
	await t.poll();
	return { api, t };
}

/** cht_a watched with Download Media since its first message; then a photo at `url` is written. */
async function photoWritten(url) {
	const api = fakeApi();
	api.add('cht_a', message('cht_a', 0));
	const t = trigger(api, {
		event: 'messageReceived',
		chats: 'cht_a',
		options: { downloadMedia: true },
	});
	await t.poll();
	const [photo] = api.add('cht_a', message('cht_a', 1, { type: 'image', content: { url } }));
	return { api, t, photo };
}

/** The next poll emits `photo` alone, with its file and no media error. */
async function comesWithItsFile(t, photo) {
	const { items } = await t.poll();
	assert.deepEqual(
		json(items).map((m) => [m.messageId, m.mediaError]),
		[[photo.id, undefined]],
	);
	assert.ok(items[0].binary?.data, 'with its file');
}

// A 5xx is asked again at once (retries are the transport's, tested there).
const savedRetries = { ...retrySettings };
before(() => Object.assign(retrySettings, { baseDelayMs: 0, maxDelayMs: 0 }));
after(() => Object.assign(retrySettings, savedRetries));

describe('Broadcast Message Status Changed: one message failing', () => {
	it('a message the API refuses (403) is a failed execution naming it; the others are reported', async () => {
		const { api, t } = await watchingTwoBroadcasts();
		api.broadcast.set('bm_0001', 'sent');
		api.answers.set('/api/v1/messenger/broadcast/messages/bm_0002', api.failing(403));
		const { items, emittedErrors } = await t.poll();
		assert.deepEqual(
			json(items).map((c) => [c.messageId, c.status]),
			[['bm_0001', 'sent']],
		);
		assert.equal(emittedErrors.length, 1);
		assert.match(emittedErrors[0].message, /broadcast message "bm_0002" could not be read/);
		assert.match(emittedErrors[0].description, /403/);
		assert.deepEqual(emittedErrors[0].failure, { cause: 'configuration-invalid' });
		assert.equal(t.staticData.poll.state.watching.bm_0002, 'queued', 'its state is kept');
		api.answers.delete('/api/v1/messenger/broadcast/messages/bm_0002');
		api.broadcast.set('bm_0002', 'delivered');
		assert.deepEqual(
			json((await t.poll()).items).map((c) => [c.messageId, c.previousStatus, c.status]),
			[['bm_0002', 'queued', 'delivered']],
		);
	});

	it('a message whose answer has no status is named on its own; the others are reported', async () => {
		const { api, t } = await watchingTwoBroadcasts();
		api.broadcast.set('bm_0002', 'sent');
		api.answers.set('/api/v1/messenger/broadcast/messages/bm_0001', () => ({ id: 'bm_0001' }));
		const { items, emittedErrors } = await t.poll();
		assert.deepEqual(
			json(items).map((c) => c.messageId),
			['bm_0002'],
		);
		assert.match(emittedErrors[0].message, /broadcast message "bm_0001" could not be read/);
		assert.match(emittedErrors[0].description, /status/);
		assert.deepEqual(emittedErrors[0].failure, { cause: 'node-defect' });
	});

	it('a 503 on any message fails the poll once with its cause; nothing moves', async () => {
		const { api, t } = await watchingTwoBroadcasts();
		api.broadcast.set('bm_0001', 'sent');
		api.answers.set('/api/v1/messenger/broadcast/messages/bm_0002', api.failing(503));
		await failsWith(t, 'temporarily-unavailable');
		api.answers.delete('/api/v1/messenger/broadcast/messages/bm_0002');
		assert.deepEqual(
			json((await t.poll()).items).map((c) => c.messageId),
			['bm_0001'],
		);
	});
});

describe('Message Received: Check Existing, fresh links and files', () => {
	it('Check Existing answering 503 fails the poll once; answering 403 names the phone on its own', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 0));
		const t = trigger(api, { event: 'messageReceived', chats: 'cht_a, +34600111222' });
		await t.poll();
		const [a1] = api.add('cht_a', message('cht_a', 1));
		api.answers.set('/api/v1/messenger/chats/check-existing', api.failing(503));
		await failsWith(t, 'temporarily-unavailable');
		api.answers.set('/api/v1/messenger/chats/check-existing', api.failing(403));
		const { items, emittedErrors } = await t.poll();
		assert.deepEqual(
			json(items).map((m) => m.messageId),
			[a1.id],
		);
		assert.equal(emittedErrors.length, 1);
		assert.match(emittedErrors[0].message, /The chat of \+34600111222 could not be read/);
		assert.deepEqual(emittedErrors[0].failure, { cause: 'configuration-invalid' });
	});

	it('a message the trigger cannot read names its chat; the other chats are reported', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 0));
		api.add('cht_b', message('cht_b', 0));
		const t = trigger(api, { event: 'messageReceived', chats: 'cht_a, cht_b' });
		await t.poll();
		const [b1] = api.add('cht_b', message('cht_b', 1));
		api.add('cht_a', { id: 'msg_broken', chatId: 'cht_a', direction: 'inbound' });
		const { items, emittedErrors } = await t.poll();
		assert.deepEqual(
			json(items).map((m) => m.messageId),
			[b1.id],
		);
		assert.match(emittedErrors[0].message, /The watched chat "cht_a" could not be read/);
		assert.match(emittedErrors[0].description, /createdAt/);
		assert.deepEqual(emittedErrors[0].failure, { cause: 'node-defect' });
	});

	it("a 503 while reading an expired file's fresh link fails the poll with its cause; the message and its file come at the next poll", async () => {
		const { api, t, photo } = await photoWritten(`${API_URL}/media/old`);
		api.answers.set(`${API_URL}/media/old`, () => ({
			body: Readable.from([]),
			headers: {},
			statusCode: 403,
		}));
		api.answers.set(`/api/v1/messenger/messages/${photo.id}`, api.failing(503));
		await failsWith(t, 'temporarily-unavailable');
		api.answers.set(`/api/v1/messenger/messages/${photo.id}`, () => ({
			...photo,
			content: { url: `${API_URL}/media/fresh` },
		}));
		await comesWithItsFile(t, photo);
	});

	it("a 503 from the file's host fails the poll with its cause; the file comes at the next poll", async () => {
		const { api, t, photo } = await photoWritten(`${API_URL}/media/p1`);
		api.answers.set(`${API_URL}/media/p1`, api.failing(503));
		await failsWith(t, 'temporarily-unavailable');
		api.answers.delete(`${API_URL}/media/p1`);
		await comesWithItsFile(t, photo);
	});
});
