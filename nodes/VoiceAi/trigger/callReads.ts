// Where Call Finished's reads go in a poll (callFinished.ts decides which campaigns are watched):
// the watched campaigns' data, read in turn within Data Requests per Poll and the poll's time,
// first where calls land.
import type { IDataObject, IPollFunctions, NodeOperationError } from 'n8n-workflow';

import { answerMoment } from '../../shared/answerClock';
import type { InputError } from '../../shared/errors';
import { timeForAnotherRead } from '../../shared/poll';
import { signedAttempt } from './callRecords';
import { CallTable } from './callState';
import type { CalledAtState } from './calledAt';
import { settleUndecided } from './calledAt';
import type { WatchedCampaign } from './callSweep';
import { campaignUnreadable, sweepCampaign } from './callSweep';
import type { ReportSettings } from './callReports';
import { reportRecords } from './callReports';
import type { CampaignWatchState } from './campaigns';
import { ENDED_CAMPAIGN_READS } from './callFinishedDescription';

/** Of Data Requests per Poll, the quiet campaigns keep this part (1 / QUIET_SHARE) at least. */
export const QUIET_SHARE = 4;

export interface CallWatchState {
	campaigns: CampaignWatchState;
	watched: Record<string, WatchedCampaign>;
	/** Whose turn it is: the watched campaigns in the order their data is read. */
	queue: string[];
	/**
	 * Attempts that ended while the first poll read (it emits nothing): handed over by the next
	 * poll, first. A few, at most what ended during one poll.
	 */
	waiting?: IDataObject[];
	/** What calledAt stamps, as far as the records told (calledAt.ts). */
	calledAt?: CalledAtState;
}

export interface CallSettings extends ReportSettings {
	chosen?: string[];
	budget: number;
}

/**
 * Reads the watched campaigns' data in turn, from where the last poll stopped, while the poll's
 * time allows (docs/triggers.md, "Where the reads go"):
 * 1. the campaigns where calls land (not `quiet`) share Data Requests per Poll but a quarter of
 *    it kept for the quiet ones (in rounds: each not read to its end gets an equal share of what
 *    is left);
 * 2. the quiet campaigns, that kept share, in turn (the longest unread first);
 * 3. first reads (silent, costing none of it);
 * 4. the quiet campaigns again with what is left.
 * A campaign reads at most one sweep a poll. The queue of the next poll: those not read, those
 * read part of the way, those read to the end, then those whose read failed (the failures in
 * `failures`, while the others are reported; when none could be read, the poll fails). A campaign
 * that has ended leaves once a sweep after its end finds none of its calls `calling`
 * (ENDED_CAMPAIGN_READS at most). Time too short for a read after finding the campaigns leaves
 * the reads to the next poll; a read that finds the API not answering in the poll's time fails
 * the poll, unless some data was read before it.
 */
