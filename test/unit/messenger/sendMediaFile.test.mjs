// Messenger → Message → Send Media File: the multipart upload of a binary input (in memory or
// stored by n8n, read anew on every send), the types it allows, and bad input refused before any
// request.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';

import { Messenger } from '../../../nodes/Messenger/Messenger.node.ts';
import {
	ALLOWED_UPLOAD_DOCUMENT_TYPES,
	isAllowedUploadType,
} from '../../../nodes/Messenger/actions/message/media.ts';
import { binaryItem, parseMultipart } from '../../../tools/binary.mjs';
import { httpError } from '../../../tools/context.mjs';
import { scriptedNode } from '../../support/unit.mjs';

const { run, itRefusesBeforeAnyRequest } = scriptedNode(new Messenger());
const M = '/api/v1/messenger';

describe('Send Media File', () => {
	const pdf = Buffer.from('%PDF-1.7\n\x00\x01\x02binary\r\n--boundary-like--\r\n');
	const params = (options = {}, extra = {}) => ({
		resource: 'message',
		operation: 'sendMediaFile',
		chatId: 'cht_1',
		binaryPropertyName: 'data',
		options,
		...extra,
	});

	it('sends a multipart body with the file, its name and MIME type, chatId and caption', async () => {
		const { output, calls } = await run(
			params({ caption: 'Your "invoice"' }),
			() => ({ id: 'msg_9' }),
			{
				items: [binaryItem(pdf, { fileName: 'invoice "May".pdf', mimeType: 'application/pdf' })],
			},
		);
		assert.equal(calls.length, 1);
		const [call] = calls;
		assert.equal(call.method, 'POST');
		assert.equal(call.url, `${M}/messages/send/media-file`);
		assert.match(call.headers['Content-Type'], /^multipart\/form-data; boundary=/);
		assert.equal(call.body.type, call.headers['Content-Type']);
		assert.equal(call.disableFollowRedirect, true, 'a redirect would keep the body in memory');
		const sent = Buffer.concat(await Array.fromAsync(call.body.stream()));
		assert.equal(call.body.size, sent.length, 'the size sent as Content-Length is exact');
		const parsed = await parseMultipart(call.body, call.headers['Content-Type']);
		assert.deepEqual(parsed.fields, [
			['chatId', 'cht_1'],
			['caption', 'Your "invoice"'],
		]);
		assert.equal(parsed.files.length, 1);
		assert.equal(parsed.files[0].name, 'file');
		assert.equal(parsed.files[0].fileName, 'invoice %22May%22.pdf');
		assert.equal(parsed.files[0].mimeType, 'application/pdf');
		assert.ok(parsed.files[0].data.equals(pdf));
		assert.deepEqual(output, [{ json: { id: 'msg_9' }, pairedItem: { item: 0 } }]);
	});

	it('uses another binary field, the File Name and MIME Type overrides, and extra fields as parts', async () => {
		const { calls } = await run(
			params(
				{
					fileName: 'renamed.png',
					mimeType: 'image/png',
					additionalBodyFields: '{"preview": true, "tag": "x"}',
				},
				{ binaryPropertyName: 'attachment' },
			),
			() => ({}),
			{
				items: [
					binaryItem(Buffer.from([1, 2, 3]), {
						property: 'attachment',
						fileName: 'raw.bin',
						mimeType: 'application/octet-stream',
					}),
				],
			},
		);
		const parsed = await parseMultipart(calls[0].body, calls[0].headers['Content-Type']);
		assert.deepEqual(parsed.fields, [
			['chatId', 'cht_1'],
			['preview', 'true'],
			['tag', 'x'],
		]);
		assert.equal(parsed.files[0].fileName, 'renamed.png');
		assert.equal(parsed.files[0].mimeType, 'image/png');
	});

	it('names the file "file" when the binary data has no name, and drops MIME parameters', async () => {
		const { calls } = await run(params(), () => ({}), {
			items: [
				binaryItem(Buffer.from('a,b\n'), {
					fileName: undefined,
					mimeType: 'text/csv; charset=utf-8',
				}),
			],
		});
		const parsed = await parseMultipart(calls[0].body, calls[0].headers['Content-Type']);
		assert.equal(parsed.files[0].fileName, 'file');
		assert.equal(parsed.files[0].mimeType, 'text/csv');
	});

	const storedItem = (id, mimeType = 'video/mp4') => ({
		json: {},
		binary: { data: { data: 'filesystem-v2', id, mimeType, fileName: 'clip.mp4' } },
	});

	it('streams a file n8n stores outside memory, from a fresh stream on every send', async () => {
		const bytes = randomBytes(200_000);
		const id = 'filesystem-v2:workflows/1/executions/2/binary_data/abc';
		const stored = { [id]: { bytes, reads: 0 } };
		const { calls } = await run(params({ caption: 'clip' }), () => ({}), {
			items: [storedItem(id)],
			stored,
		});
		assert.equal(stored[id].reads, 0, 'nothing is read before the body is sent');
		const body = calls[0].body;
		const first = await parseMultipart(body, body.type);
		assert.ok(first.files[0].data.equals(bytes));
		assert.equal(first.files[0].mimeType, 'video/mp4');
		assert.deepEqual(first.fields, [
			['chatId', 'cht_1'],
			['caption', 'clip'],
		]);
		// Sent again (a 429, or n8n resending after renewing a token): the file is read anew.
		const second = Buffer.concat(await Array.fromAsync(body.stream()));
		assert.equal(stored[id].reads, 2);
		assert.equal(second.length, body.size);
		assert.ok(second.includes(bytes));
	});

	it('sends bytes held in memory as they are, without a copy', async () => {
		const bytes = Buffer.from('in the item, base64 in n8n 1.x memory mode');
		const { calls } = await run(params(), () => ({}), {
			items: [binaryItem(bytes, { mimeType: 'text/plain' })],
			binary: { data: bytes },
		});
		const chunks = await Array.fromAsync(calls[0].body.stream());
		assert.ok(
			chunks.some((chunk) => chunk === bytes),
			'the Buffer n8n decoded is sent itself',
		);
	});

	it('fails the send when a stored file is longer or shorter than its size', async () => {
		for (const actual of [12, 8]) {
			const id = `filesystem-v2:x/${actual}`;
			const stored = { [id]: { bytes: Buffer.alloc(10, 1), reads: 0 } };
			const { calls } = await run(params(), () => ({}), { items: [storedItem(id)], stored });
			// The file changed in the store after its size was read.
			stored[id].bytes = Buffer.alloc(actual, 1);
			await assert.rejects(
				Array.fromAsync(calls[0].body.stream()),
				/"clip.mp4" changed while it was sent: it no longer has 10 bytes/,
			);
		}
	});

	it('an empty stored file is refused before any request', async () => {
		const id = 'filesystem-v2:x/empty';
		await assert.rejects(
			run(
				params(),
				() => {
					throw new Error('sent');
				},
				{ items: [storedItem(id)], stored: { [id]: { bytes: Buffer.alloc(0), reads: 0 } } },
			),
			/The file in "data" is empty \(0 bytes\)/,
		);
	});

	it('allows images, video, audio and the listed documents only', () => {
		for (const type of [
			'image/jpeg',
			'image/webp',
			'video/mp4',
			'audio/ogg',
			'Application/PDF',
			...ALLOWED_UPLOAD_DOCUMENT_TYPES,
		]) {
			assert.ok(isAllowedUploadType(type), type);
		}
		for (const type of [
			'',
			'application/octet-stream',
			'application/x-msdownload',
			'text/html',
			'application/javascript',
			'image',
			'image/',
			'image/png\r\nX: 1',
		]) {
			assert.ok(!isAllowedUploadType(type), type);
		}
	});
});

