// Local in-memory implementation of the provider's Integration API, for tests, benchmarks and demos.
import { appendFileSync } from 'node:fs';
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import {
	HttpError,
	ROUTES,
	advanceOnce,
	customerWrites,
	findById,
	insert,
	MAX_UPLOAD_BYTES,
	matchRoute,
} from './api.mjs';
import {
	ALTERNATIVES,
	DEFAULT_ALTERNATIVES,
	checkAlternative,
	wireAnswer,
} from './alternatives.mjs';
import { createIdFactory, createRandom, createSeedState, hashString } from './data.mjs';
import { createFaultInjector } from './faults.mjs';
import { createChatModel } from './chatModel.mjs';

/**
 * @typedef {import('./data.mjs').SandboxState} SandboxState
 * @typedef {import('./data.mjs').Campaign} Campaign
 *
 * @typedef {{
 *   port?: number,
 *   host?: string,
 *   tokenLifetimeSeconds?: number,
 *   rateLimitPerMinute?: number,
 *   tokenRateLimitPerMinute?: number,
 *   progressIntervalMs?: number,
 *   seed?: number,
 *   agentCount?: number,
 *   campaignCount?: number,
 *   activeCampaignCount?: number,
 *   maxLogEntries?: number,
 *   maxUploadBytes?: number,
 *   rateWindowMs?: number,
 *   countRefusedRequests?: boolean,
 *   faults?: import('./faults.mjs').FaultOptions,
 *   onSent?: (sent: import('./data.mjs').SentMessage) => void,
 * } & Partial<import('./alternatives.mjs').Alternatives>} SandboxOptions
 *
 * @typedef {{ method: string, path: string, query: Record<string, string>, status: number, clientId: string | undefined, at: string }} LogEntry
 *
 * @typedef {{
 *   url: string,
 *   port: number,
 *   state: SandboxState,
 *   log: LogEntry[],
 *   clearLog: () => void,
 *   readonly tokensIssued: number,
 *   tokenRequests: () => LogEntry[],
 *   advance: (steps?: number) => void,
 *   addCampaign: (partial?: Partial<Campaign>) => Campaign,
 *   customerWrites: (options?: Record<string, unknown>) => ReturnType<typeof customerWrites>,
 *   expireTokens: () => void,
 *   resetRateLimits: () => void,
 *   setOptions: (partial: Pick<SandboxOptions, 'tokenLifetimeSeconds' | 'rateLimitPerMinute' | 'rateWindowMs' | 'countRefusedRequests' | 'tokenRateLimitPerMinute' | 'progressIntervalMs' | 'maxLogEntries' | 'maxUploadBytes'> & Partial<import('./alternatives.mjs').Alternatives>) => void,
 *   options: Readonly<Required<SandboxOptions>>,
 *   chatModel: ReturnType<typeof createChatModel>,
 *   close: () => Promise<void>,
 * }} Sandbox
 */

/** Client credentials the sandbox accepts; `scopes` become the token's `scope`. */
export const DEMO_CLIENTS = Object.freeze({
	full: Object.freeze({
		clientId: 'demo-full-client',
		clientSecret: 'demo-full-secret-2f8c61d94b7e',
		scopes: Object.freeze(['voicebot', 'messenger']),
	}),
	messengerOnly: Object.freeze({
		clientId: 'demo-messenger-client',
		clientSecret: 'demo-messenger-secret-5a1e0b73c9d2',
		scopes: Object.freeze(['messenger']),
	}),
	voiceOnly: Object.freeze({
		clientId: 'demo-voice-client',
		clientSecret: 'demo-voice-secret-9c4d27e1f0a8',
		scopes: Object.freeze(['voicebot']),
	}),
});

/** @type {Required<SandboxOptions>} */
export const DEFAULT_OPTIONS = Object.freeze({
	port: 0,
	host: '127.0.0.1',
	tokenLifetimeSeconds: 3600,
	rateLimitPerMinute: 100,
	tokenRateLimitPerMinute: 10,
	progressIntervalMs: 0,
	seed: 1,
	agentCount: 25,
	campaignCount: 30,
	activeCampaignCount: 5,
	maxLogEntries: Infinity,
	maxUploadBytes: MAX_UPLOAD_BYTES,
	rateWindowMs: 60_000,
	countRefusedRequests: false,
	faults: {},
	// Where the API's description is silent: docs/api.md's choices (alternatives.mjs lists others).
	...DEFAULT_ALTERNATIVES,
});

