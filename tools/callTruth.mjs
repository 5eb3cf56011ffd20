// What a call campaign of the sandbox has really done, to hold Call Finished's items against (the
// integration, e2e and queue suites and the bench): every call attempt that has ended so far,
// from the sandbox's records and the scripts they play out (sandbox/data/callScripts.mjs).
//
// A number listed twice in a campaign (startCallCampaign's `duplicates`) has two records, each
// with its own calls: the same key (number and attempt) may then end twice. The counts below
// (key → how many records ended that attempt) hold items to that; endedAttempts and
// finalOutcomes, one entry per key, serve campaigns whose numbers are all different.
import { callScript } from '../sandbox/data.mjs';

export const CALL_OUTCOMES = ['answered', 'no_answer', 'busy', 'failed'];

/** An attempt's key: the number and which attempt it was. */
export const attemptKey = (phone, attempt) => `${phone}#${attempt}`;

/** The key of a Call Finished item (the record's own fields, in docs/api.md's spelling or snake). */
export const itemKey = (item) => attemptKey(item.phoneNumber ?? item.phone, item.attempts);

/**
 * Every ended attempt of every record of the campaign, in the data's order: its key, its outcome
 * and the record's place in the data.
 * @param {{ state: any, options: { seed: number } }} sandbox @param {{ id: string }} campaign
 * @returns {Array<{ key: string, outcome: string, index: number }>}
 */
export function endedAttemptList(sandbox, campaign) {
	const ended = [];
	const records = sandbox.state.campaignData.get(campaign.id) ?? [];
	records.forEach((record, index) => {
		const script = callScript(Number(sandbox.options.seed) >>> 0, campaign.id, index);
		const done = CALL_OUTCOMES.includes(record.status) ? record.attempts : record.attempts - 1;
		for (let attempt = 1; attempt <= done; attempt++) {
			ended.push({
				key: attemptKey(record.phoneNumber, attempt),
				outcome: script[attempt - 1].outcome,
				index,
			});
		}
	});
	return ended;
}

/**
 * Every attempt of the campaign that has ended, key → its outcome (with a number listed twice,
 * the later record's: use endedAttemptCounts).
 * @param {{ state: any, options: { seed: number } }} sandbox @param {{ id: string }} campaign
 * @returns {Map<string, string>}
 */
export function endedAttempts(sandbox, campaign) {
	return new Map(endedAttemptList(sandbox, campaign).map(({ key, outcome }) => [key, outcome]));
}

/** How many times each key comes among `keys`: a multiset. @param {Iterable<string>} keys */
export function countKeys(keys) {
	const counts = new Map();
	for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
	return counts;
}

/** Every attempt of the campaign that has ended, key → how many records ended it. */
export function endedAttemptCounts(sandbox, campaign) {
	return countKeys(endedAttemptList(sandbox, campaign).map(({ key }) => key));
}

/** Each number's last record once the campaign has ended: key of its last attempt → its status. */
export function finalOutcomes(sandbox, campaign) {
	const records = sandbox.state.campaignData.get(campaign.id) ?? [];
	return new Map(records.map((r) => [attemptKey(r.phoneNumber, r.attempts), r.status]));
}

/** Each record's last attempt: its key → how many records ended there (pending ones left out). */
export function finalOutcomeCounts(sandbox, campaign) {
	const records = sandbox.state.campaignData.get(campaign.id) ?? [];
	return countKeys(
		records
			.filter((r) => CALL_OUTCOMES.includes(r.status))
			.map((r) => attemptKey(r.phoneNumber, r.attempts)),
	);
}

/**
 * The keys that come more often among `items` than they may: more than once, or, given
 * `counts` (key → how many records ended that attempt), more than that. Each extra time is
 * listed once (nothing may be reported twice).
 * @param {Array<Record<string, unknown>>} items @param {Map<string, number>} [counts]
 */
export function doubled(items, counts) {
	const seen = new Map();
	return items.map(itemKey).filter((key) => {
		const times = (seen.get(key) ?? 0) + 1;
		seen.set(key, times);
		return times > (counts ? Math.max(1, counts.get(key) ?? 0) : 1);
	});
}

/**
 * `items` held against `expected` (key → how many times it must come), as multisets: the keys
 * missing (each time it is short) and the ones extra (each time too many, unexpected ones too).
 * Both empty: every expected attempt came, as many times as its records ended it.
 * @param {Array<Record<string, unknown>>} items @param {Map<string, number>} expected
 */
export function compareCounts(items, expected) {
	const got = countKeys(items.map(itemKey));
	const missing = [];
	const extra = [];
	for (const key of new Set([...expected.keys(), ...got.keys()])) {
		const difference = (got.get(key) ?? 0) - (expected.get(key) ?? 0);
		for (let i = 0; i < Math.abs(difference); i++) (difference > 0 ? extra : missing).push(key);
	}
	return { missing: missing.sort(), extra: extra.sort() };
}

