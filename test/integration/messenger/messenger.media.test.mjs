// Media files against the sandbox over loopback: Message → Download Media (by ID, from the input
// item), the Download Media option of Message → Get and Chat → Get Messages, on every kind of
// link the sandbox can give. The storage origin refuses and counts any Authorization header, so
// each test proves the token never left the API's origin.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';

import { MESSENGER_API as M, messengerSuite, openChat } from '../../support/integration.mjs';

const sha = (base64) => createHash('sha256').update(Buffer.from(base64, 'base64')).digest('hex');

/** A customer's media message in an open chat; its file's ID from its link. */
function customerSends(sandbox, type, extra = {}) {
	const chat = openChat(sandbox);
	const [message] = sandbox.customerWrites({ chatId: chat.id, type, ...extra }).items;
	const fileId = /(med_[0-9a-f]+)/.exec(message.content.url)[1];
	return { chat, message, fileId };
}

const download = (messageId, extra = {}) => ({
	resource: 'message',
	operation: 'downloadMedia',
	source: 'messageId',
	messageId,
	binaryPropertyName: 'data',
	options: {},
	...extra,
});

describe('Messenger node against the sandbox: media files', () => {
	const env = messengerSuite('media');

	for (const mediaLinks of ['own', 'storage', 'redirect']) {
		it(`Download Media by ID gives the exact file, links on ${mediaLinks}; storage never sees the token`, async () => {
			const { sandbox, messenger } = env;
			sandbox.setOptions({ mediaLinks });
			const before = sandbox.storage.log.length;
			const { message, fileId } = customerSends(sandbox, 'document', {
				fileSize: 700_000,
				fileName: 'Factura señal.pdf',
			});
			const [item] = await messenger.run(download(message.id));
			assert.equal(item.json.id, message.id);
			assert.equal(item.json.binaryProperty, 'data');
			assert.equal(sha(item.binary.data.data), sandbox.mediaSha256(fileId));
			assert.equal(item.binary.data.fileName, 'Factura señal.pdf');
			assert.equal(item.binary.data.mimeType, 'application/pdf');
			const storage = sandbox.storage.log.slice(before);
			assert.equal(sandbox.storage.authorizationSeen, 0);
			assert.equal(storage.length, mediaLinks === 'own' ? 0 : 1);
			const own = env.apiRequests().filter((r) => r.includes('/media/'));
			assert.deepEqual(
				own,
				mediaLinks === 'storage'
					? []
					: [`GET /media/${fileId} ${mediaLinks === 'own' ? 200 : 302}`],
			);
			sandbox.setOptions({ mediaLinks: 'own' });
		});
	}

	it('without a name or type in the answer, they come from the message', async () => {
		const { sandbox, messenger } = env;
		sandbox.setOptions({ mediaHeaders: 'bare' });
		const { message, fileId } = customerSends(sandbox, 'audio', { fileName: 'voice.ogg' });
		const [item] = await messenger.run(download(message.id, { binaryPropertyName: 'voice' }));
		sandbox.setOptions({ mediaHeaders: 'full' });
		assert.equal(sha(item.binary.voice.data), sandbox.mediaSha256(fileId));
		assert.equal(item.binary.voice.fileName, 'voice.ogg');
		assert.equal(item.binary.voice.mimeType, 'audio/ogg');
	});

	it('from the input item: no request for the message, only for its file', async () => {
		const { sandbox, messenger } = env;
		const { message, fileId } = customerSends(sandbox, 'image');
		env.mark = sandbox.log.length;
		const input = { json: { messageId: message.id, text: 'x', message } };
		const [item] = await messenger.run(download('', { source: 'inputItem' }), { items: [input] });
		assert.deepEqual(env.apiRequests(), [`GET /media/${fileId} 200`]);
		assert.equal(item.json.text, 'x', "the input item's JSON is kept");
		assert.equal(sha(item.binary.data.data), sandbox.mediaSha256(fileId));
		assert.equal(item.binary.data.fileExtension, 'jpg');
	});

	it('a message without media, an expired and a deleted file: errors naming the message', async () => {
		const { sandbox, messenger } = env;
		const [text] = sandbox.customerWrites({ chatId: openChat(sandbox).id, text: 'hello' }).items;
		await assert.rejects(
			messenger.run(download(text.id)),
			new RegExp(`Message ${text.id} has no media to download \\(type "text"\\)`),
		);
		const expired = customerSends(sandbox, 'image', {});
		sandbox.expireMedia(expired.fileId);
		const gone = customerSends(sandbox, 'video', {});
		sandbox.deleteMedia(gone.fileId);
		const items = [text, expired.message, gone.message].map((message) => ({ json: { message } }));
		const output = await messenger.run(download('', { source: 'inputItem' }), {
			items,
			continueOnFail: true,
		});
		assert.equal(output.length, 3);
		assert.match(output[0].json.error, /has no media/);
		assert.match(
			output[1].json.error,
			new RegExp(`media link of message ${expired.message.id} has expired`),
		);
		assert.match(
			output[2].json.error,
			new RegExp(`media of message ${gone.message.id} is gone \\(HTTP 404\\)`),
		);
		assert.deepEqual(
			output.map((o) => o.pairedItem.item),
			[0, 1, 2],
		);
	});

	it('a file larger than Max File Size is refused', async () => {
		const { sandbox, messenger } = env;
		const { message } = customerSends(sandbox, 'document', { fileSize: 3 * 2 ** 20 });
		await assert.rejects(
			messenger.run(download(message.id, { options: { maxFileSize: 1 } })),
			new RegExp(`media of message ${message.id} is larger than the Max File Size \\(1 MiB\\)`),
		);
	});

	it('Message → Get and Chat → Get Messages with Download Media: files on media messages only', async () => {
		const { sandbox, messenger } = env;
		const { chat, message, fileId } = customerSends(sandbox, 'image');
		const [got] = await messenger.run({
			resource: 'message',
			operation: 'get',
			messageId: message.id,
			options: { downloadMedia: true },
		});
		assert.equal(sha(got.binary.data.data), sandbox.mediaSha256(fileId));
		const plain = await messenger.run({
			resource: 'message',
			operation: 'get',
			messageId: message.id,
			options: {},
		});
		assert.equal(plain[0].binary, undefined);
		sandbox.customerWrites({ chatId: chat.id, text: 'and this' });
		const broken = customerSends(sandbox, 'audio');
		sandbox.deleteMedia(broken.fileId);
		const listed = await messenger.run({
			resource: 'chat',
			operation: 'getMessages',
			chatId: chat.id,
			returnAll: false,
			limit: 3,
			options: { downloadMedia: true, binaryPropertyName: 'file' },
		});
		const [latest, text, image] = listed;
		assert.equal(text.json.content, 'and this');
		assert.equal(text.binary, undefined);
		assert.equal(sha(image.binary.file.data), sandbox.mediaSha256(fileId));
		assert.match(latest.json.mediaError.message, /is gone/, 'a list keeps the message that failed');
		assert.equal(latest.binary, undefined);
		assert.ok(env.apiRequests().includes(`GET ${M}/messages/chat/${chat.id} 200`));
	});
});
