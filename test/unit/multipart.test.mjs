import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';

import { buildMultipartBody, escapeMultipartName } from '../../nodes/shared/multipart.ts';
import { parseMultipart } from '../helpers/binary.mjs';

const file = (data, fileName = 'photo.jpg', mimeType = 'image/jpeg') => ({
	fieldName: 'file',
	fileName,
	mimeType,
	data,
});

describe('buildMultipartBody', () => {
	it('gives a Buffer whose fields and file parse back byte for byte', async () => {
		// Bytes that look like multipart syntax must survive untouched.
		const data = Buffer.concat([
			randomBytes(70_000),
			Buffer.from('\r\n--\r\n------n8nFormBoundary\r\n'),
			randomBytes(333),
		]);
		const { body, contentType } = buildMultipartBody(
			[
				['chatId', 'cht_1'],
				['caption', 'Señal ✓ "quoted"\r\nsecond line'],
			],
			file(data),
		);
		assert.ok(Buffer.isBuffer(body));
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

	it('ends with the closing boundary and uses CRLF line breaks', () => {
		const { body, contentType } = buildMultipartBody([['a', '1']], file(Buffer.from('x')));
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
			Array.from({ length: 20 }, () => buildMultipartBody([['a', 'b']]).contentType),
		);
		assert.equal(boundaries.size, 20);
	});

	it('escapes quotes as %22 and CR/LF as %0D%0A in file names, so no header can be injected', async () => {
		const name = 'report "final".pdf\r\nContent-Type: text/html\r\n\r\nx';
		const { body, contentType } = buildMultipartBody(
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
		const { body, contentType } = buildMultipartBody([['we"ird\nname', 'v']]);
		const parsed = await parseMultipart(body, contentType);
		assert.deepEqual(parsed.fields, [['we%22ird%0Aname', 'v']]);
		assert.equal(escapeMultipartName('a"b\r\nc'), 'a%22b%0D%0Ac');
	});

	it('keeps non-ASCII file names as UTF-8', async () => {
		const { body, contentType } = buildMultipartBody(
			[],
			file(Buffer.from('1'), 'factura señal €.pdf', 'application/pdf'),
		);
		const parsed = await parseMultipart(body, contentType);
		assert.equal(parsed.files[0].fileName, 'factura señal €.pdf');
	});

	it('strips CR/LF from the MIME type and falls back to application/octet-stream', async () => {
		const injected = buildMultipartBody(
			[],
			file(Buffer.from('1'), 'a.txt', 'text/plain\r\nX-Evil: 1'),
		);
		assert.ok(!injected.body.toString('latin1').includes('\r\nX-Evil'));
		const empty = buildMultipartBody([], file(Buffer.from('1'), 'a.bin', ''));
		const parsed = await parseMultipart(empty.body, empty.contentType);
		assert.equal(parsed.files[0].mimeType, 'application/octet-stream');
	});

	it('builds a body with fields only, and an empty file', async () => {
		const fieldsOnly = buildMultipartBody([['x', '']]);
		assert.deepEqual((await parseMultipart(fieldsOnly.body, fieldsOnly.contentType)).fields, [
			['x', ''],
		]);
		const emptyFile = buildMultipartBody([], file(Buffer.alloc(0)));
		const parsed = await parseMultipart(emptyFile.body, emptyFile.contentType);
		assert.equal(parsed.files[0].data.length, 0);
	});
});
