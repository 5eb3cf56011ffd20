// Request bodies: read whole up to 1 MiB (413 beyond), parsed as JSON (400 when malformed).
import { HttpError } from '../api.mjs';

const MAX_JSON_BYTES = 1024 * 1024;

/**
 * @param {import('node:http').IncomingMessage} req
 * @returns {Promise<Buffer>}
 */
export function readBody(req) {
	return new Promise((resolve, reject) => {
		/** @type {Buffer[]} */
		const chunks = [];
		let size = 0;
		let tooLarge = false;
		req.on('data', (chunk) => {
			size += chunk.length;
			if (size > MAX_JSON_BYTES) tooLarge = true;
			else chunks.push(chunk);
		});
		req.on('end', () => {
			if (tooLarge)
				reject(new HttpError(413, `body must not be larger than ${MAX_JSON_BYTES} bytes`));
			else resolve(Buffer.concat(chunks));
		});
		req.on('error', reject);
	});
}

/** @param {Buffer} raw */
export function parseJson(raw) {
	const text = raw.toString('utf8');
	if (text.trim() === '') return undefined;
	try {
		return JSON.parse(text);
	} catch {
		throw new HttpError(400, 'Malformed JSON in request body');
	}
}