export const TOKEN_PATH = '/api/v1/auth/token';
/** Control endpoint (not part of the API, outside its log, faults and limits): a customer writes. */
export const CUSTOMER_MESSAGES_PATH = '/sandbox/customer-messages';
const WINDOW_MS = 60_000;
const MAX_JSON_BYTES = 1024 * 1024;
const INVALID_TOKEN = 'Invalid or expired token';

/** @param {string | Buffer} data */
const base64url = (data) => Buffer.from(data).toString('base64url');

/**
 * Sliding one-minute window per key; only accepted requests count, unless `countsRefused()`
 * says refused ones take a place in the window too (as on many APIs). Retry-After is in whole
 * seconds of a one-minute window: a shortened window shortens its seconds too (decimals).
 * @param {() => number} getLimit 0 disables
 */
function createRateLimiter(getLimit, getWindowMs = () => WINDOW_MS, countsRefused = () => false) {
	/** @type {Map<string, number[]>} */
	const hits = new Map();
	return {
		/** @param {string} key @param {number} now */
		take(key, now) {
			const limit = getLimit();
			if (!limit || limit <= 0) return { allowed: true, limit: 0, remaining: 0, retryAfter: 0 };
			let times = hits.get(key);
			if (!times) hits.set(key, (times = []));
			let expired = 0;
			const windowMs = getWindowMs();
			while (expired < times.length && times[expired] <= now - windowMs) expired++;
			if (expired > 0) times.splice(0, expired);
			if (times.length >= limit) {
				if (countsRefused()) times.push(now);
				// The window frees a slot when the request `limit` places back drops out of it.
				const freesAt = times[times.length - limit] + windowMs;
				const second = (1000 * windowMs) / WINDOW_MS;
				const seconds = Math.max(1, Math.ceil((freesAt - now) / second));
				return {
					allowed: false,
					limit,
					remaining: 0,
					retryAfter: Number(((seconds * second) / 1000).toFixed(3)),
				};
			}
			times.push(now);
			return { allowed: true, limit, remaining: limit - times.length, retryAfter: 0 };
		},
		reset() {
			hits.clear();
		},
	};
}

/**
 * @param {import('node:http').IncomingMessage} req
 * @returns {Promise<Buffer>}
 */
