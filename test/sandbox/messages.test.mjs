// The sandbox's message endpoints: uploads, sends and their checks, chat history, WhatsApp
// numbers and reactions.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';

import {
	clientOf,
	sandboxWithClient,
	token as tokenFor,
	uploadMediaFile,
} from '../support/sandboxApi.mjs';

describe('messenger', () => {
	test('uploads a media file by multipart and records its sha256', async (t) => {
		const { sandbox } = await sandboxWithClient(t);
		const token = await tokenFor(sandbox);
		const chat = sandbox.state.chats[0];
		const bytes = randomBytes(300_000);
		const form = new FormData();
		form.append('chatId', chat.id);
		form.append('caption', 'Quarterly report');
		form.append('file', new Blob([bytes], { type: 'image/png' }), 'chart.png');
		const messagesBefore = sandbox.state.messages.length;
		const response = await uploadMediaFile(sandbox, token, form);
		assert.equal(response.status, 200);
		const message = await response.json();
		assert.equal(message.chatId, chat.id);
		assert.equal(message.type, 'image');
		assert.equal(message.direction, 'outbound');
		assert.equal(sandbox.state.messages.length, messagesBefore + 1);
		assert.equal(sandbox.state.uploads.length, 1);
		const upload = sandbox.state.uploads[0];
		assert.equal(upload.sha256, createHash('sha256').update(bytes).digest('hex'));
		assert.equal(upload.size, bytes.length);
		assert.equal(upload.fileName, 'chart.png');
		assert.equal(upload.mimeType, 'image/png');
		assert.equal(upload.chatId, chat.id);
		assert.equal(upload.caption, 'Quarterly report');
		assert.equal(upload.messageId, message.id);

		const noChat = new FormData();
		noChat.append('file', new Blob(['x'], { type: 'text/plain' }), 'a.txt');
		const missing = await uploadMediaFile(sandbox, token, noChat);
		assert.equal(missing.status, 400);
		assert.ok((await missing.json()).message.includes('chatId should not be empty'));
		const unknownChat = new FormData();
		unknownChat.append('chatId', 'cht_missing');
		unknownChat.append('file', new Blob(['x']), 'a.bin');
		const notFound = await uploadMediaFile(sandbox, token, unknownChat);
		assert.equal(notFound.status, 404);
		const json = await clientOf(sandbox, token).post('/api/v1/messenger/messages/send/media-file', {
			chatId: chat.id,
		});
		assert.equal(json.status, 400);
		assert.equal(sandbox.state.uploads.length, 1);
	});

	test('refuses files over 25 MB with 413', async (t) => {
		const { sandbox } = await sandboxWithClient(t);
		const token = await tokenFor(sandbox);
		const form = new FormData();
		form.append('chatId', sandbox.state.chats[0].id);
		form.append(
			'file',
			new Blob([new Uint8Array(25 * 1024 * 1024 + 1)], { type: 'video/mp4' }),
			'big.mp4',
		);
		const response = await uploadMediaFile(sandbox, token, form);
		assert.equal(response.status, 413);
		assert.equal((await response.json()).statusCode, 413);
		assert.equal(sandbox.state.uploads.length, 0);
	});

	test('maxUploadBytes: a file of exactly that size is taken, one byte more is refused', async (t) => {
		const { sandbox } = await sandboxWithClient(t, { maxUploadBytes: 1000 });
		const token = await tokenFor(sandbox);
		const statuses = [];
		for (const size of [1000, 1001]) {
			const form = new FormData();
			form.append('chatId', sandbox.state.chats[0].id);
			form.append('file', new Blob([new Uint8Array(size)], { type: 'video/mp4' }), 'a.mp4');
			const response = await uploadMediaFile(sandbox, token, form);
			statuses.push([response.status, (await response.json()).message]);
		}
		assert.equal(statuses[0][0], 200);
		assert.deepEqual(statuses[1], [413, 'file must not be larger than 1000 bytes (0 MB)']);
		assert.deepEqual(
			sandbox.state.uploads.map((upload) => upload.size),
			[1000],
		);
	});

	test('validates send payloads with 400 message arrays', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t);
		const chatId = sandbox.state.chats[0].id;
		const messagesBefore = sandbox.state.messages.length;
		const broadcastsBefore = sandbox.state.broadcastMessages.length;
		const media = await api.post('/api/v1/messenger/messages/send/media', {
			chatId,
			url: 'ftp://x/y.png',
			type: 'gif',
		});
		assert.equal(media.status, 400);
		assert.deepEqual(media.body.message, [
			'url must be a valid http(s) URL',
			'type must be one of the following values: image, video, audio, document',
		]);
		const location = await api.post('/api/v1/messenger/messages/send/location', {
			chatId,
			latitude: 91,
			longitude: -181,
		});
		assert.deepEqual(location.body.message, [
			'latitude must be a number between -90 and 90',
			'longitude must be a number between -180 and 180',
		]);
		const toPhone = await api.post('/api/v1/messenger/messages/send/media-to-phone', {
			phone: '600123456',
			url: 'https://example.com/a.pdf',
			type: 'document',
		});
		assert.deepEqual(toPhone.body.message, [
			'phone must be a valid E.164 phone number (+ and 8 to 15 digits)',
		]);
		const noChat = await api.post('/api/v1/messenger/messages/send/media', {
			url: 'https://example.com/a.png',
			type: 'image',
		});
		assert.deepEqual(noChat.body.message, [
			'chatId must be a string',
			'chatId should not be empty',
		]);
		const broadcast = await api.post('/api/v1/messenger/broadcast/messages', {
			channel: 'sms',
			recipients: [{ email: 'a@example.com' }, { phone: '+34600111222', variables: 'x' }],
		});
		assert.deepEqual(broadcast.body.message, [
			'recipients.0.phone must be a valid E.164 phone number (+ and 8 to 15 digits)',
			'recipients.1.variables must be an object',
			'templateId or text must be provided',
		]);
		const channel = await api.post('/api/v1/messenger/broadcast/messages', {
			channel: 'fax',
			recipients: [],
			text: 'x',
		});
		assert.equal(channel.body.message.length, 2);
		const contact = await api.post('/api/v1/messenger/contacts', {
			name: '',
			phone: '+34',
			email: 'nope',
			attributes: [],
		});
		assert.deepEqual(contact.body.message, [
			'name should not be empty',
			'phone must be a valid E.164 phone number (+ and 8 to 15 digits)',
			'email must be an email',
			'attributes must be an object',
		]);
		assert.equal((await api.get('/api/v1/messenger/chats/check-existing')).status, 400);
		const important = await api.patch(`/api/v1/messenger/chats/${chatId}/mark-important`, {
			important: 'yes',
		});
		assert.deepEqual(important.body.message, ['important must be a boolean value']);
		const attributes = await api.put(
			`/api/v1/messenger/contacts/${sandbox.state.contacts[0].id}/attributes`,
			{ attributes: 'x' },
		);
		assert.deepEqual(attributes.body.message, ['attributes must be an object']);
		assert.equal(sandbox.state.messages.length, messagesBefore);
		assert.equal(sandbox.state.contacts.length, 12);
		assert.equal(sandbox.state.broadcastMessages.length, broadcastsBefore);
	});

	test('sends media and locations, each recorded as a Message', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t);
		const chat = sandbox.state.chats[0];
		const before = sandbox.state.messages.length;
		const media = await api.post('/api/v1/messenger/messages/send/media', {
			chatId: chat.id,
			url: 'https://example.com/a.pdf',
			type: 'document',
			fileName: 'a.pdf',
		});
		assert.equal(media.status, 200);
		assert.deepEqual(
			{ ...media.body, id: undefined, createdAt: undefined },
			{
				id: undefined,
				chatId: chat.id,
				direction: 'outbound',
				type: 'document',
				content: { url: 'https://example.com/a.pdf', fileName: 'a.pdf' },
				status: 'sent',
				reaction: null,
				createdAt: undefined,
			},
		);
		assert.match(media.body.id, /^msg_/);
		const location = await api.post('/api/v1/messenger/messages/send/location', {
			chatId: chat.id,
			latitude: 40.4,
			longitude: -3.7,
			name: 'HQ',
		});
		assert.equal(location.body.type, 'location');
		assert.deepEqual(location.body.content, { latitude: 40.4, longitude: -3.7, name: 'HQ' });
		const phone = '+34699000111';
		const toPhone = await api.post('/api/v1/messenger/messages/send/media-to-phone', {
			phone,
			url: 'https://example.com/v.mp4',
			type: 'video',
			whatsappNumberId: sandbox.state.whatsappNumbers[0].id,
		});
		assert.equal(toPhone.status, 200);
		const newChat = sandbox.state.chats.find((c) => c.id === toPhone.body.chatId);
		assert.equal(newChat?.phone, phone);
		assert.equal(newChat?.status, 'open');
		const unknownNumber = await api.post('/api/v1/messenger/messages/send/media-to-phone', {
			phone,
			url: 'https://example.com/v.mp4',
			type: 'video',
			whatsappNumberId: 'wan_missing',
		});
		assert.equal(unknownNumber.status, 404);
		assert.equal(sandbox.state.messages.length, before + 3);
		const detail = await api.get(`/api/v1/messenger/messages/${media.body.id}`);
		assert.deepEqual(detail.body, media.body);
		const history = await api.get(`/api/v1/messenger/messages/chat/${chat.id}?limit=1`);
		assert.equal(history.body.items[0].id, location.body.id);
	});

	test('pages chat history, newest first', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t);
		const chat = sandbox.state.chats[0];
		const first = await api.get(`/api/v1/messenger/messages/chat/${chat.id}`);
		assert.equal(first.body.total, 25);
		assert.equal(first.body.totalPages, 3);
		assert.equal(first.body.items.length, 10);
		const all = [];
		for (let page = 1; page <= first.body.totalPages; page++) {
			all.push(
				...(await api.get(`/api/v1/messenger/messages/chat/${chat.id}?page=${page}`)).body.items,
			);
		}
		assert.equal(all.length, 25);
		const times = all.map((m) => m.createdAt);
		assert.deepEqual(times, [...times].sort().reverse());
		assert.ok(all.every((m) => m.chatId === chat.id));
		const asc = await api.get(`/api/v1/messenger/messages/chat/${chat.id}?sort=asc&limit=1`);
		assert.equal(asc.body.items[0].createdAt, times.at(-1));
	});

	test("clockAheadMs: the answers' Date header and the times the API stamps run that far from the machine's clock", async (t) => {
		const HOUR = 3_600_000;
		const { sandbox, api } = await sandboxWithClient(t, { clockAheadMs: -HOUR });
		const chat = sandbox.state.chats[0];
		const near = (ms, expected) => Math.abs(ms - expected) < 5_000;
		const answer = await api.get(`/api/v1/messenger/messages/chat/${chat.id}?limit=1`);
		assert.ok(near(Date.parse(answer.headers.get('date')), Date.now() - HOUR));
		const { items } = sandbox.customerWrites({ chatId: chat.id });
		assert.ok(near(Date.parse(items[0].createdAt), Date.now() - HOUR), items[0].createdAt);
		sandbox.setOptions({ clockAheadMs: HOUR });
		const ahead = await api.get(`/api/v1/messenger/messages/chat/${chat.id}?limit=1`);
		assert.ok(near(Date.parse(ahead.headers.get('date')), Date.now() + HOUR));
	});

	test('historyReorder alternate: the reads of a chat history run newest and oldest first by turns, whatever sort asks; later pages follow their read', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t, { historyReorder: 'alternate' });
		const chat = sandbox.state.chats[0];
		const path = `/api/v1/messenger/messages/chat/${chat.id}`;
		const times = async (query) =>
			(await api.get(`${path}?${query}`)).body.items.map((m) => m.createdAt);
		const isDesc = (list) => list.join() === [...list].sort().reverse().join();
		const isAsc = (list) => list.join() === [...list].sort().join();
		const first = await times('sort=desc&limit=5');
		const firstPage2 = await times('sort=desc&limit=5&page=2');
		assert.ok(isDesc([...first, ...firstPage2]), 'the first read newest first');
		const second = await times('sort=desc&limit=5');
		const secondPage2 = await times('sort=desc&limit=5&page=2');
		assert.ok(isAsc([...second, ...secondPage2]), 'the second read oldest first');
		assert.ok(second[0] < first.at(-1));
		assert.ok(isDesc(await times('sort=asc&limit=5')), 'the third newest first again');
		const other = sandbox.state.chats[1];
		const otherTimes = (
			await api.get(`/api/v1/messenger/messages/chat/${other.id}?limit=5`)
		).body.items.map((m) => m.createdAt);
		assert.ok(isDesc(otherTimes), 'each chat has its own turns');
		sandbox.setOptions({ historyReorder: 'none' });
		assert.ok(isDesc(await times('limit=5')));
		assert.ok(isDesc(await times('limit=5')));
	});

	test('historyReorder shuffle: each page holds the messages its order gives it, in an order that changes between requests', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t, { historyReorder: 'shuffle' });
		const chat = sandbox.state.chats[0];
		const path = `/api/v1/messenger/messages/chat/${chat.id}?limit=10&page=2`;
		const sorted = [...sandbox.state.messages]
			.filter((m) => m.chatId === chat.id)
			// Newest first by createdAt, then id, as the history is served.
			.sort((a, b) => (`${a.createdAt} ${a.id}` < `${b.createdAt} ${b.id}` ? 1 : -1))
			.slice(10, 20)
			.map((m) => m.id);
		const orders = new Set();
		for (let request = 0; request < 5; request++) {
			const { body } = await api.get(path);
			const ids = body.items.map((m) => m.id);
			assert.deepEqual([...ids].sort(), [...sorted].sort(), 'the page holds its own messages');
			assert.equal(body.totalPages, 3);
			orders.add(ids.join());
		}
		assert.ok(orders.size > 1, 'the order changes from request to request');
		assert.throws(
			() => sandbox.setOptions({ historyReorder: 'sideways' }),
			/historyReorder must be none, alternate, shuffle/,
		);
	});

	test('lists WhatsApp numbers and removes reactions', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t);
		const numbers = await api.get('/api/v1/messenger/messages/whatsapp-numbers');
		assert.ok(Array.isArray(numbers.body));
		assert.ok(numbers.body.length >= 2);
		for (const number of numbers.body) {
			assert.deepEqual(Object.keys(number), ['id', 'phone', 'name', 'status']);
			assert.match(number.id, /^wan_/);
		}
		const message = sandbox.state.messages.find((m) => m.reaction !== null);
		assert.ok(message);
		const removed = await api.delete(`/api/v1/messenger/messages/${message.id}/react`);
		assert.deepEqual(removed.body, { success: true });
		assert.equal(message.reaction, null);
	});
});
