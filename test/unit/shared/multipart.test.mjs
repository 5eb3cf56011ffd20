// shared/multipart.ts: the upload body, parsed back byte for byte, with nothing injected through
// a name, and sent whole by the axios n8n uses, as often as it is sent.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';

import {
	buildMultipartBody,
	bytesInMemory,
	escapeMultipartName,
} from '../../../nodes/shared/multipart.ts';
import { parseMultipart } from '../../../tools/binary.mjs';

const file = (data, fileName = 'photo.jpg', mimeType = 'image/jpeg') => ({
	fieldName: 'file',
	fileName,
	mimeType,
	...bytesInMemory(data),
});

/** What one send of the body puts on the wire, and its Content-Type. */
async function sent(fields, part) {
	const body = buildMultipartBody(fields, part);
	const bytes = Buffer.concat(await Array.fromAsync(body.stream()));
	assert.equal(bytes.length, body.size, 'size (the Content-Length) matches what is sent');
	return { body: bytes, contentType: body.type, multipart: body };
}

describe('buildMultipartBody', () => {
	it('gives a body whose fields and file parse back byte for byte', async () => {
		// Bytes that look like multipart syntax must survive untouched.
		const data = Buffer.concat([
			randomBytes(70_000),
			Buffer.from('\r\n--\r\n------n8nFormBoundary\r\n'),
			randomBytes(333),
		]);
		const { body, contentType } = await sent(
			[
				['chatId', 'cht_1'],
				['caption', 'Señal ✓ "quoted"\r\nsecond line'],
			],
			file(data),
		);
		assert.match(contentType, /^multipart\/form-data; boundary=----n8nFormBoundary[0-9a-f]{32}$/);
		const parsed = await parseMultipart(body, contentType);
		assert.deepEqual(parsed.fields, [
			['chatId', 'cht_1'],
			['caption', 'Señal ✓ "quoted"\r\nsecond line'],
		]);
		assert.equal(parsed.files.length, 1);
		assert.equal(parsed.files[0].name, 'file');
		assert.equal(parsed.files[0].fileName, 'photo.jpg');
		assert.equal(parsed.files[0].mimeType, 'image/jpeg');
		assert.ok(parsed.files[0].data.equals(data));
	});

	it('ends with the closing boundary and uses CRLF line breaks', async () => {
		const { body, contentType } = await sent([['a', '1']], file(Buffer.from('x')));
		const boundary = contentType.split('boundary=')[1];
		assert.ok(
			body
				.toString('latin1')
				.startsWith(`--${boundary}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n`),
		);
		assert.ok(body.toString('latin1').endsWith(`\r\n--${boundary}--\r\n`));
	});

	it('uses a new random boundary for every body', () => {
		const boundaries = new Set(
			Array.from({ length: 20 }, () => buildMultipartBody([['a', 'b']]).type),
		);
		assert.equal(boundaries.size, 20);
	});

	it('escapes quotes as %22 and CR/LF as %0D%0A in file names, so no header can be injected', async () => {
		const name = 'report "final".pdf\r\nContent-Type: text/html\r\n\r\nx';
		const { body, contentType } = await sent(
			[['chatId', 'c']],
			file(Buffer.from('%PDF'), name, 'application/pdf'),
		);
		const parsed = await parseMultipart(body, contentType);
		assert.equal(parsed.files.length, 1);
		assert.equal(
			parsed.files[0].fileName,
			'report %22final%22.pdf%0D%0AContent-Type: text/html%0D%0A%0D%0Ax',
		);
		assert.equal(parsed.files[0].mimeType, 'application/pdf');
		assert.ok(parsed.files[0].data.equals(Buffer.from('%PDF')));
		assert.deepEqual(parsed.fields, [['chatId', 'c']]);
		assert.ok(!body.toString('latin1').includes('filename="report "'));
	});

	it('escapes field names the same way', async () => {
		const { body, contentType } = await sent([['we"ird\nname', 'v']]);
		const parsed = await parseMultipart(body, contentType);
		assert.deepEqual(parsed.fields, [['we%22ird%0Aname', 'v']]);
		assert.equal(escapeMultipartName('a"b\r\nc'), 'a%22b%0D%0Ac');
	});

	it('keeps non-ASCII file names as UTF-8', async () => {
		const { body, contentType } = await sent(
			[],
			file(Buffer.from('1'), 'factura señal €.pdf', 'application/pdf'),
		);
		const parsed = await parseMultipart(body, contentType);
		assert.equal(parsed.files[0].fileName, 'factura señal €.pdf');
	});

	it('strips CR/LF from the MIME type and falls back to application/octet-stream', async () => {
		const injected = await sent([], file(Buffer.from('1'), 'a.txt', 'text/plain\r\nX-Evil: 1'));
		assert.ok(!injected.body.toString('latin1').includes('\r\nX-Evil'));
		const empty = await sent([], file(Buffer.from('1'), 'a.bin', ''));
		const parsed = await parseMultipart(empty.body, empty.contentType);
		assert.equal(parsed.files[0].mimeType, 'application/octet-stream');
	});

	it('builds a body with fields only, and an empty file', async () => {
		const fieldsOnly = await sent([['x', '']]);
		assert.deepEqual((await parseMultipart(fieldsOnly.body, fieldsOnly.contentType)).fields, [
			['x', ''],
		]);
		const emptyFile = await sent([], file(Buffer.alloc(0)));
		const parsed = await parseMultipart(emptyFile.body, emptyFile.contentType);
		assert.equal(parsed.files[0].data.length, 0);
	});
});