function readBody(req) {
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
function parseJson(raw) {
	const text = raw.toString('utf8');
	if (text.trim() === '') return undefined;
	try {
		return JSON.parse(text);
	} catch {
		throw new HttpError(400, 'Malformed JSON in request body');
	}
}

/** @param {string} a @param {string} b */
function safeEqual(a, b) {
	const left = Buffer.from(a);
	const right = Buffer.from(b);
	return left.length === right.length && timingSafeEqual(left, right);
}

/** @param {SandboxOptions} options */
function withDefaults(options) {
	/** @type {Record<string, unknown>} */
	const merged = { ...DEFAULT_OPTIONS };
	for (const [key, value] of Object.entries(options ?? {})) {
		if (value === undefined) continue;
		merged[key] = key in ALTERNATIVES ? checkAlternative(/** @type {any} */ (key), value) : value;
	}
	return /** @type {Required<SandboxOptions>} */ (merged);
}

/**
 * Starts the sandbox and resolves once it listens.
 * @param {SandboxOptions} [options]
 * @returns {Promise<Sandbox>}
 */
export async function startSandbox(options = {}) {
	const opts = withDefaults(options);
	let faults = createFaultInjector(opts.faults);
	const seed = Number(opts.seed) >>> 0;
	const newId = createIdFactory(createRandom(hashString(`${seed}:ids`)));
	const random = createRandom(hashString(`${seed}:runtime`));
	/** @type {SandboxState} */
	const state = createSeedState({ ...opts, seed }, newId, (id) => findById(state.campaigns, id));
	const api = {
		state,
		seed,
		random,
		newId,
		options: opts,
		onSent: opts.onSent,
		maxUploadBytes: () => opts.maxUploadBytes,
	};

	// Per instance, so a token from one sandbox is worthless in another.
	const signingKey = randomBytes(32);
	/** Live token ids; clearing it is how `expireTokens()` revokes everything issued so far. */
	const liveTokens = new Set();
	/** @type {LogEntry[]} */
	const log = [];
	/** The OpenAI-compatible model under /v1 (scripted by tests; outside the API's log, faults and limits). */
	const chatModel = createChatModel();
	let tokensIssued = 0;
	/** Token ids that have served at least one request (early expiry spares fresh tokens). */
	const usedTokens = new Set();
	// rateWindowMs shortens the API's one-minute window for benchmarks that must finish quickly.
	const generalLimiter = createRateLimiter(
		() => opts.rateLimitPerMinute,
		() => opts.rateWindowMs,
		() => opts.countRefusedRequests,
	);
	const tokenLimiter = createRateLimiter(() => opts.tokenRateLimitPerMinute);
	/** @type {NodeJS.Timeout | undefined} */
	let timer;
	/** @type {Promise<void> | undefined} */
	let closing;

	/** Opaque tokens (option opaqueToken) → their claims; JWTs carry theirs. */
	const opaqueTokens = new Map();

	/** @param {Record<string, unknown>} payload */
	function signToken(payload) {
		if (opts.opaqueToken) {
			const token = `opq_${randomBytes(24).toString('base64url')}`;
			opaqueTokens.set(token, payload);
			return token;
		}
		const head = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify(payload))}`;
		return `${head}.${createHmac('sha256', signingKey).update(head).digest('base64url')}`;
	}

	/**
	 * The payload when the signature is ours, expired or not; undefined otherwise.
	 * @param {string} token
	 * @returns {{ sub: string, scope: string, iat: number, exp: number, jti: string } | undefined}
	 */
	function decodeToken(token) {
		if (opaqueTokens.has(token)) return opaqueTokens.get(token);
		const parts = token.split('.');
		if (parts.length !== 3) return undefined;
		const expected = createHmac('sha256', signingKey)
			.update(`${parts[0]}.${parts[1]}`)
			.digest('base64url');
		if (!safeEqual(parts[2], expected)) return undefined;
		try {
			return JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
		} catch {
			return undefined;
		}
	}

	/**
	 * @param {import('node:http').IncomingMessage} req
	 * @param {LogEntry} entry
	 */
	async function issueToken(req, entry) {
		const limit = tokenLimiter.take(req.socket.remoteAddress ?? 'unknown', Date.now());
		if (!limit.allowed) {
			throw new HttpError(429, 'Too Many Requests', { 'Retry-After': String(limit.retryAfter) });
		}
		if (req.method !== 'POST') throw new HttpError(404, `Cannot ${req.method} ${TOKEN_PATH}`);
		const raw = await readBody(req);
		const contentType = String(req.headers['content-type'] ?? '');
		/** @type {Record<string, unknown>} */
		let body = {};
		if (/application\/x-www-form-urlencoded/i.test(contentType)) {
			body = Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
		} else {
			const parsed = parseJson(raw);
			if (
				parsed !== undefined &&
				(typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
			) {
				throw new HttpError(400, ['body must be a JSON object']);
			}
			body = parsed ?? {};
		}
		let clientId = typeof body.client_id === 'string' ? body.client_id : undefined;
		let clientSecret = typeof body.client_secret === 'string' ? body.client_secret : undefined;
		// OAuth clients may send credentials as HTTP Basic instead (client_secret_basic).
		const authorization = String(req.headers.authorization ?? '');
		if (clientId === undefined && /^basic /i.test(authorization)) {
			const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
			const colon = decoded.indexOf(':');
			if (colon !== -1) {
				clientId = decodeURIComponent(decoded.slice(0, colon));
				clientSecret = decodeURIComponent(decoded.slice(colon + 1));
			}
		}
		entry.clientId = clientId;
		const client = Object.values(DEMO_CLIENTS).find((c) => c.clientId === clientId);
		if (!client || clientSecret === undefined || !safeEqual(clientSecret, client.clientSecret)) {
			throw new HttpError(401, 'Invalid client credentials');
		}
		const iat = Math.floor(Date.now() / 1000);
		const lifetime = Math.max(0, Math.floor(opts.tokenLifetimeSeconds));
		const scope = client.scopes.join(' ');
		const jti = randomUUID();
		const accessToken = signToken({
			iss: 'voice-messaging-sandbox',
			sub: client.clientId,
			scope,
			iat,
			exp: iat + lifetime,
			jti,
		});
		liveTokens.add(jti);
		tokensIssued++;
		// The test run's leak check scans every output for each token the sandbox gave out.
		if (process.env.SANDBOX_TOKEN_LOG)
			appendFileSync(process.env.SANDBOX_TOKEN_LOG, `${accessToken}\n`);
		return {
			status: 200,
			body: {
				access_token: accessToken,
				expires_in: opts.expiresInUnit === 'ms' ? lifetime * 1000 : lifetime,
				token_type: 'Bearer',
				scope,
			},
			headers: { 'Cache-Control': 'no-store' },
		};
	}

	/**
	 * @param {import('node:http').IncomingMessage} req
	 * @param {string[]} segments decoded path segments
	 * @param {Record<string, string>} query
	 * @param {LogEntry} entry
	 * @returns {Promise<import('./api.mjs').ApiResult>}
	 */
	async function callApi(req, segments, query, entry) {
		const limit = generalLimiter.take(req.socket.remoteAddress ?? 'unknown', Date.now());
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

		const match = /^Bearer\s+(\S+)\s*$/i.exec(String(req.headers.authorization ?? ''));
		const payload = match ? decodeToken(match[1]) : undefined;
		entry.clientId = typeof payload?.sub === 'string' ? payload.sub : undefined;
		if (!payload || !liveTokens.has(payload.jti) || !(Date.now() / 1000 < payload.exp)) {
			throw new HttpError(401, INVALID_TOKEN, limitHeaders);
		}
		usedTokens.add(payload.jti);
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
	async function handle(req, res) {
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
		if (path === CUSTOMER_MESSAGES_PATH) return await writeAsCustomer(req, res);

		/** @type {import('./api.mjs').ApiResult} */
		let result;
		// Faults hit API endpoints only: the token endpoint stays reliable.
		const fault = path === TOKEN_PATH ? undefined : faults.next();
		if (fault) entry.fault = fault.after ? `${fault.kind} after` : fault.kind;
		try {
			if (fault?.kind === 'reset' && !fault.after) {
				entry.status = 0;
				log.push(entry);
				req.socket.destroy();
				return;
			}
			if (fault?.kind === 'serverError' && !fault.after) {
				throw new HttpError(fault.status ?? 503, 'Injected server error (not carried out)');
			}
			if (fault?.kind === 'rateLimit') {
				throw new HttpError(
					429,
					'Too Many Requests',
					faults.options.retryAfter === false ? {} : { 'Retry-After': '1' },
				);
			}
			if (fault?.kind === 'tokenExpiry') {
				// A token expires early, but never on its very first use: a fresh token is good.
				const presented = /^Bearer\s+(\S+)\s*$/i.exec(String(req.headers.authorization ?? ''));
				const claims = presented ? decodeToken(presented[1]) : undefined;
				if (claims && usedTokens.has(claims.jti)) liveTokens.delete(claims.jti);
				else entry.fault = undefined;
			}
			if (path === TOKEN_PATH) result = await issueToken(req, entry);
			else {
				/** @type {string[]} */
				let segments;
				try {
					// Split the raw path first, then decode: `%2F` and `..` never cross a segment.
					segments = path
						.split('/')
						.slice(1)
						.map((segment) => decodeURIComponent(segment));
				} catch {
					throw new HttpError(400, 'Malformed URL: invalid percent-encoding');
				}
				result = await callApi(req, segments, query, entry);
			}
		} catch (error) {
			if (error instanceof HttpError) {
				result = { status: error.statusCode, body: error.toBody(), headers: error.headers };
			} else {
				result = {
					status: 500,
					body: {
						statusCode: 500,
						message: 'Internal server error',
						error: 'Internal Server Error',
					},
				};
			}
		}

		const succeeded = result.status >= 200 && result.status < 300;
		if (fault?.kind === 'serverError' && fault.after && succeeded) {
			result = {
				status: fault.status ?? 500,
				body: {
					statusCode: fault.status ?? 500,
					message: 'Injected server error (carried out)',
					error: 'Server Error',
				},
			};
		}
		const wire = wireAnswer(opts, { method: entry.method, path, ...result });
		entry.status = fault?.kind === 'reset' && fault.after ? 0 : wire.status;
		// Logged before the response leaves, so a client that got its answer always sees the entry.
		log.push(entry);
		if (log.length > opts.maxLogEntries) log.splice(0, log.length - opts.maxLogEntries);

		if (fault?.kind === 'slow')
			await new Promise((resolve) => setTimeout(resolve, faults.options.slowMs ?? 200));
		if (fault?.kind === 'reset' && fault.after) {
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
		let payload = wire.text;
		if (fault?.kind === 'malformedJson' && succeeded)
			payload = payload.slice(0, Math.max(1, Math.floor(payload.length / 2)));
		res.writeHead(wire.status, {
			'Content-Type': wire.contentType,
			'Content-Length': Buffer.byteLength(payload),
			...result.headers,
		});
		res.end(payload);
	}

	/**
	 * POST CUSTOMER_MESSAGES_PATH with the options of customerWrites (api.mjs): 201 `{ chat, items }`.
	 * @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res
	 */
	async function writeAsCustomer(req, res) {
		/** @type {import('./api.mjs').ApiResult} */
		let result;
		try {
			if (req.method !== 'POST')
				throw new HttpError(404, `Cannot ${req.method} ${CUSTOMER_MESSAGES_PATH}`);
			result = { status: 201, body: customerWrites(api, parseJson(await readBody(req))) };
		} catch (error) {
			if (!(error instanceof HttpError)) throw error;
			result = { status: error.statusCode, body: error.toBody() };
		}
		const payload = JSON.stringify(result.body);
		res.writeHead(result.status, {
			'Content-Type': 'application/json; charset=utf-8',
			'Content-Length': Buffer.byteLength(payload),
		});
		res.end(payload);
	}

	const server = createServer({ keepAlive: true }, (req, res) => {
		handle(req, res).catch((error) => {
			res.destroy(error);
		});
	});

	function startTimer() {
		if (timer) clearInterval(timer);
		timer = undefined;
		if (opts.progressIntervalMs > 0) {
			timer = setInterval(() => advanceOnce(api), opts.progressIntervalMs);
			timer.unref();
		}
	}

	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(opts.port, opts.host, () => {
			server.off('error', reject);
			resolve(undefined);
		});
	});
	startTimer();

	const address = /** @type {import('node:net').AddressInfo} */ (server.address());
	const host =
		address.family === 'IPv6' || address.address.includes(':')
			? `[${address.address}]`
			: address.address;

	/** @type {Sandbox} */
	const sandbox = {
		url: `http://${host}:${address.port}`,
		port: address.port,
		state,
		log,
		clearLog() {
			log.length = 0;
		},
		get tokensIssued() {
			return tokensIssued;
		},
		tokenRequests() {
			return log.filter((entry) => entry.path === TOKEN_PATH || entry.path === `${TOKEN_PATH}/`);
		},
		advance(steps = 1) {
			for (let i = 0; i < steps; i++) advanceOnce(api);
		},
		customerWrites(options = {}) {
			return customerWrites(api, options);
		},
		addCampaign(partial = {}) {
			const campaigns = state.campaigns;
			const newest =
				campaigns.length > 0 ? Date.parse(campaigns[campaigns.length - 1].createdAt) : 0;
			const at = new Date(Math.max(Date.now(), newest + 1)).toISOString();
			const number = campaigns.length + 1;
			/** @type {Campaign} */
			const campaign = {
				id: newId('cmp'),
				name: `Sandbox campaign ${number}`,
				status: 'pending',
				agentName: state.agents[state.agents.length - 1]?.name ?? 'Sales Lucia',
				mode: 'immediate',
				numberDid: campaigns[campaigns.length - 1]?.numberDid ?? '+34910000000',
				createdAt: at,
				updatedAt: at,
				fileName: `sandbox-campaign-${number}-numbers.csv`,
				startDate: at,
				...partial,
			};
			return insert(campaigns, campaign);
		},
		expireTokens() {
			liveTokens.clear();
		},
		resetRateLimits() {
			generalLimiter.reset();
			tokenLimiter.reset();
		},
		/** Switches faults on (or off with `{}`) from now on; `faultCounts` says how many were injected. */
		setFaults(faultOptions = {}) {
			faults = createFaultInjector(faultOptions);
		},
		get faultCounts() {
			return { ...faults.counts };
		},
		setOptions(partial) {
			for (const key of /** @type {const} */ ([
				'tokenLifetimeSeconds',
				'rateLimitPerMinute',
				'rateWindowMs',
				'countRefusedRequests',
				'tokenRateLimitPerMinute',
				'progressIntervalMs',
				'maxLogEntries',
				'maxUploadBytes',
			])) {
				if (partial[key] !== undefined) opts[key] = partial[key];
			}
			for (const key of /** @type {Array<keyof import('./alternatives.mjs').Alternatives>} */ (
				Object.keys(ALTERNATIVES)
			)) {
				if (partial[key] !== undefined) opts[key] = checkAlternative(key, partial[key]);
			}
			if (partial.progressIntervalMs !== undefined) startTimer();
		},
		options: opts,
		chatModel,
		close() {
			if (timer) clearInterval(timer);
			timer = undefined;
			closing ??= new Promise((resolve, reject) => {
				server.close((error) => (error ? reject(error) : resolve()));
				// Idle keep-alive sockets would otherwise hold close() open for seconds.
				server.closeAllConnections();
			});
			return closing;
		},
	};
	return sandbox;
}

/** Method and path of every API endpoint the sandbox serves (the token endpoint first). */
export const ENDPOINTS = Object.freeze([
	{ method: 'POST', path: TOKEN_PATH, scope: undefined },
	...ROUTES.map((r) => ({
		method: r.method,
		path: `/${r.segments.map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s)).join('/')}`,
		scope: r.scope,
	})),
]);
