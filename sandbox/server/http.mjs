// The HTTP server and the way through it: the chat model under /v1 and the control endpoint go
// their own way; the token endpoint and the API are logged, may meet a fault, and every API call
// passes, in this order: rate limit (429) → route (404) → token (401) → role (403) → body → handler.
import { createServer } from 'node:http';
import { HttpError, matchRoute } from '../api.mjs';
import { apiNow } from '../api/records.mjs';
import { wireAnswer } from '../alternatives.mjs';
import { TOKEN_PATH } from './auth.mjs';
import { parseJson, readBody } from './body.mjs';
import { CUSTOMER_MESSAGES_PATH } from './controls.mjs';
import { isOwnMediaPath, serveOwnMedia } from './media.mjs';
import {
	cutPayload,
	faultLabel,
	holdBack,
	resetsAfter,
	strikeAfter,
	strikeBefore,
} from './faults.mjs';

/**
 * @typedef {import('../server.mjs').LogEntry} LogEntry
 * @typedef {import('../api.mjs').ApiResult} ApiResult
 *
 * What the request handler works with.
 * @typedef {{
 *   api: import('../api.mjs').ApiContext,
 *   options: Required<import('./options.mjs').SandboxOptions>,
 *   tokens: import('./auth.mjs').TokenService,
 *   limiter: import('./rateLimit.mjs').RateLimiter,
 *   faults: () => import('./faults.mjs').FaultInjector,
 *   log: LogEntry[],
 *   chatModel: ReturnType<typeof import('../chatModel.mjs').createChatModel>,
 *   control: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<void>,
 * }} HandlerContext
 */

/** Split the raw path first, then decode: `%2F` and `..` never cross a segment. @param {string} path */
function segmentsOf(path) {
	try {
		return path
			.split('/')
			.slice(1)
			.map((segment) => decodeURIComponent(segment));
	} catch {
		throw new HttpError(400, 'Malformed URL: invalid percent-encoding');
	}
}

/** @param {unknown} error @returns {ApiResult} */
function errorResult(error) {
	if (error instanceof HttpError) {
		return { status: error.statusCode, body: error.toBody(), headers: error.headers };
	}
	return {
		status: 500,
		body: { statusCode: 500, message: 'Internal server error', error: 'Internal Server Error' },
	};
}

