// Message → Download Media in a real n8n with binary data in filesystem mode: by message ID (the
// API's own origin, with the token; or a redirect to storage) and from the input item (Message →
// Get before it, a signed storage link: no extra request). Each time the workflow holds the file's
// bytes (n8n's Crypto node hashes them from the store) and the storage origin never sees a token.
// On n8n 1.x (filesystem is not its default): n8n1DownloadMedia.e2e.test.mjs, with an n8n of its own.
import assert from 'node:assert/strict';
import { describe } from 'node:test';

import { TOKEN_PATH } from '../../../sandbox/server.mjs';
import { chainWorkflow, nodeOutput, sha256Node, suiteOptions } from '../harness.mjs';
import { messenger, messengerN8n, openChats, rawItems } from './messengerSupport.mjs';

const { version, title, it } = suiteOptions(
	'Message → Download Media in a real n8n, binary data in filesystem mode',
);

const API = '/api/v1/messenger/messages';
/** What customers send (the invoice's name with accents and a dash: Content-Disposition's filename*). */
const SENT = {
	photo: {
		type: 'image',
		fileSize: 3 * 2 ** 20,
		fileName: 'damaged parcel.jpg',
		text: 'this is how it arrived',
	},
	invoice: {
		type: 'document',
		fileSize: 5 * 2 ** 20,
		fileName: 'Factura nº 7 — noviembre.pdf',
		text: 'my invoice',
	},
};
/** Message → Download Media into the field `data`, the message from `source`. */
const downloadMedia = (source) =>
	messenger('Download Media', {
		resource: 'message',
		operation: 'downloadMedia',
		binaryPropertyName: 'data',
		...source,
	});
/** The sandbox's file ID in a media link (own origin or storage). */
const fileIdOf = (message) => /med_\w+/.exec(message.content.url)[0];

describe(title, { timeout: 10 * 60_000 }, () => {
	const e2e = messengerN8n(version, { binaryDataMode: 'filesystem' });

	/** A customer's media message, its link as `mediaLinks` says when it is written. */
	function customerSends(mediaLinks, spec) {
		e2e.sandbox.setOptions({ mediaLinks });
		const chat = openChats(e2e)[1];
		const [message] = e2e.sandbox.customerWrites({ chatId: chat.id, ...spec }).items;
		return message;
	}

	/**
	 * Runs Manual Trigger → `nodes` → Hash and checks what Download Media output: the message, its
	 * file in n8n's filesystem store, named and typed as `expected` says, with the file's bytes.
	 * Resolves to the file's ID and what the API and the storage origin saw meanwhile.
	 */
	async function download(id, message, nodes, expected) {
		const workflow = chainWorkflow(id, [...nodes, sha256Node('Hash')]);
		await e2e.n8n.importWorkflows([workflow]);
		e2e.sandbox.clearLog();
		const storageBefore = e2e.sandbox.storage.log.length;
		const result = await e2e.run(workflow.id);
		const [item] = rawItems(result, 'Download Media');
		assert.equal(item.json.id, message.id);
		assert.equal(item.json.binaryProperty, 'data');
		const file = item.binary.data;
		assert.match(String(file.id), /^filesystem(-v2)?:/, JSON.stringify(file));
		assert.deepEqual([file.fileName, file.mimeType], [expected.fileName, expected.mimeType]);
		const fileId = fileIdOf(message);
		const [hashed] = nodeOutput(result, 'Hash');
		assert.equal(hashed.sha256, e2e.sandbox.mediaSha256(fileId), 'the bytes in n8n are the file’s');
		return {
			fileId,
			api: e2e.apiLog().map((entry) => [entry.method, entry.path, entry.status, entry.clientId]),
			storage: e2e.sandbox.storage.log
				.slice(storageBefore)
				.map((entry) => [entry.path, entry.status, entry.authorization]),
		};
	}

	it('by message ID: the message read, its file fetched from the API’s origin with the token', async () => {
		const message = customerSends('own', SENT.photo);
		const { fileId, api, storage } = await download(
			'e2eDownload01',
			message,
			[downloadMedia({ source: 'messageId', messageId: message.id })],
			{ fileName: SENT.photo.fileName, mimeType: 'image/jpeg' },
		);
		assert.deepEqual(
			api.map(([method, path, status]) => [method, path, status]),
			[
				['GET', `${API}/${message.id}`, 200],
				['GET', `/media/${fileId}`, 200],
			],
		);
		// The sandbox knew the file request's client by its token, as it knew the API request's.
		assert.ok(api[1][3]);
		assert.equal(api[1][3], api[0][3]);
		assert.deepEqual(storage, []);
	});

	it('by message ID, the API answering with a redirect to storage: followed without the token', async () => {
		const message = customerSends('own', { type: 'audio', text: 'voice note' });
		e2e.sandbox.setOptions({ mediaLinks: 'redirect' });
		const { fileId, api, storage } = await download(
			'e2eDownload02',
			message,
			[downloadMedia({ source: 'messageId', messageId: message.id })],
			{ fileName: message.content.fileName, mimeType: 'audio/ogg' },
		);
		assert.deepEqual(
			api.map(([method, path, status]) => [method, path, status]),
			[
				['GET', `${API}/${message.id}`, 200],
				['GET', `/media/${fileId}`, 302],
			],
		);
		assert.deepEqual(storage, [[`/files/${fileId}`, 200, false]]);
		assert.equal(e2e.sandbox.storage.authorizationSeen, 0);
	});

	it('from the input item (Message → Get before it): no extra request, a storage link fetched without the token', async () => {
		const message = customerSends('storage', SENT.invoice);
		const { fileId, api, storage } = await download(
			'e2eDownload03',
			message,
			[
				messenger('Get', { resource: 'message', operation: 'get', messageId: message.id }),
				downloadMedia({ source: 'inputItem' }),
			],
			{ fileName: SENT.invoice.fileName, mimeType: 'application/pdf' },
		);
		assert.deepEqual(
			api.map(([method, path, status]) => [method, path, status]),
			[['GET', `${API}/${message.id}`, 200]],
			'the one request is Message → Get’s',
		);
		assert.deepEqual(storage, [[`/files/${fileId}`, 200, false]]);
		assert.equal(e2e.sandbox.storage.authorizationSeen, 0);
	});
});
