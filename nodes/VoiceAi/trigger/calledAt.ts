// What a record's calledAt stamps (docs/api.md leaves it open), learned from the records
// themselves: the call's start (calledAt plus durationSeconds is when it ended) or its end. Only a
// record read for the first time already ended, in a campaign watched since the baseline, needs
// it: did it end before watching began? Where the two readings disagree, that record waits until
// the records tell which one the API uses.
import type { IDataObject } from 'n8n-workflow';

import type { CallRead } from './callRecords';
import { signedAttempt } from './callRecords';

export type CalledAtMeaning = 'start' | 'end';

export const calledAtSettings = {
	/**
	 * The clock error the rules allow for: the API's Date header counts whole seconds, n8n's clock
	 * and the API's drift apart, and calledAt may come from another clock of the API's. Tests of a
	 * model with exact clocks make it smaller, so that their short calls tell the meaning too.
	 */
	clockSlackMs: 5_000,
};
/** Records being called kept as probes while the meaning is not known. */
const MAX_PROBES = 32;
/** A probe older than this is let go (its record was not read again). */
const PROBE_MS = 3_600_000;
/** Attempts waiting for the meaning at most; beyond, the oldest are taken as ended before. */
export const MAX_UNDECIDED = 5_000;

/** An attempt that ended after watching began if calledAt is its start, and before if its end. */
export interface UndecidedAttempt {
	campaignId: string;
	phoneNumber: string;
	signature: number;
	/** What is reported if it ended after watching began. */
	item: IDataObject;
	/** Final Outcome Only, its campaign running: it is held in its table, not reported now. */
	waits?: true;
	/** The sweep of its campaign that read it (WatchedCampaign.sweeps then). */
	sweep: number;
}

export interface CalledAtState {
	/** Learned from the records; until then, undefined. */
	meaning?: CalledAtMeaning;
	/**
	 * Records seen being called, by campaign and number: when (by the API's clock), and the
	 * calledAt they showed then (null: none).
	 */
	probes?: Record<string, [number, number | null]>;
	/** Attempts waiting for the meaning, oldest first. */
	undecided?: UndecidedAttempt[];
}

/**
 * Learns the meaning from a record read at `readAt` (the API's clock), when one reading is
 * impossible:
 * - an ended record whose calledAt plus durationSeconds lies after the moment it was read: that
 *   sum is not its end, so calledAt is the end;
 * - a record seen being called at R, read later ended with the calledAt it showed then, before R:
 *   calledAt is not its end (that came after R), so it is the start.
 * The last only of a number listed once (`alone`, asked only then): the record before
 * (`before`, its signature) is its own. A calledAt shown while a call goes on tells nothing by itself: an API may show the
 * start then and the end once the call ended.
 */
export function learnMeaning(
	state: CalledAtState,
	campaignId: string,
	call: CallRead,
	readAt: number,
	record: { before?: number; alone: () => boolean },
): void {
	if (state.meaning) return;
	const key = `${campaignId} ${call.phoneNumber}`;
	const probes = (state.probes ??= {});
	const was = record.before === undefined ? undefined : signedAttempt(record.before);
	const alone = (was?.calling || call.status === 'calling') && record.alone();
	const seenCalling = alone && was?.calling ? probes[key] : undefined;
	if (call.status === 'calling' && alone) {
		if (probes[key] === undefined) {
			for (const [other, [at]] of Object.entries(probes)) {
				if (readAt - at > PROBE_MS) delete probes[other];
			}
			if (Object.keys(probes).length < MAX_PROBES) probes[key] = [readAt, call.calledAt ?? null];
		}
	} else {
		delete probes[key];
		if (!call.ended || call.calledAt === undefined) return;
		const slack = calledAtSettings.clockSlackMs;
		if (call.calledAt + call.durationMs > readAt + slack) state.meaning = 'end';
		else if (seenCalling?.[1] === call.calledAt && call.calledAt < seenCalling[0] - slack) {
			state.meaning = 'start';
		}
	}
	if (state.meaning) delete state.probes;
}

/**
 * Whether an ended record read for the first time ended after watching began (`since`, the API's
 * clock): `news`, `old`, or `undecided` while the meaning is not known and the readings disagree
 * (calledAt at or before `since`, calledAt plus durationSeconds after it). Without calledAt: old.
 */
export function endedAfter(
	state: CalledAtState,
	call: CallRead,
	since: number,
): 'news' | 'old' | 'undecided' {
	if (call.calledAt === undefined) return 'old';
	const asStart = call.calledAt + call.durationMs > since;
	const asEnd = call.calledAt > since;
	if (asStart === asEnd) return asStart ? 'news' : 'old';
	if (!state.meaning) return 'undecided';
	return (state.meaning === 'start' ? asStart : asEnd) ? 'news' : 'old';
}

/** Keeps an attempt until the meaning is known (the oldest let go beyond MAX_UNDECIDED). */
export function holdUndecided(state: CalledAtState, attempt: UndecidedAttempt): void {
	const undecided = (state.undecided ??= []);
	undecided.push(attempt);
	if (undecided.length > MAX_UNDECIDED) undecided.splice(0, undecided.length - MAX_UNDECIDED);
}

/**
 * The attempts that waited and now count as ended after watching began, taken out of the state
 * (the others that are settled are dropped): all of them once the meaning is known (none if it is
 * the end); until then, those whose campaign (in `swept`: id → its sweeps read to the end) has
 * been read in full after the sweep that read them. That read told nothing: the attempt is taken
 * by the start reading (an API stamping the end tells it by then, from the calls read less than
 * their length after they ended).
 */
export function settleUndecided(
	state: CalledAtState,
	swept: Map<string, number>,
): UndecidedAttempt[] {
	if (!state.undecided) return [];
	if (state.meaning) {
		const settled = state.meaning === 'start' ? state.undecided : [];
		delete state.undecided;
		return settled;
	}
	const waited = (attempt: UndecidedAttempt) =>
		(swept.get(attempt.campaignId) ?? 0) > attempt.sweep + 1;
	const settled = state.undecided.filter(waited);
	state.undecided = state.undecided.filter((attempt) => !waited(attempt));
	if (state.undecided.length === 0) delete state.undecided;
	return settled;
}
