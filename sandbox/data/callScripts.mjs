// What happens to each number of a call campaign (api/calls.mjs plays it out step by step): the
// outcome of every attempt, drawn from the seed, the campaign's id and the number's place.
import { createRandom, hashString } from './random.mjs';
import { CALL_RESULTS } from './words.mjs';

/** Attempts per number at most (the first call and two retries). */
export const MAX_ATTEMPTS = 3;

/**
 * @typedef {'answered' | 'no_answer' | 'busy' | 'failed'} CallOutcome
 * @typedef {{ outcome: CallOutcome, durationSeconds: number, result: string | null }} AttemptScript
 */

/**
 * The attempts of the number at `index`: each ends answered, no_answer, busy or failed; a
 * no_answer or busy is retried about half of the time, up to MAX_ATTEMPTS.
 * @param {number} seed @param {string} campaignId @param {number} index
 * @returns {AttemptScript[]}
 */
export function callScript(seed, campaignId, index) {
	const random = createRandom(hashString(`${seed}:calls:${campaignId}:${index}`));
	/** @type {AttemptScript[]} */
	const attempts = [];
	for (;;) {
		const roll = random.next();
		if (roll < 0.5) {
			const result = random.pick(CALL_RESULTS);
			attempts.push({ outcome: 'answered', durationSeconds: random.int(20, 420), result });
			return attempts;
		}
		if (roll < 0.88) {
			attempts.push({
				outcome: roll < 0.72 ? 'no_answer' : 'busy',
				durationSeconds: 0,
				result: null,
			});
			if (attempts.length >= MAX_ATTEMPTS || random.next() < 0.5) return attempts;
			continue;
		}
		const result = random.pick(['invalid_number', 'network_error']);
		attempts.push({ outcome: 'failed', durationSeconds: 0, result });
		return attempts;
	}
}

/**
 * The numbers of a call campaign: distinct, in upload order.
 * @param {number} seed @param {string} campaignId @param {number} count
 */
export function callNumbers(seed, campaignId, count) {
	const random = createRandom(hashString(`${seed}:numbers:${campaignId}`));
	const base = random.int(10_000_000, 89_999_999 - count);
	return Array.from({ length: count }, (_, i) => `+347${base + i}`);
}
