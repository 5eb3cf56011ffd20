// What a call campaign of the sandbox has really done, to hold Call Finished's items against (the
// integration, e2e and queue suites and the bench): every call attempt that has ended so far,
// from the sandbox's records and the scripts they play out (sandbox/data/callScripts.mjs).
import { callScript } from '../sandbox/data.mjs';

export const CALL_OUTCOMES = ['answered', 'no_answer', 'busy', 'failed'];

/** An attempt's key: the number and which attempt it was. */
export const attemptKey = (phone, attempt) => `${phone}#${attempt}`;

/** The key of a Call Finished item (the record's own fields, in docs/api.md's spelling or snake). */
export const itemKey = (item) => attemptKey(item.phoneNumber ?? item.phone, item.attempts);

/**
 * Every attempt of the campaign that has ended, key → its outcome.
 * @param {{ state: any, options: { seed: number } }} sandbox @param {{ id: string }} campaign
 * @returns {Map<string, string>}
 */
export function endedAttempts(sandbox, campaign) {
	const ended = new Map();
	const records = sandbox.state.campaignData.get(campaign.id) ?? [];
	records.forEach((record, index) => {
		const script = callScript(Number(sandbox.options.seed) >>> 0, campaign.id, index);
		const done = CALL_OUTCOMES.includes(record.status) ? record.attempts : record.attempts - 1;
		for (let attempt = 1; attempt <= done; attempt++) {
			ended.set(attemptKey(record.phoneNumber, attempt), script[attempt - 1].outcome);
		}
	});
	return ended;
}

/** Each number's last record once the campaign has ended: key of its last attempt → its status. */
export function finalOutcomes(sandbox, campaign) {
	const records = sandbox.state.campaignData.get(campaign.id) ?? [];
	return new Map(records.map((r) => [attemptKey(r.phoneNumber, r.attempts), r.status]));
}

/** The keys that come more than once among `items` (nothing may be reported twice). */
export function doubled(items) {
	const seen = new Set();
	return items.map(itemKey).filter((key) => (seen.has(key) ? true : (seen.add(key), false)));
}
