import type { IDataObject, IPollFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import {
	apiRequest,
	apiRequestAllItems,
	MAX_PAGE_SIZE,
	path,
	toListPage,
} from '../../shared/transport';

export const ACTIVE_STATUSES = ['pending', 'in_progress'] as const;
export const FINAL_STATUSES = ['completed', 'cancelled', 'failed'];

interface Campaign extends IDataObject {
	id: string;
	status: string;
	createdAt: string;
}

/** The newest campaign seen: its creation time and every id created at that same instant. */
export interface NewestMarker {
	createdAt: string;
	ids: string[];
}

export interface CampaignWatchState {
	/** Status of every campaign that was pending or in progress at the last poll (final ones leave). */
	active: Record<string, string>;
	newest: NewestMarker | null;
}

function asCampaign(record: IDataObject): Campaign {
	return {
		...record,
		id: String(record.id),
		status: String(record.status),
		createdAt: String(record.createdAt),
	};
}

function markerOf(campaigns: Campaign[], previous: NewestMarker | null): NewestMarker | null {
	if (campaigns.length === 0) return previous;
	const newest = campaigns.reduce((a, b) =>
		Date.parse(b.createdAt) > Date.parse(a.createdAt) ? b : a,
	);
	const at = Date.parse(newest.createdAt);
	if (previous && Date.parse(previous.createdAt) > at) return previous;
	const sameInstant = campaigns.filter((c) => Date.parse(c.createdAt) === at).map((c) => c.id);
	const carried = previous && Date.parse(previous.createdAt) === at ? previous.ids : [];
	return { createdAt: newest.createdAt, ids: [...new Set([...carried, ...sameInstant])] };
}

function isAfterMarker(campaign: Campaign, marker: NewestMarker | null): boolean {
	if (!marker) return true;
	const at = Date.parse(campaign.createdAt);
	const markerAt = Date.parse(marker.createdAt);
	return at > markerAt || (at === markerAt && !marker.ids.includes(campaign.id));
}

/**
 * Campaigns created after the marker, newest first: pages of the newest-first list until a page
 * reaches campaigns already seen. One request when nothing or little is new.
 */
export async function campaignsCreatedSince(
	context: IPollFunctions,
	marker: NewestMarker | null,
	{ firstPageOnly = false } = {},
): Promise<{ created: Campaign[]; newestOnFirstPage: Campaign[] }> {
	const created: Campaign[] = [];
	let newestOnFirstPage: Campaign[] = [];
	for (let page = 1; ; page++) {
		const response = await apiRequest.call(context, 'GET', path`/voice/campaigns`, {
			qs: { page, limit: MAX_PAGE_SIZE, sort: 'desc' },
		});
		const { items, totalPages } = toListPage(response);
		const campaigns = items.map(asCampaign);
		if (page === 1) newestOnFirstPage = campaigns;
		const fresh = campaigns.filter((c) => isAfterMarker(c, marker));
		created.push(...fresh);
		const reachedSeen = fresh.length < campaigns.length;
		if (firstPageOnly || reachedSeen || !marker || campaigns.length === 0) break;
		if (totalPages === undefined || page >= totalPages) break;
	}
	return { created, newestOnFirstPage };
}

/** Every campaign now pending or in progress: one request per status while there are ≤ 100 of each. */
export async function activeCampaigns(context: IPollFunctions): Promise<Campaign[]> {
	const lists = await Promise.all(
		ACTIVE_STATUSES.map((status) =>
			apiRequestAllItems.call(context, path`/voice/campaigns`, {
				returnAll: true,
				qs: { status, sort: 'desc' },
			}),
		),
	);
	return lists.flat().map(asCampaign);
}

export async function campaignBaseline(context: IPollFunctions): Promise<CampaignWatchState> {
	const [{ newestOnFirstPage }, active] = await Promise.all([
		campaignsCreatedSince(context, null, { firstPageOnly: true }),
		activeCampaigns(context),
	]);
	return {
		active: Object.fromEntries(active.map((c) => [c.id, c.status])),
		newest: markerOf(newestOnFirstPage, null),
	};
}

/** New campaigns since the marker, oldest first, and the marker to keep. */
export async function pollNewCampaigns(
	context: IPollFunctions,
	marker: NewestMarker | null,
): Promise<{ created: Campaign[]; newest: NewestMarker | null }> {
	const { created } = await campaignsCreatedSince(context, marker);
	created.sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
	return { created, newest: markerOf(created, marker) };
}

export interface StatusChange extends IDataObject {
	campaignId: string;
	campaignName: string | null;
	previousStatus: string | null;
	status: string;
	campaign: IDataObject;
}

/**
 * One poll of campaign statuses. The cost does not grow with the number of campaigns: the
 * newest-first page, the pending and in-progress lists, and a single GET for each campaign
 * that left the active set since the last poll (to learn how it ended).
 */
export async function pollCampaignStatuses(
	context: IPollFunctions,
	state: CampaignWatchState,
): Promise<{ changes: StatusChange[]; state: CampaignWatchState }> {
	const [{ created }, active] = await Promise.all([
		campaignsCreatedSince(context, state.newest),
		activeCampaigns(context),
	]);
	const now = new Map<string, Campaign>();
	for (const campaign of [...created, ...active]) now.set(campaign.id, campaign);

	const left = Object.keys(state.active).filter((id) => !active.some((c) => c.id === id));
	for (const id of left) {
		if (now.has(id)) continue;
		try {
			const campaign = asCampaign(
				(await apiRequest.call(context, 'GET', path`/voice/campaigns/${id}`, {
					errorContext: { resource: 'Campaign', id },
				})) as IDataObject,
			);
			now.set(id, campaign);
		} catch (error) {
			// A campaign deleted on the provider's side has nothing more to report.
			if ((error as NodeApiError).httpCode !== '404') {
				throw new NodeApiError(context.getNode(), error as JsonObject);
			}
		}
	}

	const changes: StatusChange[] = [];
	for (const campaign of now.values()) {
		const known = Object.prototype.hasOwnProperty.call(state.active, campaign.id);
		const previousStatus = known ? state.active[campaign.id] : null;
		// A campaign first seen now counts as changed once it has moved past pending.
		const changed = known ? previousStatus !== campaign.status : campaign.status !== 'pending';
		if (changed) {
			changes.push({
				campaignId: campaign.id,
				campaignName: typeof campaign.name === 'string' ? campaign.name : null,
				previousStatus,
				status: campaign.status,
				campaign,
			});
		}
	}

	const nextActive: Record<string, string> = {};
	for (const campaign of now.values()) {
		if ((ACTIVE_STATUSES as readonly string[]).includes(campaign.status))
			nextActive[campaign.id] = campaign.status;
	}
	// The marker moves with what discovery saw only: a campaign met first in the active lists
	// (created during this poll) is still found, and so still announced, by the next discovery.
	return { changes, state: { active: nextActive, newest: markerOf(created, state.newest) } };
}
