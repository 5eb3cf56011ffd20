import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { listPages, MAX_PAGE_SIZE } from '../../shared/pagination';
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
	/**
	 * Per number, the signature (callRecords.ts) of the last state read; `*` before it: an ended
	 * attempt kept for the final report (Final Outcome Only). A number still pending is absent.
	 */
	numbers: Record<string, string>;
	/** The sweep under way, or null: the next read starts at the first page. */
	cursor: SweepCursor | null;
	/** The campaign has ended: the sweep under way started after that and is its last. */
	ended: boolean;
}

export const dataPath = (campaignId: string) => path`/voice/campaigns/${campaignId}/data`;

/**
 * Reads a campaign's data from where its sweep stopped, at most `budget` pages, handing each
 * page's records to `onRecords`. Resolves to the requests made, whether the sweep reached the
 * last page, and where the next one goes on. A campaign gone (404) reads as no records.
 */
export async function sweepCampaign(
	context: IPollFunctions,
	watched: WatchedCampaign,
	budget: number,
	onRecords: (records: IDataObject[]) => void,
): Promise<{ requests: number; complete: boolean; cursor: SweepCursor | null }> {
	let requests = 0;
	const start = watched.cursor;
	for await (const page of listPages.call(context, dataPath(watched.campaign.id), {
		pageSize: MAX_PAGE_SIZE,
		firstPage: start?.page ?? 1,
		startQuery: start?.query,
		pagesMayShift: true,
		missingAsUndefined: true,
		errorContext: { resource: 'Campaign', id: watched.campaign.id },
	})) {
		requests++;
		onRecords(page.items);
		if (page.nextPage === undefined || !page.nextQuery) {
			return { requests, complete: true, cursor: null };
		}
		if (requests >= budget) {
			return {
				requests,
				complete: false,
				cursor: { page: page.nextPage, query: page.nextQuery },
			};
		}
	}
	// The page loop ended without a page (an API that repeated a page it had sent).
	return { requests, complete: true, cursor: null };
}

/** Every record of a campaign's data (the first poll's baseline, which reads it all once). */
export async function allCampaignData(
	context: IPollFunctions,
	campaignId: string,
): Promise<IDataObject[]> {
	const records: IDataObject[] = [];
	for await (const { items } of listPages.call(context, dataPath(campaignId), {
		missingAsUndefined: true,
		errorContext: { resource: 'Campaign', id: campaignId },
	})) {
		records.push(...items);
	}
	return records;
}
