const asText = (value: unknown): string =>
	value === undefined || value === null ? '' : String(value).trim();

/** `Retry-After` in milliseconds (it may give seconds or a date), or undefined without one. */
export function retryAfterMs(headers: unknown, now: number): number | undefined {
	const retryAfter = asText(headerValue(headers, 'retry-after'));
	if (!retryAfter) return undefined;
	const seconds = Number(retryAfter);
	const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - now;
	return Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}

/**
 * How long a 429's headers ask to hold back: `Retry-After` (seconds or a date), else a reset
 * hint (`RateLimit-Reset`, `X-RateLimit-Reset`, or `reset=` / `t=` in `RateLimit`), in seconds
 * or, when it is that large, as the Unix time of the reset. None is documented for this API.
 */
export function serverPauseMs(headers: unknown, now: number): number | undefined {
	const retryAfter = retryAfterMs(headers, now);
	if (retryAfter !== undefined) return retryAfter;
	const reset =
		asText(headerValue(headers, 'ratelimit-reset')) ||
		asText(headerValue(headers, 'x-ratelimit-reset')) ||
		(/(?:\breset=|;t=)(\d+(?:\.\d+)?)/.exec(asText(headerValue(headers, 'ratelimit')))?.[1] ?? '');
	const value = Number(reset);
	if (!reset || !Number.isFinite(value) || value < 0) return undefined;
	return Math.max(0, value > 1e9 ? value * 1000 - now : value * 1000);
}

/** A header of an answer, whatever shape n8n handed the headers in (plain object or Headers). */
export function headerValue(headers: unknown, name: string): unknown {
	if (!headers || typeof headers !== 'object') return undefined;
	const record = headers as Record<string, unknown> & { get?: (key: string) => unknown };
	if (typeof record.get === 'function') {
		const viaGet = record.get(name);
		if (viaGet !== undefined && viaGet !== null) return viaGet;
	}
	const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
	return key ? record[key] : undefined;
}
