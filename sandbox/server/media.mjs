// Serving the files of media messages: on the sandbox's own origin (GET /media/{id}, the token
// required, or a redirect to storage with `mediaLinks: 'redirect'`) and on a second server, the
// storage origin (GET /files/{id}?expires&signature). Storage accepts no token: a request that
// carries an Authorization header is refused (400, as S3 refuses two ways of signing in) and
// counted in `authorizationSeen`, so tests can prove the token never left the API's origin.
import { HttpError } from '../api.mjs';
import {
	OWN_MEDIA_PREFIX,
	STORAGE_PREFIX,
	mediaChunks,
	storageLink,
	storageSignature,
} from '../api/media.mjs';
import { listen } from './http.mjs';

/**
 * @typedef {import('../api.mjs').ApiContext} ApiContext
 * @typedef {import('../api/media.mjs').MediaFile} MediaFile
 * @typedef {{ path: string, status: number, authorization: boolean, at: string }} StorageLogEntry
 */

/** Whether a path is a file on the sandbox's own origin. @param {string} path */
export const isOwnMediaPath = (path) => path.startsWith(OWN_MEDIA_PREFIX);

/** Resolves when the response may take more, or is gone. @param {import('node:http').ServerResponse} res */
function drained(res) {
	return new Promise((resolve) => {
		const done = () => {
			res.off('drain', done);
			res.off('close', done);
			resolve(undefined);
		};
		res.on('drain', done);
		res.on('close', done);
	});
}

/** Content-Disposition with the name as RFC 6266 gives it: ASCII fallback and UTF-8 filename*. */
function disposition(fileName) {
	const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
	return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/**
 * Writes a file: with `mediaHeaders: 'full'` its type, size and name; with `'bare'` only
 * application/octet-stream, sent chunked without a length or a name (as some stores answer).
 * @param {import('node:http').ServerResponse} res @param {MediaFile} file @param {string} mediaHeaders
 */
async function sendFile(res, file, mediaHeaders) {
	const headers =
		mediaHeaders === 'bare'
			? { 'Content-Type': 'application/octet-stream' }
			: {
					'Content-Type': file.mimeType,
					'Content-Length': String(file.size),
					'Content-Disposition': disposition(file.fileName),
				};
	res.writeHead(200, headers);
	for (const chunk of mediaChunks(file)) {
		if (res.destroyed) return;
		if (!res.write(chunk)) await drained(res);
	}
	res.end();
}

/** @param {import('node:http').ServerResponse} res @param {number} status @param {string} message */
function sendError(res, status, message) {
	const body = JSON.stringify({ statusCode: status, message, error: message });
	res.writeHead(status, {
		'Content-Type': 'application/json; charset=utf-8',
		'Content-Length': Buffer.byteLength(body),
	});
	res.end(body);
}

/**
 * Answers with the file `find` gives (or nothing more when it answered itself, e.g. a redirect),
 * or with the HttpError it throws; the status goes into the log entry.
 * @param {import('node:http').ServerResponse} res @param {{ status: number }} entry @param {string} mediaHeaders
 * @param {() => MediaFile | undefined} find
 */
async function answerWithFile(res, entry, mediaHeaders, find) {
	try {
		const file = find();
		if (!file) return;
		entry.status = 200;
		await sendFile(res, file, mediaHeaders);
	} catch (error) {
		if (!(error instanceof HttpError)) throw error;
		entry.status = error.statusCode;
		sendError(res, error.statusCode, [].concat(error.message).join('; '));
	}
}

/** The file a path names, or an HttpError: 404 unknown or deleted, 403 expired. */
function fileAt(api, path, prefix) {
	const file = api.state.mediaFiles.get(decodeURIComponent(path.slice(prefix.length)));
	if (!file || file.status === 'deleted') throw new HttpError(404, 'Media not found');
	if (file.status === 'expired') throw new HttpError(403, 'Media link expired');
	return file;
}

/**
 * GET /media/{id} on the API's origin: the token is checked as for the API (401 without), then
 * the file, or a 302 to a signed storage link when `mediaLinks` is `redirect`.
 * @param {{ api: ApiContext, tokens: import('./auth.mjs').TokenService }} parts
 * @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res
 * @param {import('../server.mjs').LogEntry} entry
 */
export async function serveOwnMedia({ api, tokens }, req, res, entry) {
	await answerWithFile(res, entry, api.options.mediaHeaders, () => {
		if (req.method !== 'GET') throw new HttpError(404, `Cannot ${req.method} ${entry.path}`);
		tokens.authenticate(req, entry, {});
		const file = fileAt(api, entry.path, OWN_MEDIA_PREFIX);
		if (api.options.mediaLinks !== 'redirect') return file;
		entry.status = 302;
		res.writeHead(302, { Location: storageLink(api, file.id), 'Content-Length': '0' });
		res.end();
		return undefined;
	});
}

/**
 * The storage origin: a server of its own on the sandbox's host. `authorizationSeen` counts the
 * requests that came with an Authorization header; `log` lists every request.
 * @param {ApiContext} api @param {{ host: string }} where
 */
export async function startStorage(api, { host }) {
	/** @type {StorageLogEntry[]} */
	const log = [];
	const storage = { log, authorizationSeen: 0, url: '', close: async () => {} };
	/** @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res */
	async function handle(req, res) {
		const url = new URL(req.url ?? '/', 'http://storage');
		/** @type {StorageLogEntry} */
		const entry = {
			path: url.pathname,
			status: 0,
			authorization: req.headers.authorization !== undefined,
			at: new Date().toISOString(),
		};
		log.push(entry);
		if (log.length > 10_000) log.splice(0, log.length - 10_000);
		await answerWithFile(res, entry, api.options.mediaHeaders, () => {
			if (entry.authorization) {
				storage.authorizationSeen++;
				throw new HttpError(
					400,
					'Only one way of signing in is allowed: this link is signed, an Authorization header is refused',
				);
			}
			if (req.method !== 'GET' || !url.pathname.startsWith(STORAGE_PREFIX))
				throw new HttpError(404, 'Not found');
			const id = decodeURIComponent(url.pathname.slice(STORAGE_PREFIX.length));
			const expires = Number(url.searchParams.get('expires'));
			const issued = Number(url.searchParams.get('issued'));
			if (url.searchParams.get('signature') !== storageSignature(api, id, expires, issued)) {
				throw new HttpError(403, 'Signature does not match');
			}
			const file = fileAt(api, url.pathname, STORAGE_PREFIX);
			if (!(expires * 1000 > Date.now()) || issued < (file.linksValidFrom ?? 0)) {
				throw new HttpError(403, 'Link expired');
			}
			return file;
		});
	}
	const listening = await listen(handle, { port: 0, host });
	storage.url = listening.url;
	storage.close = () => listening.close();
	return storage;
}