export async function readData(
	context: IPollFunctions,
	settings: CallSettings,
	state: CallWatchState,
): Promise<{ items: IDataObject[]; state: CallWatchState; failures: unknown[] }> {
	const { watched } = state;
	const calledAt = state.calledAt ?? {};
	const items: IDataObject[] = [];
	const failures: Array<NodeOperationError | InputError> = [];
	const tables = new Map<string, CallTable>();
	const order = state.queue.filter((queued) => watched[queued]);
	const outcome = new Map<string, 'partial' | 'swept' | 'unreadable'>();
	/** Ended campaigns read for the last time: they leave at the end of the poll. */
	const done = new Set<string>();
	/** Campaigns read to the end in this poll: their sweeps so far. */
	const swept = new Map<string, number>();
	let read = false;
	let timeUp = false;
	const timeLeft = () => !timeUp && timeForAnotherRead(context);

	/** One campaign's read of at most `allowed` pages, from its cursor; the requests it made. */
	const readCampaign = async (id: string, allowed: number): Promise<number> => {
		const entry = watched[id];
		// Read once a poll, written back once at its end (a campaign may be read in several rounds).
		const table = tables.get(id) ?? CallTable.decode(entry.table);
		tables.set(id, table);
		if (entry.cursor === null) {
			table.startSweep();
			delete entry.stirred;
		}
		let bad: InputError | undefined;
		const sweep = await sweepCampaign(
			context,
			entry,
			allowed,
			(records, second) => {
				const reading = { state: calledAt, readAt: answerMoment(second) };
				const page = reportRecords(entry, table, records, settings, reading);
				items.push(...page.items);
				if (page.stirred) entry.stirred = true;
				bad ??= page.bad;
			},
			read,
		);
		if (bad) failures.push(bad);
		read ||= sweep.requests > 0;
		timeUp ||= sweep.timeUp === true;
		entry.cursor = sweep.cursor;
		if (sweep.failed !== undefined) {
			failures.push(campaignUnreadable(context, entry.campaign, sweep.failed));
			outcome.set(id, 'unreadable');
		} else if (!sweep.complete) outcome.set(id, 'partial');
		else {
			// What waited for the meaning of calledAt may be settled by it (settleUndecided).
			entry.sweeps = (entry.sweeps ?? 0) + 1;
			swept.set(id, entry.sweeps);
			delete entry.silent;
			if (entry.stirred) delete entry.quiet;
			else entry.quiet = true;
			delete entry.stirred;
			outcome.set(id, 'swept');
			if (entry.ended) {
				const reads = (entry.endedReads ?? 0) + 1;
				const calling = [...table.seenSignatures()].some((sig) => signedAttempt(sig).calling);
				// A held record was read before the campaign ended, or held after its last read:
				// the next sweep reads it with the campaign ended and reports it if still the last.
				const unsettled = calling || table.hasHeld();
				if (unsettled && reads < ENDED_CAMPAIGN_READS) entry.endedReads = reads;
				else done.add(id);
			}
		}
		return sweep.requests;
	};

	/** Reads `ids` sharing `amount` requests (see above); the requests made. */
	const shareOut = async (ids: string[], amount: number): Promise<number> => {
		let left = amount;
		let open = ids;
		while (open.length > 0 && left > 0 && timeLeft()) {
			const share = Math.max(1, Math.floor(left / open.length));
			const next: string[] = [];
			for (const id of open) {
				if (left <= 0 || !timeLeft()) break;
				left -= await readCampaign(id, Math.min(share, left));
				if (outcome.get(id) === 'partial') next.push(id);
			}
			open = next;
		}
		return amount - left;
	};

	const reporting = order.filter((id) => !watched[id].silent);
	const quiet = reporting.filter((id) => watched[id].quiet);
	const landing = reporting.filter((id) => !watched[id].quiet);
	const kept =
		landing.length > 0 && quiet.length > 0 && settings.budget > 1
			? Math.min(quiet.length, Math.max(1, Math.floor(settings.budget / QUIET_SHARE)))
			: 0;
	let budget = settings.budget;
	budget -= await shareOut(landing, budget - kept);
	budget -= await shareOut(quiet, Math.min(kept, budget));
	for (const id of order.filter((queued) => watched[queued]?.silent)) {
		if (!timeLeft()) break;
		await readCampaign(id, Infinity);
	}
	const unread = (id: string) => watched[id] && [undefined, 'partial'].includes(outcome.get(id));
	await shareOut(quiet.filter(unread), budget);
	if (failures.length > 0 && !read) throw failures[0];
	// Once the records told what calledAt stamps: the attempts that waited for it and ended after
	// watching began are reported. Final Outcome Only: held in their table until a read after
	// their campaign ended, reported then if still the number's last. The others, and those of a
	// campaign that left before, are dropped.
	// A campaign read for the last time: no read will tell more.
	for (const id of done) swept.set(id, Infinity);
	for (const attempt of settleUndecided(calledAt, swept)) {
		const entry = watched[attempt.campaignId];
		let report = !attempt.waits;
		if (attempt.waits && entry) {
			const table = tables.get(attempt.campaignId) ?? CallTable.decode(entry.table);
			tables.set(attempt.campaignId, table);
			// Held in its table (a read of the record after the campaign ended reports it if it is
			// still the number's last: the table may not show a retry yet), unless this poll read
			// the campaign for the last time.
			const last = done.has(attempt.campaignId);
			report = table.stillShows(attempt.phoneNumber, attempt.signature, !last) && last;
		}
		const status = String(attempt.item.status ?? '');
		if (report && (settings.outcomes.length === 0 || settings.outcomes.includes(status))) {
			items.push(attempt.item);
		}
	}
	for (const id of done) delete watched[id];
	for (const [id, table] of tables) if (watched[id]) watched[id].table = table.encode();
	const queue = order.filter((id) => watched[id]);
	const placed = (kind?: string) => queue.filter((id) => outcome.get(id) === kind);
	return {
		items,
		state: {
			...state,
			watched,
			calledAt,
			queue: [
				...placed(undefined),
				...placed('partial'),
				...placed('swept'),
				...placed('unreadable'),
			],
		},
		failures,
	};
}
