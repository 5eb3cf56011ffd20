// Rate limits: the API's (per client IP, every endpoint but the token one) and the token
// endpoint's, each a sliding one-minute window.

const WINDOW_MS = 60_000;

/**
 * Sliding one-minute window per key; only accepted requests count, unless `countsRefused()`
 * says refused ones take a place in the window too (as on many APIs). Retry-After is in whole
 * seconds of a one-minute window: a shortened window shortens its seconds too (decimals).
 * @param {() => number} getLimit 0 disables
 */
export function createRateLimiter(
	getLimit,
	getWindowMs = () => WINDOW_MS,
	countsRefused = () => false,
) {
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

/** @typedef {ReturnType<typeof createRateLimiter>} RateLimiter */

/**
 * The sandbox's two limiters, reading the options as they are now (setOptions changes them).
 * @param {Required<import('./options.mjs').SandboxOptions>} opts
 */
export function createRateLimits(opts) {
	return {
		// rateWindowMs shortens the API's one-minute window for benchmarks that must finish quickly.
		api: createRateLimiter(
			() => opts.rateLimitPerMinute,
			() => opts.rateWindowMs,
			() => opts.countRefusedRequests,
		),
		token: createRateLimiter(() => opts.tokenRateLimitPerMinute),
	};
}
