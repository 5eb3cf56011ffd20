import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';

import { binaryItem, sha256 } from '../../../tools/binary.mjs';
import { requestsSince } from '../../../tools/sandboxRun.mjs';
import { MESSENGER_API as M, messengerSuite, openChat } from '../../support/integration.mjs';

describe('Messenger node against the sandbox: Send Media File', () => {
	const env = messengerSuite('mediaFiles');

	it('Message → Send Media File uploads the exact bytes once, with name, type and caption', async () => {
		const { sandbox, messenger } = env;
		const chat = openChat(sandbox);
		const data = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(300_000)]);
		const before = {
			messages: sandbox.state.messages.length,
			uploads: sandbox.state.uploads.length,
		};
		const [item] = await messenger.run(
			{
				resource: 'message',
				operation: 'sendMediaFile',
				chatId: chat.id,
				binaryPropertyName: 'data',
				options: { caption: 'Invoice for May' },
			},
			{ items: [binaryItem(data, { fileName: 'invoice-may.pdf', mimeType: 'application/pdf' })] },
		);
		assert.equal(sandbox.state.messages.length, before.messages + 1);
		assert.equal(sandbox.state.uploads.length, before.uploads + 1);
		const upload = sandbox.state.uploads.at(-1);
		assert.equal(upload.sha256, sha256(data));
		assert.equal(upload.size, data.length);
		assert.equal(upload.fileName, 'invoice-may.pdf');
		assert.equal(upload.mimeType, 'application/pdf');
		assert.equal(upload.caption, 'Invoice for May');
		assert.equal(upload.chatId, chat.id);
		assert.equal(upload.messageId, item.json.id);
		assert.equal(item.json.type, 'document');
		assert.deepEqual(env.apiRequests(), [`POST ${M}/messages/send/media-file 200`]);
	});

	it('Send Media File after the token expired: 401, a new token, the same body again, one upload', async () => {
		const { sandbox, messenger } = env;
		const chat = openChat(sandbox);
		const data = randomBytes(1_500_000);
		const before = {
			messages: sandbox.state.messages.length,
			uploads: sandbox.state.uploads.length,
		};
		await messenger.run({
			resource: 'whatsappNumber',
			operation: 'getAll',
			returnAll: true,
			options: {},
		}); // a token is held
		env.mark = sandbox.log.length;
		sandbox.expireTokens();
		const [item] = await messenger.run(
			{
				resource: 'message',
				operation: 'sendMediaFile',
				chatId: chat.id,
				binaryPropertyName: 'photo',
				options: { fileName: 'tienda señal "2".jpg' },
			},
			{
				items: [
					binaryItem(data, { property: 'photo', fileName: 'IMG_0001.JPG', mimeType: 'image/jpeg' }),
				],
			},
		);
		assert.deepEqual(requestsSince(sandbox, env.mark), [
			`POST ${M}/messages/send/media-file 401`,
			'POST /api/v1/auth/token 200',
			`POST ${M}/messages/send/media-file 200`,
		]);
		assert.equal(sandbox.state.uploads.length, before.uploads + 1, 'exactly one upload recorded');
		assert.equal(sandbox.state.messages.length, before.messages + 1);
		const upload = sandbox.state.uploads.at(-1);
		assert.equal(upload.sha256, sha256(data));
		assert.equal(
			upload.fileName,
			'tienda señal %222%22.jpg',
			'UTF-8 arrives intact; quotes are escaped as RFC 7578 says',
		);
		assert.equal(upload.mimeType, 'image/jpeg');
		assert.equal(item.json.type, 'image');
	});

	it('Send Media File over 25 MB is refused by the API (413) and records nothing', async () => {
		const { sandbox, messenger } = env;
		const chat = openChat(sandbox);
		const before = sandbox.state.uploads.length;
		const [item] = await messenger.run(
			{
				resource: 'message',
				operation: 'sendMediaFile',
				chatId: chat.id,
				binaryPropertyName: 'data',
				options: {},
			},
			{
				items: [
					binaryItem(Buffer.alloc(26_214_401, 1), { fileName: 'big.mp4', mimeType: 'video/mp4' }),
				],
				continueOnFail: true,
			},
		);
		assert.match(item.json.error, /too large \(413\)/);
		assert.equal(sandbox.state.uploads.length, before);
		assert.deepEqual(env.apiRequests(), [`POST ${M}/messages/send/media-file 413`]);
	});

	it('reached each of its endpoints with success', () => {
		assert.deepEqual(env.unreachedEndpoints(), []);
	});
});