describe('MultipartBody as n8n sends it', () => {
	const video = (data) => file(data, 'big.bin', 'video/mp4');

	it('reads the file anew, from the start, every time it is sent', async () => {
		const data = randomBytes(300_000);
		let reads = 0;
		const part = {
			...video(data),
			read: async () => {
				reads++;
				return (async function* () {
					for (let at = 0; at < data.length; at += 65536) yield data.subarray(at, at + 65536);
				})();
			},
		};
		const body = buildMultipartBody([['chatId', 'c']], part);
		assert.equal(reads, 0);
		const first = await parseMultipart(body, body.type);
		const second = await parseMultipart(body, body.type);
		assert.equal(reads, 2);
		assert.ok(first.files[0].data.equals(data));
		assert.ok(second.files[0].data.equals(data));
	});

	it('is a Blob to axios and not an empty object to n8n', () => {
		const body = buildMultipartBody([['a', 'b']], video(Buffer.from('x')));
		assert.equal(Object.prototype.toString.call(body), '[object Blob]');
		assert.deepEqual(Object.keys(body).sort(), ['size', 'type']);
	});

	it('goes out through axios (n8n’s HTTP client) with a Content-Length, whole, each time it is sent', async (t) => {
		// The axios n8n-workflow depends on: the version n8n sends requests with.
		const axios = createRequire(createRequire(import.meta.url).resolve('n8n-workflow'))('axios');
		const received = [];
		const server = createServer(async (req, res) => {
			const chunks = [];
			for await (const chunk of req) chunks.push(chunk);
			received.push({ headers: req.headers, body: Buffer.concat(chunks) });
			res.end('{}');
		});
		await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
		t.after(() => new Promise((resolve) => server.close(resolve)));
		const data = randomBytes(1_000_000);
		const body = buildMultipartBody([['chatId', 'c']], video(data));
		const url = `http://127.0.0.1:${server.address().port}/`;
		for (let i = 0; i < 2; i++) {
			await axios.post(url, body, {
				headers: { 'Content-Type': body.type },
				maxRedirects: 0,
			});
		}
		assert.equal(received.length, 2);
		for (const { headers, body: bytes } of received) {
			assert.equal(headers['content-length'], String(body.size));
			assert.equal(headers['transfer-encoding'], undefined, 'not chunked');
			assert.equal(headers['content-type'], body.type);
			const parsed = await parseMultipart(bytes, headers['content-type']);
			assert.ok(parsed.files[0].data.equals(data));
			assert.deepEqual(parsed.fields, [['chatId', 'c']]);
		}
	});
});
