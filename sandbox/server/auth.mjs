// Auth and tokens: the demo clients, the token endpoint (client credentials → a signed JWT, or an
// opaque token under the opaqueToken alternative) and the check of the token on every API call.
import { appendFileSync } from 'node:fs';
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { HttpError } from '../api.mjs';
import { parseJson, readBody } from './body.mjs';

/**
 * @typedef {import('../server.mjs').LogEntry} LogEntry
 * @typedef {{ sub: string, scope: string, iat: number, exp: number, jti: string }} Claims
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

export const TOKEN_PATH = '/api/v1/auth/token';
const INVALID_TOKEN = 'Invalid or expired token';

/** @param {string | Buffer} data */
const base64url = (data) => Buffer.from(data).toString('base64url');

/** @param {string} a @param {string} b */
function safeEqual(a, b) {
	const left = Buffer.from(a);
	const right = Buffer.from(b);
	return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * The token body of a request: JSON or form-encoded `client_id`/`client_secret`, or HTTP Basic.
 * @param {import('node:http').IncomingMessage} req
 */
async function clientCredentials(req) {
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
	return { clientId, clientSecret };
}

/**
 * The tokens of one sandbox: issued, checked, revoked.
 * @param {Required<import('./options.mjs').SandboxOptions>} opts
 * @param {import('./rateLimit.mjs').RateLimiter} limiter the token endpoint's own limit
 */
export function createTokenService(opts, limiter) {
	// Per instance, so a token from one sandbox is worthless in another.
	const signingKey = randomBytes(32);
	/** Live token ids; clearing it is how `expireTokens()` revokes everything issued so far. */
	const liveTokens = new Set();
	/** Token ids that have served at least one request (early expiry spares fresh tokens). */
	const usedTokens = new Set();
	/** Opaque tokens (option opaqueToken) → their claims; JWTs carry theirs. */
	const opaqueTokens = new Map();
	let issued = 0;

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
	 * @returns {Claims | undefined}
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

	/** The claims of the request's bearer token, if the sandbox made it. @param {import('node:http').IncomingMessage} req */
	function presented(req) {
		const match = /^Bearer\s+(\S+)\s*$/i.exec(String(req.headers.authorization ?? ''));
		return match ? decodeToken(match[1]) : undefined;
	}

	return {
		/**
		 * The token endpoint: its rate limit (429), then POST only (404), then the client's credentials (401).
		 * @param {import('node:http').IncomingMessage} req @param {LogEntry} entry
		 * @returns {Promise<import('../api.mjs').ApiResult>}
		 */
		async issue(req, entry) {
			const limit = limiter.take(req.socket.remoteAddress ?? 'unknown', Date.now());
			if (!limit.allowed) {
				throw new HttpError(429, 'Too Many Requests', { 'Retry-After': String(limit.retryAfter) });
			}
			if (req.method !== 'POST') throw new HttpError(404, `Cannot ${req.method} ${TOKEN_PATH}`);
			const { clientId, clientSecret } = await clientCredentials(req);
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
			issued++;
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
		},

		/**
		 * The claims of a live, unexpired token of ours, or a 401; notes the client in the log entry.
		 * @param {import('node:http').IncomingMessage} req @param {LogEntry} entry
		 * @param {Record<string, string>} headers for the 401 answer
		 */
		authenticate(req, entry, headers) {
			const payload = presented(req);
			entry.clientId = typeof payload?.sub === 'string' ? payload.sub : undefined;
			if (!payload || !liveTokens.has(payload.jti) || !(Date.now() / 1000 < payload.exp)) {
				throw new HttpError(401, INVALID_TOKEN, headers);
			}
			usedTokens.add(payload.jti);
			return payload;
		},

		/**
		 * Revokes the presented token, unless it has served no request yet (a fresh token is good).
		 * @param {import('node:http').IncomingMessage} req @returns {boolean} whether it was revoked
		 */
		revokeIfUsed(req) {
			const claims = presented(req);
			if (!claims || !usedTokens.has(claims.jti)) return false;
			liveTokens.delete(claims.jti);
			return true;
		},

		/** Revokes every token issued so far. */
		expireAll() {
			liveTokens.clear();
		},

		get issued() {
			return issued;
		},
	};
}

/** @typedef {ReturnType<typeof createTokenService>} TokenService */
