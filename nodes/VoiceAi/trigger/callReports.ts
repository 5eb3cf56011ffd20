// What Call Finished reports of the records it reads (callFinished.ts reads them): each record
// matched to its state (callState.ts), the attempts due, held back or counted as skipped, and the
// items with their campaign.
import type { IDataObject } from 'n8n-workflow';

import { InputError } from '../../shared/errors';
import type { CalledAtState } from './calledAt';
import { endedAfter, holdUndecided, learnMeaning } from './calledAt';
import type { CallRead } from './callRecords';
import { readCall, signedAttempt } from './callRecords';
import type { CallTable } from './callState';
import type { CampaignSummary, WatchedCampaign } from './callSweep';
import { campaignName } from './callSweep';

/** What the reports depend on of the trigger's settings. */
export interface ReportSettings {
	/** The outcomes reported (none: every one). */
	outcomes: string[];
	/** Final Outcome Only: a number's last attempt, once its campaign has ended (answered at once). */
	finalOnly: boolean;
}

/**
 * The item: the record as the API sent it, with its campaign; in Every Attempt, also how many
 * attempts of the number ended between two reads without an item of their own.
 */
export const callItem = (
	record: IDataObject,
	campaign: CampaignSummary,
	skippedAttempts?: number | null,
): IDataObject => ({
	...record,
	...(skippedAttempts === undefined ? {} : { skippedAttempts }),
	campaignId: campaign.id,
	campaign: { ...campaign },
});

/** A record's attempts as the table keeps them (modulo 16; 0 when the record does not say). */
const attemptsOf = (call: CallRead): number => signedAttempt(call.signature).attempts;

/**
 * The last attempt of a record read for the first time known to have ended: in a first read
 * (silent), the attempts before it (and itself, when it ended before watching began); in a
 * campaign watched from its start, none.
 */
function firstLastEnded(call: CallRead, silent: boolean, news: boolean): number {
	if (!silent) return 0;
	return call.ended && !news ? attemptsOf(call) : Math.max(0, attemptsOf(call) - 1);
}

/** Attempts of the record that ended unseen before this one, after `last`; null: not known. */
function skippedAttempts(call: CallRead, last: number): number | null {
	if (call.attempts === undefined) return null;
	return Math.max(0, ((((attemptsOf(call) - last) % 16) + 16) % 16) - 1);
}

/** A record that Call Finished cannot read (no number or status), named for a failed execution. */
function badRecord(campaign: CampaignSummary, error: unknown): InputError {
	const { message, description } = error as { message?: string; description?: string };
	return new InputError(
		`A record of campaign ${campaignName(campaign)} could not be read: ${message ?? String(error)}`,
		[
			description,
			'The other records and campaigns are reported as usual; this record is read again at every sweep.',
		]
			.filter(Boolean)
			.join('\n'),
	);
}

/** What reportRecords needs of the meaning of calledAt: its state, and the moment of the read. */
export interface CalledAtReading {
	state: CalledAtState;
	/** When the page was read, by the API's clock. */
	readAt: number;
}

/**
 * What a page of a watched campaign's data reports, the records' state changed in `table`: an
 * ended attempt not reported before (Every Attempt), or an answered call and, once the campaign
 * has ended, each number's last attempt held back (Final Outcome Only). A record read again in
 * the same sweep (pages that shifted) is skipped. A record read for the first time in a campaign
 * watched since the baseline reports only an attempt that ended after watching began, by its own
 * time (calledAt.ts: one that waits for the meaning of calledAt goes to its state). A record that
 * cannot be read is returned in `bad` (the first of the page), and the others go on. `stirred`:
 * a record of the page is pending or being called, or changed (calls are landing here).
 */
export function reportRecords(
	watched: WatchedCampaign,
	table: CallTable,
	records: IDataObject[],
	settings: ReportSettings,
	calledAt: CalledAtReading,
): { items: IDataObject[]; stirred: boolean; bad?: InputError } {
	const items: IDataObject[] = [];
	let bad: InputError | undefined;
	let stirred = false;
	for (const record of records) {
		let call: CallRead;
		try {
			call = readCall(record);
		} catch (error) {
			bad ??= badRecord(watched.campaign, error);
			continue;
		}
		const { slot, before, again } = table.find(call.phoneNumber, call.signature);
		if (again) continue;
		learnMeaning(calledAt.state, watched.campaign.id, call, calledAt.readAt, {
			before: before?.signature,
			alone: () => table.listings(call.phoneNumber) === 1,
		});
		// A record of a campaign watched since the baseline read for the first time (in its first
		// read, or later when pages that shifted hid it then): what it shows ended before watching
		// began unless its own time says otherwise.
		const firstRead = !before && watched.since !== undefined;
		const verdict =
			firstRead && call.ended ? endedAfter(calledAt.state, call, watched.since!) : 'old';
		const undecided = verdict === 'undecided';
		const news = verdict !== 'old';
		const changed = !before || before.signature !== call.signature;
		stirred ||= !call.ended || (firstRead ? news : changed);
		const last = before ? before.lastEnded : firstLastEnded(call, firstRead, news);
		const due = firstRead ? news : call.ended && (changed || before?.held === true);
		let held = false;
		let reported = false;
		if (due) {
			const waits = settings.finalOnly && call.status !== 'answered' && !watched.ended;
			const attempt = {
				campaignId: watched.campaign.id,
				phoneNumber: call.phoneNumber,
				signature: call.signature,
				sweep: watched.sweeps ?? 0,
			};
			if (waits && undecided) {
				// Held in the table once the meaning says it ended after watching began.
				const item = callItem(record, watched.campaign);
				holdUndecided(calledAt.state, { ...attempt, item, waits: true });
			} else if (waits) held = true;
			else {
				reported = true;
				if (settings.outcomes.length === 0 || settings.outcomes.includes(call.status)) {
					const skipped = settings.finalOnly ? undefined : skippedAttempts(call, last);
					const item = callItem(record, watched.campaign, skipped);
					if (undecided) holdUndecided(calledAt.state, { ...attempt, item });
					else items.push(item);
				}
			}
		}
		// An ended attempt reported, or known before: the last ended. One held, or a record being
		// called: the last ended stays, so an attempt that ends unseen counts as skipped.
		const lastEnded = call.ended && (!due || reported || undecided) ? attemptsOf(call) : last;
		table.set(slot, { signature: call.signature, held, lastEnded });
	}
	return { items, stirred, ...(bad ? { bad } : {}) };
}
