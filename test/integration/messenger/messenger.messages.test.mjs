import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { getWhatsappNumbers } from '../../../nodes/Messenger/methods/loadOptions.ts';
import {
	loadOptionsContext,
	MESSENGER_API as M,
	messengerSuite,
	openChat,
	plain,
} from '../../support/integration.mjs';

describe('Messenger node against the sandbox: WhatsApp numbers and messages', () => {
	const env = messengerSuite('messages');

	it('WhatsApp Number → Get Many lists the numbers; the dropdown shows them by name', async () => {
		const { sandbox, messenger } = env;
		const output = await messenger.run({
			resource: 'whatsappNumber',
			operation: 'getAll',
			returnAll: true,
			options: {},
		});
		assert.deepEqual(
			output.map((o) => o.json),
			plain(sandbox.state.whatsappNumbers),
		);
		const limited = await messenger.run({
			resource: 'whatsappNumber',
			operation: 'getAll',
			returnAll: false,
			limit: 2,
			options: {},
		});
		assert.equal(limited.length, 2);
		const options = await getWhatsappNumbers.call(loadOptionsContext(messenger));
		assert.deepEqual(
			options.map((o) => o.value),
			sandbox.state.whatsappNumbers.map((n) => n.id),
		);
		assert.match(options[0].name, /^Main line \(\+\d+\)$/);
		assert.deepEqual(env.apiRequests(), Array(3).fill(`GET ${M}/messages/whatsapp-numbers 200`));
	});

	it('Message → Send Media by URL sends exactly one message', async () => {
		const { sandbox, messenger } = env;
		const chat = openChat(sandbox);
		const before = sandbox.state.messages.length;
		const [item] = await messenger.run({
			resource: 'message',
			operation: 'sendMedia',
			chatId: chat.id,
			url: 'https://example.com/brochure.pdf',
			mediaType: 'document',
			options: { caption: 'Our brochure', fileName: 'brochure.pdf' },
		});
		assert.equal(sandbox.state.messages.length, before + 1);
		assert.deepEqual(item.json, plain(sandbox.state.messages.at(-1)));
		assert.equal(item.json.type, 'document');
		assert.deepEqual(item.json.content, {
			url: 'https://example.com/brochure.pdf',
			caption: 'Our brochure',
			fileName: 'brochure.pdf',
		});
		assert.deepEqual(env.apiRequests(), [`POST ${M}/messages/send/media 200`]);
	});

	it('Message → Send Media to Phone from a chosen number opens a chat for a new phone', async () => {
		const { sandbox, messenger } = env;
		const [number] = await getWhatsappNumbers.call(loadOptionsContext(messenger));
		const before = sandbox.state.messages.length;
		const chatsBefore = sandbox.state.chats.length;
		const [item] = await messenger.run({
			resource: 'message',
			operation: 'sendMediaToPhone',
			phone: '+34 699 000 111',
			url: 'https://example.com/p.jpg',
			mediaType: 'image',
			options: { whatsappNumberId: number.value, caption: 'Hi' },
		});
		assert.equal(sandbox.state.messages.length, before + 1);
		assert.equal(sandbox.state.chats.length, chatsBefore + 1);
		assert.equal(sandbox.state.chats.at(-1).phone, '+34699000111');
		assert.equal(item.json.chatId, sandbox.state.chats.at(-1).id);
		assert.equal(item.json.type, 'image');
		await assert.rejects(
			messenger.run({
				resource: 'message',
				operation: 'sendMediaToPhone',
				phone: '+34699000111',
				url: 'https://example.com/p.jpg',
				mediaType: 'image',
				options: { whatsappNumberId: 'wan_nope' },
			}),
			/WhatsApp number not found/,
		);
		assert.equal(sandbox.state.messages.length, before + 1, 'the refused send added nothing');
		assert.deepEqual(env.apiRequests(), [
			`GET ${M}/messages/whatsapp-numbers 200`,
			`POST ${M}/messages/send/media-to-phone 200`,
			`POST ${M}/messages/send/media-to-phone 404`,
		]);
	});

	it('Message → Send Location sends exactly one location', async () => {
		const { sandbox, messenger } = env;
		const chat = openChat(sandbox);
		const before = sandbox.state.messages.length;
		const [item] = await messenger.run({
			resource: 'message',
			operation: 'sendLocation',
			chatId: chat.id,
			latitude: 41.3874,
			longitude: 2.1686,
			options: { name: 'Office', address: 'Plaça de Catalunya' },
		});
		assert.equal(sandbox.state.messages.length, before + 1);
		assert.equal(item.json.type, 'location');
		assert.deepEqual(item.json.content, {
			latitude: 41.3874,
			longitude: 2.1686,
			name: 'Office',
			address: 'Plaça de Catalunya',
		});
		assert.deepEqual(env.apiRequests(), [`POST ${M}/messages/send/location 200`]);
	});

	it('Message → Get and Remove Reaction', async () => {
		const { sandbox, messenger } = env;
		const withReaction = sandbox.state.messages.find((m) => m.reaction);
		const [got] = await messenger.run({
			resource: 'message',
			operation: 'get',
			messageId: withReaction.id,
		});
		assert.deepEqual(got.json, plain(withReaction));
		const [removed] = await messenger.run({
			resource: 'message',
			operation: 'removeReaction',
			messageId: withReaction.id,
		});
		assert.deepEqual(removed.json, { success: true });
		assert.equal(withReaction.reaction, null);
		await assert.rejects(
			messenger.run({ resource: 'message', operation: 'get', messageId: 'msg_nope' }),
			/Message not found: "msg_nope"/,
		);
		assert.deepEqual(env.apiRequests(), [
			`GET ${M}/messages/${withReaction.id} 200`,
			`DELETE ${M}/messages/${withReaction.id}/react 200`,
			`GET ${M}/messages/msg_nope 404`,
		]);
	});

	it('reached each of its endpoints with success', () => {
		assert.deepEqual(env.unreachedEndpoints(), []);
	});
});
