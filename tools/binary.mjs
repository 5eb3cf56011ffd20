// Binary input items as n8n passes them to a node, and a multipart parser (busboy, as the
// sandbox uses) to read a request body back in tests.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';

import busboy from 'busboy';

/** An input item with one binary property holding `data` (Buffer), as n8n's default binary mode keeps it. */
export function binaryItem(data, options = {}) {
	const { property = 'data', mimeType = 'application/octet-stream', json = {} } = options;
	const binary = {
		[property]: { data: data.toString('base64'), mimeType, fileSize: String(data.length) },
	};
	// `fileName: undefined` means binary data without a name, as some nodes produce.
	const fileName = 'fileName' in options ? options.fileName : 'file.bin';
	if (fileName !== undefined) binary[property].fileName = fileName;
	return { json, binary };
}

export const sha256 = (data) => createHash('sha256').update(data).digest('hex');

/**
 * Parses a multipart/form-data body (a Buffer or a MultipartBody). File names are read as UTF-8 (busboy's default is latin1) and
 * with any path kept (busboy's default keeps only the part after the last slash).
 * @returns {Promise<{ fields: Array<[string, string]>, files: Array<{ name: string, fileName: string, mimeType: string, data: Buffer }> }>}
 */
export function parseMultipart(body, contentType) {
	return new Promise((resolve, reject) => {
		const fields = [];
		const files = [];
		const parser = busboy({
			headers: { 'content-type': contentType },
			defParamCharset: 'utf8',
			preservePath: true,
		});
		parser.on('field', (name, value) => fields.push([name, value]));
		parser.on('file', (name, stream, info) => {
			const chunks = [];
			stream.on('data', (chunk) => chunks.push(chunk));
			stream.on('end', () =>
				files.push({
					name,
					fileName: info.filename,
					mimeType: info.mimeType,
					data: Buffer.concat(chunks),
				}),
			);
		});
		parser.on('close', () => resolve({ fields, files }));
		parser.on('error', reject);
		// A Buffer, or a Blob-like body (MultipartBody) read as axios reads it: a fresh stream().
		const source = Buffer.isBuffer(body) ? [body] : body.stream();
		Readable.from(source, { objectMode: false }).pipe(parser);
	});
}
