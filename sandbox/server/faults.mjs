// Fault injection for the sandbox: answers that a real API and network give now and then,
// chosen per request from a seeded random stream, so a run with the same seed and the same
// request order meets the same faults. The injector draws a fault per API request (never for
// the token endpoint); the functions below carry it out at its place in the request.
import { HttpError } from '../api.mjs';
import { mulberry32 } from '../data.mjs';

/**
 * @typedef {{
 *   seed?: number,
 *   serverErrorRate?: number,       // 500/502/503 answers
 *   serverErrorAfterShare?: number, // of those, the share answered after the request was carried out
 *   rateLimitRate?: number,         // 429 answers
 *   retryAfter?: boolean,           // whether a 429 carries Retry-After (seconds)
 *   tokenExpiryRate?: number,       // the presented token is revoked first (401)
 *   slowRate?: number,              // answers delayed by slowMs
 *   slowMs?: number,
 *   resetRate?: number,             // the connection is reset (half before, half after carrying out)
 *   malformedJsonRate?: number,     // a 2xx answer whose body is cut off mid-JSON
 *   hangRate?: number,              // the request is taken and never answered (until the client gives up)
 *   latencyMs?: number,             // every API answer held back this long (a slow API; not a fault)
 * }} FaultOptions
 *
 * @typedef {{ kind: 'serverError' | 'rateLimit' | 'tokenExpiry' | 'slow' | 'reset' | 'malformedJson' | 'hang', after: boolean, status?: number }} Fault
 */

/** @param {FaultOptions} [options] */
export function createFaultInjector(options = {}) {
	const random = mulberry32(options.seed ?? 1);
	const kinds = /** @type {const} */ ([
		['serverError', options.serverErrorRate ?? 0],
		['rateLimit', options.rateLimitRate ?? 0],
		['tokenExpiry', options.tokenExpiryRate ?? 0],
		['slow', options.slowRate ?? 0],
		['reset', options.resetRate ?? 0],
		['malformedJson', options.malformedJsonRate ?? 0],
		// Drawn only when asked for, so that seeded runs without it meet the faults they always met.
		...(options.hangRate ? [['hang', options.hangRate]] : []),
	]);
	const counts = Object.fromEntries(kinds.map(([kind]) => [kind, 0]));
	return {
		options,
		counts,
		/** The fault for the next API request, or undefined. @returns {Fault | undefined} */
		next() {
			// Draw the same number of values per request, so one kind's rate does not shift the others.
			const rolls = kinds.map(() => random());
			const side = random();
			const status = [500, 502, 503][Math.floor(random() * 3)];
			for (let i = 0; i < kinds.length; i++) {
				const [kind, rate] = kinds[i];
				if (rolls[i] < rate) {
					counts[kind]++;
					const afterShare = kind === 'serverError' ? (options.serverErrorAfterShare ?? 0.5) : 0.5;
					return { kind, after: side < afterShare, status };
				}
			}
			return undefined;
		},
	};
}

/** @typedef {ReturnType<typeof createFaultInjector>} FaultInjector */

/** What the log entry says about a fault. @param {Fault} fault */
export const faultLabel = (fault) => (fault.after ? `${fault.kind} after` : fault.kind);

/**
 * The faults that strike before the request is carried out: a reset (true: the request is over,
 * logged with status 0), a server error or a 429 (thrown as the answer), or an early-expired token.
 * @param {Fault} fault @param {FaultOptions} options
 * @param {{ req: import('node:http').IncomingMessage, entry: import('../server.mjs').LogEntry, log: import('../server.mjs').LogEntry[], tokens: import('./auth.mjs').TokenService }} request
 */
export function strikeBefore(fault, options, { req, entry, log, tokens }) {
	if (fault.kind === 'hang') {
		// Taken and never answered: the connection stays open until the client or stop() ends it.
		entry.status = 0;
		log.push(entry);
		req.resume();
		return true;
	}
	if (fault.kind === 'reset' && !fault.after) {
		entry.status = 0;
		log.push(entry);
		req.socket.destroy();
		return true;
	}
	if (fault.kind === 'serverError' && !fault.after) {
		throw new HttpError(fault.status ?? 503, 'Injected server error (not carried out)');
	}
	if (fault.kind === 'rateLimit') {
		throw new HttpError(
			429,
			'Too Many Requests',
			options.retryAfter === false ? {} : { 'Retry-After': '1' },
		);
	}
	// A token expires early, but never on its very first use: a fresh token is good.
	if (fault.kind === 'tokenExpiry' && !tokens.revokeIfUsed(req)) entry.fault = undefined;
	return false;
}

/**
 * A server error after the request was carried out replaces its successful answer.
 * @param {Fault | undefined} fault @param {import('../api.mjs').ApiResult} result
 * @returns {import('../api.mjs').ApiResult}
 */
export function strikeAfter(fault, result) {
	const succeeded = result.status >= 200 && result.status < 300;
	if (fault?.kind !== 'serverError' || !fault.after || !succeeded) return result;
	return {
		status: fault.status ?? 500,
		body: {
			statusCode: fault.status ?? 500,
			message: 'Injected server error (carried out)',
			error: 'Server Error',
		},
	};
}

/** Whether the connection is reset once the request was carried out. @param {Fault | undefined} fault */
export const resetsAfter = (fault) => fault?.kind === 'reset' && fault.after;

/** Holds an answer back: every one by `latencyMs`, a slow one by `slowMs` more. @param {Fault | undefined} fault @param {FaultOptions} options */
export async function holdBack(fault, options) {
	const ms = (options.latencyMs ?? 0) + (fault?.kind === 'slow' ? (options.slowMs ?? 200) : 0);
	if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A successful answer's JSON cut in half.
 * @param {Fault | undefined} fault @param {boolean} succeeded @param {string} payload
 */
export function cutPayload(fault, succeeded, payload) {
	if (fault?.kind !== 'malformedJson' || !succeeded) return payload;
	return payload.slice(0, Math.max(1, Math.floor(payload.length / 2)));
}
