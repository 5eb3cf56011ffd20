// Fault injection for the sandbox: answers that a real API and network give now and then,
// chosen per request from a seeded random stream, so a run with the same seed and the same
// request order meets the same faults.
import { mulberry32 } from './data.mjs';

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
 * }} FaultOptions
 *
 * @typedef {{ kind: 'serverError' | 'rateLimit' | 'tokenExpiry' | 'slow' | 'reset' | 'malformedJson', after: boolean, status?: number }} Fault
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