/** @param {HandlerContext} context */
export function createRequestHandler({
	api,
	options,
	tokens,
	limiter,
	faults,
	log,
	chatModel,
	control,
}) {
	/**
	 * @param {import('node:http').IncomingMessage} req
	 * @param {string[]} segments decoded path segments
	 * @param {Record<string, string>} query
	 * @param {LogEntry} entry
	 * @returns {Promise<ApiResult>}
	 */
	async function callApi(req, segments, query, entry) {
		const limit = limiter.take(req.socket.remoteAddress ?? 'unknown', Date.now());
		/** @type {Record<string, string>} */
		const limitHeaders = limit.limit
			? {
					'X-RateLimit-Limit': String(limit.limit),
					'X-RateLimit-Remaining': String(limit.remaining),
				}
			: {};
		if (!limit.allowed) {
			throw new HttpError(429, 'Too Many Requests', {
				...limitHeaders,
				'Retry-After': String(limit.retryAfter),
			});
		}
		const method = String(req.method);
		const { route, params } = matchRoute(method, segments);
		if (!route) throw new HttpError(404, `Cannot ${method} ${entry.path}`, limitHeaders);

		const payload = tokens.authenticate(req, entry, limitHeaders);
		const scopes = String(payload.scope ?? '').split(' ');
		if (route.scope && !scopes.includes(route.scope)) {
			throw new HttpError(403, `Missing role: ${route.scope}`, limitHeaders);
		}

		let body;
		if (route.body === 'json') body = parseJson(await readBody(req));
		try {
			const result = await route.handler(api, { params, query, body, req });
			return { ...result, headers: { ...limitHeaders, ...result.headers } };
		} catch (error) {
			if (error instanceof HttpError) error.headers = { ...limitHeaders, ...error.headers };
			throw error;
		}
	}

	/**
	 * @param {import('node:http').IncomingMessage} req
	 * @param {import('node:http').ServerResponse} res
	 */
	return async function handle(req, res) {
		const url = req.url ?? '/';
		const queryStart = url.indexOf('?');
		let path = queryStart === -1 ? url : url.slice(0, queryStart);
		const query = Object.fromEntries(
			new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1)),
		);
		/** @type {LogEntry} */
		const entry = {
			method: String(req.method),
			path,
			query,
			status: 0,
			clientId: undefined,
			at: new Date().toISOString(),
		};
		// Express-style: one trailing slash is ignored.
		if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
		if (chatModel.handles(path)) return chatModel.handle(req, res, path);
		if (path === CUSTOMER_MESSAGES_PATH) return await control(req, res);
		if (isOwnMediaPath(path)) {
			// Logged once answered; outside the API's rate limit and faults (tests count its bytes).
			await serveOwnMedia({ api, tokens }, req, res, entry);
			log.push(entry);
			return;
		}

		/** @type {ApiResult} */
		let result;
		// Faults hit API endpoints only: the token endpoint stays reliable.
		const fault = path === TOKEN_PATH ? undefined : faults().next();
		if (fault) entry.fault = faultLabel(fault);
		try {
			if (fault && strikeBefore(fault, faults().options, { req, entry, log, tokens })) return;
			if (path === TOKEN_PATH) result = await tokens.issue(req, entry);
			else result = await callApi(req, segmentsOf(path), query, entry);
		} catch (error) {
			result = errorResult(error);
		}

		const succeeded = result.status >= 200 && result.status < 300;
		result = strikeAfter(fault, result);
		const wire = wireAnswer(options, { method: entry.method, path, ...result });
		entry.status = resetsAfter(fault) ? 0 : wire.status;
		// Logged before the response leaves, so a client that got its answer always sees the entry.
		log.push(entry);
		if (log.length > options.maxLogEntries) log.splice(0, log.length - options.maxLogEntries);

		await holdBack(fault, faults().options);
		if (resetsAfter(fault)) {
			req.socket.destroy();
			return;
		}
		// The answer leaves once the whole request has arrived, as behind a proxy that buffers
		// request bodies (nginx's default): a client still sending a large upload that is refused
		// (401, 429) reads the answer, where Node alone would reset the connection under it.
		if (!req.complete) {
			const arrived = new Promise((resolve) => {
				req.once('end', resolve);
				req.once('close', resolve);
			});
			req.resume();
			await arrived;
		}
		const payload = cutPayload(fault, succeeded, wire.text);
		res.writeHead(wire.status, {
			// The API's clock (sandbox option clockAheadMs), as HTTP gives it: whole seconds.
			Date: new Date(apiNow(api)).toUTCString(),
			'Content-Type': wire.contentType,
			'Content-Length': Buffer.byteLength(payload),
			...result.headers,
		});
		res.end(payload);
	};
}

/**
 * Serves `handle` on `port`/`host` once it listens; a request that throws loses its connection.
 * @param {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<void>} handle
 * @param {{ port: number, host: string }} where
 */
export async function listen(handle, { port, host }) {
	const server = createServer({ keepAlive: true }, (req, res) => {
		handle(req, res).catch((error) => {
			res.destroy(error);
		});
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			server.off('error', reject);
			resolve(undefined);
		});
	});
	const address = /** @type {import('node:net').AddressInfo} */ (server.address());
	const shown =
		address.family === 'IPv6' || address.address.includes(':')
			? `[${address.address}]`
			: address.address;
	/** @type {Promise<void> | undefined} */
	let closing;
	return {
		url: `http://${shown}:${address.port}`,
		port: address.port,
		close() {
			closing ??= new Promise((resolve, reject) => {
				server.close((error) => (error ? reject(error) : resolve()));
				// Idle keep-alive sockets would otherwise hold close() open for seconds.
				server.closeAllConnections();
			});
			return closing;
		},
	};
}