/** `counts` without what `before` had (a multiset difference; keys left at 0 dropped). */
export function countsSince(counts, before) {
	const since = new Map();
	for (const [key, times] of counts) {
		const left = times - (before.get(key) ?? 0);
		if (left > 0) since.set(key, left);
	}
	return since;
}

/**
 * Each record's state now, for endedSinceWatching: taken just before a trigger starts watching the
 * campaign (before its workflow is activated). `endedAt` is when the record's last attempt really
 * ended, whatever `calledAtStamps` serves: the sandbox keeps the call's start in its own records
 * (`calledAt` plus `durationSeconds` is the end) and stamps the end only on the records it answers
 * (sandbox/api/calls.mjs), so this reads the state, never an answer.
 * @returns {Array<{ phoneNumber: string, status: string, attempts: number, endedAt?: number }>}
 */
export function recordsNow(sandbox, campaign) {
	const records = sandbox.state.campaignData.get(campaign.id) ?? [];
	return records.map(({ phoneNumber, status, attempts, calledAt, durationSeconds }) => ({
		phoneNumber,
		status,
		attempts,
		...(CALL_OUTCOMES.includes(status) && calledAt
			? { endedAt: Date.parse(calledAt) + (durationSeconds ?? 0) * 1000 }
			: {}),
	}));
}

/**
 * What Call Finished must report of a campaign it began watching at a moment not before `from`
 * (ms), with the records as `before` (recordsNow) held them then. `expected`: every attempt
 * dialed since that has ended, once per record (key → times). `either` (may come, at most once):
 * the attempt a record was on when watching began, if it has ended since (its own time, calledAt
 * plus durationSeconds, which the first read goes by, may fall before that moment: an unanswered
 * call has no duration); and the attempt a record had ended then whose own time is at or after
 * `from` (within the millisecond watching began). Any other attempt ended before watching began
 * must not come.
 * @param {{ state: any }} sandbox @param {{ id: string }} campaign
 * @param {ReturnType<typeof recordsNow>} before @param {{ from: number }} watching
 */
export function endedSinceWatching(sandbox, campaign, before, { from }) {
	const expected = [];
	const either = [];
	const records = sandbox.state.campaignData.get(campaign.id) ?? [];
	records.forEach((record, index) => {
		const was = before[index] ?? { status: 'pending', attempts: 0 };
		const key = (attempt) => attemptKey(record.phoneNumber, attempt);
		const done = CALL_OUTCOMES.includes(record.status) ? record.attempts : record.attempts - 1;
		if (was.status === 'calling' && done >= was.attempts) either.push(key(was.attempts));
		if (was.endedAt !== undefined && was.endedAt >= from) either.push(key(was.attempts));
		for (let attempt = was.attempts + 1; attempt <= done; attempt++) expected.push(key(attempt));
	});
	return { expected: countKeys(expected), either: countKeys(either) };
}

/**
 * `items` held to endedSinceWatching's answer: `missing`, each time an expected attempt did not
 * come; `extra`, each time one came more often than expected and allowed (`either`) together.
 * @param {Array<Record<string, unknown>>} items
 * @param {{ expected: Map<string, number>, either: Map<string, number> }} truth
 */
export function heldToTruth(items, { expected, either }) {
	const got = countKeys(items.map(itemKey));
	const missing = [];
	const extra = [];
	for (const [key, times] of expected) {
		for (let i = got.get(key) ?? 0; i < times; i++) missing.push(key);
	}
	for (const [key, times] of got) {
		const allowed = (expected.get(key) ?? 0) + (either.get(key) ?? 0);
		for (let i = allowed; i < times; i++) extra.push(key);
	}
	return { missing: missing.sort(), extra: extra.sort() };
}

/**
 * Every Attempt items with `skippedAttempts` (attempts of the number that ended between two reads
 * without an item of their own), held to endedSinceWatching's answer number by number: each item
 * stands for itself and the attempts it says were skipped. Resolves to the numbers whose attempts
 * are not all accounted for, or accounted for more than once: `[phone, accounted, expected]`.
 * @param {Array<Record<string, unknown>>} items
 * @param {{ expected: Map<string, number>, either: Map<string, number> }} truth
 */
export function unaccounted(items, { expected, either }) {
	const phoneOf = (key) => key.slice(0, key.lastIndexOf('#'));
	const sum = (counts) => {
		const byPhone = new Map();
		for (const [key, times] of counts) {
			byPhone.set(phoneOf(key), (byPhone.get(phoneOf(key)) ?? 0) + times);
		}
		return byPhone;
	};
	const least = sum(expected);
	const most = sum(either);
	const accounted = new Map();
	for (const item of items) {
		const phone = String(item.phoneNumber ?? item.phone);
		const stands = 1 + (Number(item.skippedAttempts) || 0);
		accounted.set(phone, (accounted.get(phone) ?? 0) + stands);
	}
	const wrong = [];
	for (const phone of new Set([...least.keys(), ...accounted.keys()])) {
		const got = accounted.get(phone) ?? 0;
		const min = least.get(phone) ?? 0;
		if (got < min || got > min + (most.get(phone) ?? 0)) wrong.push([phone, got, min]);
	}
	return wrong;
}
