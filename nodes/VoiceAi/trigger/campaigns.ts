import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import type { FieldContext } from '../../shared/answerFields';
import { dateField, textField } from '../../shared/answerFields';
import { apiRequestAllItems, listPages } from '../../shared/pagination';
import { readInTurn } from '../../shared/poll';
import { apiRequest, path } from '../../shared/transport';
import type { CampaignStatus } from '../actions/common';

/** Statuses a campaign can still leave (the others are final). */
export const ACTIVE_STATUSES: readonly CampaignStatus[] = ['pending', 'in_progress'];

export interface Campaign extends IDataObject {
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

const CAMPAIGN_RECORD: FieldContext = {
	subject: 'A campaign in the list',
	workaround:
		"The trigger needs each campaign's id, status and creation time. If your API names them differently, run Voice AI → Campaign → Get Many on a Schedule Trigger instead.",
};

/** A campaign as the trigger reads it; a field it relies on missing fails the poll, naming it. */
function asCampaign(record: IDataObject): Campaign {
	return {
		...record,
		id: textField(record, ['id'], CAMPAIGN_RECORD),
		status: textField(record, ['status'], CAMPAIGN_RECORD),
		createdAt: dateField(record, ['createdAt', 'created_at'], CAMPAIGN_RECORD),
	};
}

export function isActive(campaign: Campaign): boolean {
	return (ACTIVE_STATUSES as readonly string[]).includes(campaign.status);
}

export function markerOf(
	campaigns: Campaign[],
	previous: NewestMarker | null,
): NewestMarker | null {
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

/** Whether a page runs oldest first (an API that ignores `sort`): its newest come last. */
function oldestFirst(campaigns: Campaign[]): boolean {
	const [first, last] = [campaigns[0], campaigns[campaigns.length - 1]];
	return campaigns.length > 1 && Date.parse(first.createdAt) < Date.parse(last.createdAt);
}

const newestFirst = (a: Campaign, b: Campaign) => Date.parse(b.createdAt) - Date.parse(a.createdAt);

/**
 * The newest campaigns, newest first: the first page of the newest-first list (one request), or
 * every page when the API answers oldest first.
 */
export async function newestCampaigns(context: IPollFunctions): Promise<Campaign[]> {
	const campaigns: Campaign[] = [];
	for await (const { items } of listPages.call(context, path`/voice/campaigns`, {
		qs: { sort: 'desc' },
	})) {
		const page = items.map(asCampaign);
		campaigns.push(...page);
		if (!oldestFirst(page)) break;
	}
	return campaigns.sort(newestFirst);
}

/**
 * Campaigns created after the marker, newest first: pages of the newest-first list until a page
 * reaches campaigns already seen (one request when nothing or little is new), or every page when
 * the API answers oldest first.
 */
export async function campaignsCreatedSince(
	context: IPollFunctions,
	marker: NewestMarker,
): Promise<Campaign[]> {
	const created: Campaign[] = [];
	let ascending = false;
	for await (const { items } of listPages.call(context, path`/voice/campaigns`, {
		qs: { sort: 'desc' },
	})) {
		const campaigns = items.map(asCampaign);
		const fresh = campaigns.filter((c) => isAfterMarker(c, marker));
		created.push(...fresh);
		ascending ||= oldestFirst(campaigns);
		if (!ascending && (fresh.length < campaigns.length || campaigns.length === 0)) break;
	}
	return created.sort(newestFirst);
}

/** Every campaign now pending or in progress: one request per status while there are ≤ 100 of each. */
export async function activeCampaigns(
	context: IPollFunctions,
	answerDate?: (ms: number) => void,
): Promise<Campaign[]> {
	const lists = await Promise.all(
		ACTIVE_STATUSES.map((status) =>
			apiRequestAllItems.call(context, path`/voice/campaigns`, {
				returnAll: true,
				qs: { status, sort: 'desc' },
				answerDate,
				// An API that ignores the filter must not make finished campaigns look active.
				keep: (campaign) => campaign.status === status,
			}),
		),
	);
	return lists.flat().map(asCampaign);
}

export async function campaignBaseline(
	context: IPollFunctions,
	answerDate?: (ms: number) => void,
): Promise<CampaignWatchState> {
	const [newest, active] = await Promise.all([
		newestCampaigns(context),
		activeCampaigns(context, answerDate),
	]);
	return {
		active: Object.fromEntries(active.map((c) => [c.id, c.status])),
		newest: markerOf(newest, null),
	};
}

/** New campaigns since the marker, oldest first, and the marker to keep. */
export async function pollNewCampaigns(
	context: IPollFunctions,
	marker: NewestMarker | null,
): Promise<{ created: Campaign[]; newest: NewestMarker | null }> {
	const created = marker
		? await campaignsCreatedSince(context, marker)
		: await newestCampaigns(context);
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

export function statusChange(campaign: Campaign, previousStatus: string | null): StatusChange {
	return {
		campaignId: campaign.id,
		campaignName: typeof campaign.name === 'string' ? campaign.name : null,
		previousStatus,
		status: campaign.status,
		campaign,
	};
}

/** How a campaign that left the active lists ended, or undefined when it is gone (404). */
async function finalState(context: IPollFunctions, id: string): Promise<Campaign | undefined> {
	const campaign = await apiRequest.call(context, 'GET', path`/voice/campaigns/${id}`, {
		errorContext: { resource: 'Campaign', id },
		// A campaign deleted on the provider's side has nothing more to report.
		missingAsUndefined: true,
	});
	return campaign === undefined ? undefined : asCampaign(campaign as IDataObject);
}

/**
 * The campaigns one poll sees, by id: those created since the marker, those pending or in
 * progress, and how each one that left the active set since the last poll ended (one GET each;
 * a deleted one is left out). The cost does not grow with the number of campaigns. Those GETs
 * keep to the poll's time: a campaign not asked about (`unresolved`) keeps its last status and
 * is asked about at the next poll.
 */
export async function campaignsNow(
	context: IPollFunctions,
	state: CampaignWatchState,
): Promise<{ now: Map<string, Campaign>; unresolved: Set<string>; state: CampaignWatchState }> {
	const [created, active] = await Promise.all([
		state.newest ? campaignsCreatedSince(context, state.newest) : newestCampaigns(context),
		activeCampaigns(context),
	]);
	const now = new Map<string, Campaign>();
	for (const campaign of [...created, ...active]) now.set(campaign.id, campaign);
	const left = Object.keys(state.active).filter((id) => !now.has(id));
	const notAsked = await readInTurn(
		context,
		left,
		async (id) => {
			const campaign = await finalState(context, id);
			if (campaign) now.set(id, campaign);
		},
		// The lists above were read: what is left when the time is up waits for the next poll.
		{ readBefore: true },
	);
	const unresolved = new Set(notAsked);
	const nextActive: Record<string, string> = {};
	for (const id of unresolved) nextActive[id] = state.active[id];
	for (const campaign of now.values()) {
		if (isActive(campaign)) nextActive[campaign.id] = campaign.status;
	}
	// The marker moves with what discovery saw only: a campaign met first in the active lists
	// (created during this poll) is still found, and so still announced, by the next discovery.
	return {
		now,
		unresolved,
		state: { active: nextActive, newest: markerOf(created, state.newest) },
	};
}

/** One poll of campaign statuses: each campaign whose status differs from the last poll's. */
export async function pollCampaignStatuses(
	context: IPollFunctions,
	state: CampaignWatchState,
): Promise<{ changes: StatusChange[]; state: CampaignWatchState }> {
	const { now, state: next } = await campaignsNow(context, state);
	const changes: StatusChange[] = [];
	for (const campaign of now.values()) {
		const known = Object.prototype.hasOwnProperty.call(state.active, campaign.id);
		const previousStatus = known ? state.active[campaign.id] : null;
		// A campaign first seen now counts as changed once it has moved past pending.
		if (known ? previousStatus !== campaign.status : campaign.status !== 'pending') {
			changes.push(statusChange(campaign, previousStatus));
		}
	}
	return { changes, state: next };
}
