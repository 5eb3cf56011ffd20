// Media-file uploads: the multipart body streamed through busboy, the file hashed, not kept.
import { createHash } from 'node:crypto';
import busboy from 'busboy';
import { HttpError } from './errors.mjs';

/**
 * @typedef {import('../data.mjs').Message} Message
 */

/** The largest file a media upload takes, unless the sandbox is started with `maxUploadBytes`. */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

/**
 * Streams the multipart body through busboy, hashing the `file` part instead of buffering it.
 * @param {import('node:http').IncomingMessage} req @param {number} maxFileBytes
 * @returns {Promise<{ fields: Record<string, string>, file: { fileName: string, mimeType: string, size: number, sha256: string } | undefined, tooLarge: boolean }>}
 */
export function readMultipart(req, maxFileBytes) {
	return new Promise((resolve, reject) => {
		const contentType = req.headers['content-type'] ?? '';
		if (!/^multipart\/form-data/i.test(contentType)) {
			req.resume();
			reject(new HttpError(400, ['Content-Type must be multipart/form-data']));
			return;
		}
		let parser;
		try {
			parser = busboy({
				headers: req.headers,
				// Clients (browsers, n8n) send file names as raw UTF-8, as RFC 7578 says.
				defParamCharset: 'utf8',
				limits: {
					// busboy reports a limit when a file reaches it: one byte more is the first too many.
					fileSize: maxFileBytes + 1,
					files: 5,
					fields: 20,
					fieldSize: 1024 * 1024,
					parts: 30,
				},
			});
		} catch {
			req.resume();
			reject(new HttpError(400, ['Malformed multipart/form-data body']));
			return;
		}
		/** @type {Record<string, string>} */
		const fields = Object.create(null);
		/** @type {{ fileName: string, mimeType: string, size: number, sha256: string } | undefined} */
		let file;
		let tooLarge = false;
		parser.on('file', (name, stream, info) => {
			if (name !== 'file' || file) {
				stream.resume();
				return;
			}
			const hash = createHash('sha256');
			const current = {
				fileName: info.filename ?? 'file',
				mimeType: info.mimeType,
				size: 0,
				sha256: '',
			};
			file = current;
			stream.on('data', (chunk) => {
				hash.update(chunk);
				current.size += chunk.length;
			});
			stream.on('limit', () => {
				tooLarge = true;
			});
			stream.on('end', () => {
				current.sha256 = hash.digest('hex');
			});
		});
		parser.on('field', (name, value) => {
			fields[name] = value;
		});
		parser.on('close', () => resolve({ fields, file, tooLarge }));
		parser.on('error', () => {
			req.unpipe(parser);
			req.resume();
			reject(new HttpError(400, ['Malformed multipart/form-data body']));
		});
		req.pipe(parser);
	});
}

/** @param {string} mimeType @returns {Message['type']} */
export function messageTypeOf(mimeType) {
	const major = mimeType.split('/')[0];
	return major === 'image' || major === 'video' || major === 'audio' ? major : 'document';
}