describe('bad input fails before any request, naming the field', () => {
	const file = (extra) => ({
		resource: 'message',
		operation: 'sendMediaFile',
		chatId: 'cht_1',
		binaryPropertyName: 'data',
		options: {},
		...extra,
	});
	const pdfItem = [
		binaryItem(Buffer.from('%PDF'), { fileName: 'a.pdf', mimeType: 'application/pdf' }),
	];
	itRefusesBeforeAnyRequest([
		[
			file({ binaryPropertyName: 'attachment' }),
			/The input item has no binary field "attachment"/,
			pdfItem,
			/Its binary fields are: data/,
		],
		[file(), /The input item has no binary field "data"/, [{ json: {} }], /no binary data at all/],
		[
			file(),
			/The file in "data" is empty \(0 bytes\)/,
			[binaryItem(Buffer.alloc(0), { fileName: 'a.pdf', mimeType: 'application/pdf' })],
		],
		[
			file(),
			/The file in "data" has the type "application\/x-msdownload", which cannot be sent/,
			[binaryItem(Buffer.from('MZ'), { fileName: 'a.exe', mimeType: 'application/x-msdownload' })],
			/application\/pdf/,
		],
		[
			file(),
			/has the type "application\/octet-stream", which cannot be sent/,
			[binaryItem(Buffer.from('1'))],
			/set the MIME Type option/,
		],
		[file({ options: { mimeType: 'text/html' } }), /has the type "text\/html"/, pdfItem],
		[file({ chatId: 'a/b' }), /Chat ID "a\/b" is not a valid ID/, pdfItem],
		[file({ options: { caption: 'c'.repeat(2000) } }), /Caption is too long/, pdfItem],
		[
			file({ options: { additionalBodyFields: 'nope' } }),
			/Additional Body Fields \(JSON\) is not valid JSON/,
			pdfItem,
		],
	]);
});

describe('errors from the API and per-item behaviour', () => {
	it('a 413 on upload says the file is too large', async () => {
		await assert.rejects(
			run(
				{
					resource: 'message',
					operation: 'sendMediaFile',
					chatId: 'c',
					binaryPropertyName: 'data',
					options: {},
				},
				() => {
					throw httpError(413, { message: 'file must not be larger than 26214400 bytes (25 MB)' });
				},
				{ items: [binaryItem(Buffer.from('x'), { fileName: 'a.jpg', mimeType: 'image/jpeg' })] },
			),
			/too large \(413\)/,
		);
	});
});
