import { sleep } from 'n8n-workflow';

/** The API's window for its request limit. Tests and benchmarks shorten it. */
export const pacingSettings = { windowMs: 60_000 };

/** Send times reserved per credential in this n8n process, oldest first. */
const reservations = new Map<string, number[]>();

/**
 * When the next request for `key` may go out so that no more than `limit` requests fall in any
 * window: now while fewer than `limit` were sent in the last window, else when the request
 * `limit` places back leaves it. The time is reserved at once, so requests of concurrent
 * executions queue up in order instead of all waking at the same moment.
 */
export function reserveSendTime(key: string, limit: number, now: number): number {
	// A little longer than the API's window: a request sent on time can still arrive a moment
	// after an earlier one that travelled slower (the first one also waits for the token).
	const windowMs = pacingSettings.windowMs + 250 + Math.round(pacingSettings.windowMs / 100);
	let times = reservations.get(key);
	if (!times) {
		times = [];
		reservations.set(key, times);
	}
	let expired = 0;
	while (expired < times.length && times[expired] <= now - windowMs) expired++;
	if (expired > 0) times.splice(0, expired);
	const at = times.length < limit ? now : Math.max(now, times[times.length - limit] + windowMs);
	times.push(at);
	return at;
}

/**
 * Waits for this credential's turn under its per-minute budget (0 or less: no pacing), so that
 * a long run stays under the API's limit on its own instead of leaning on 429 answers.
 */
export async function waitForRequestSlot(key: string, perMinute: number): Promise<void> {
	if (!Number.isFinite(perMinute) || perMinute <= 0) return;
	const now = Date.now();
	const at = reserveSendTime(key, Math.max(1, Math.floor(perMinute)), now);
	if (at > now) await sleep(at - now);
}

/** Forgets every reservation (tests). */
export function resetPacing(): void {
	reservations.clear();
}
