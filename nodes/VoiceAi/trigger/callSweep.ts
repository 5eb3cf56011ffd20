import type { IDataObject, IPollFunctions, NodeOperationError } from 'n8n-workflow';

import { listPages, MAX_PAGE_SIZE } from '../../shared/pagination';
import {
	failsThePoll,
	pollError,
	rethrowUnlessTimeUp,
	timeForAnotherRead,
	unreadable,
} from '../../shared/poll';
import { PollTimeUp } from '../../shared/pollClock';
import { path } from '../../shared/transport';

/** Where a sweep of a campaign's data goes on at the next poll: the page and the query asking for it. */
export interface SweepCursor {
	page: number;
	query: IDataObject;
}

/** The campaign fields an item carries, so that one node can write a row without another request. */
export interface CampaignSummary extends IDataObject {
	id: string;
	name: string | null;
	agentName: string | null;
	status: string;
}

/** A campaign the trigger reads the data of. */
export interface WatchedCampaign {
	campaign: CampaignSummary;
	/** Its records as last read: a CallTable's text (callState.ts). */
	table: string;
	/** The sweep under way, or null: the next read starts at the first page. */
	cursor: SweepCursor | null;
	/** The campaign has ended: the sweeps from now on started after that and are its last. */
	ended: boolean;
	/** Sweeps read to their end since it ended (ENDED_CAMPAIGN_READS at most). */
	endedReads?: number;
	/**
	 * Being read for the baseline (what its data held when watching began), which is spread over
	 * polls by their time: nothing of it is reported, but an attempt that ended at or after `since`
	 * by the record's own time (calledAt.ts), against the API's clock.
	 */
	silent?: boolean;
	/**
	 * Its last sweep read to the end found every record ended and none changed: nothing is landing
	 * here (read in turn, with a share kept for such campaigns). Undone when the campaign list shows
	 * it changed (`listed`).
	 */
	quiet?: true;
	/** The sweep under way met a record pending, being called or changed. */
	stirred?: true;
	/** Its sweeps read to the end (the first read's included). */
	sweeps?: number;
	/** Its status and updatedAt as the campaign list last showed them. */
	listed?: string;
	/**
	 * When watching began (ms) by the API's clock (its Date header; n8n's without one), for a
	 * campaign watched since the baseline: a record of it read for the first time, in the first
	 * read or after it, is judged by it.
	 */
	since?: number;
}

export const dataPath = (campaignId: string) => path`/voice/campaigns/${campaignId}/data`;

/**
 * Reads a campaign's data from where its sweep stopped, at most `budget` pages and while the
 * poll's time allows, handing each page's records to `onRecords` (with the answer's Date, ms). Resolves to the requests made,
 * whether the sweep reached the last page, where the next one goes on, and `timeUp` when the
 * poll's time stopped it (no other read fits in this poll). A campaign gone (404)
 * reads as no records. `readBefore`: whether this poll read a page already (when its time ends
 * before the first page here, that page is read at the next poll; with nothing read, it fails).
 * A failure of this campaign's own (403, an answer the trigger cannot read) ends the sweep with
 * `failed`: what was read before it stands, and the cursor is where to go on. A failure of the
 * API or the credential (failsThePoll: 429, 5xx, timeouts, network) fails the poll.
 */
export async function sweepCampaign(
	context: IPollFunctions,
	watched: WatchedCampaign,
	budget: number,
	onRecords: (records: IDataObject[], second?: number) => void,
	readBefore = false,
): Promise<{
	requests: number;
	complete: boolean;
	cursor: SweepCursor | null;
	failed?: unknown;
	timeUp?: boolean;
}> {
	let requests = 0;
	let cursor = watched.cursor;
	const stopped = () => ({ requests, complete: false, cursor });
	let second: number | undefined;
	try {
		for await (const page of listPages.call(context, dataPath(watched.campaign.id), {
			pageSize: MAX_PAGE_SIZE,
			firstPage: cursor?.page ?? 1,
			startQuery: cursor?.query,
			pagesMayShift: true,
			missingAsUndefined: true,
			errorContext: { resource: 'Campaign', id: watched.campaign.id },
			answerDate: (date) => {
				second = date;
			},
		})) {
			requests++;
			onRecords(page.items, second);
			second = undefined;
			if (page.nextPage === undefined || !page.nextQuery) {
				return { requests, complete: true, cursor: null };
			}
			cursor = { page: page.nextPage, query: page.nextQuery };
			if (!timeForAnotherRead(context)) return { ...stopped(), timeUp: true };
			if (requests >= budget) return stopped();
		}
	} catch (error) {
		if (error instanceof PollTimeUp) {
			rethrowUnlessTimeUp(error, readBefore || requests > 0);
			return { ...stopped(), timeUp: true };
		}
		// An outage, a 429, a credential refused: the poll's failure, once, whatever campaign met it.
		if (failsThePoll(error)) throw pollError(context, error);
		return { ...stopped(), failed: error };
	}
	// The page loop ended without a page (an API that repeated a page it had sent).
	return { requests, complete: true, cursor: null };
}

/** A campaign as a failure names it: its name and ID, or its ID. */
export const campaignName = (campaign: CampaignSummary): string =>
	campaign.name ? `"${campaign.name}" (${campaign.id})` : `"${campaign.id}"`;

/**
 * A campaign whose data could not be read, named, for a failed execution of its own while the
 * other campaigns are reported; it keeps the cause of the failure.
 */
export const campaignUnreadable = (
	context: IPollFunctions,
	campaign: CampaignSummary,
	error: unknown,
): NodeOperationError =>
	unreadable(
		context,
		`The call data of campaign ${campaignName(campaign)}`,
		error,
		'The other campaigns are reported as usual; this one is read again from where it stopped at every poll, and its results come once it can be read.',
	);
