import type {
	IDataObject,
	INodeExecutionData,
	IPollFunctions,
	NodeOperationError,
} from 'n8n-workflow';

import { listPage } from '../../shared/pagination';
import { runPoll, timeForAnotherRead, triggerSetting } from '../../shared/poll';
import { requireNumberInRange, requireOneOf } from '../../shared/validation';
import { CALL_OUTCOMES, readCall } from './callRecords';
import type { CampaignSummary, WatchedCampaign } from './callSweep';
import { campaignUnreadable, dataPath, sweepCampaign } from './callSweep';
import type { Campaign, CampaignWatchState } from './campaigns';
import { campaignBaseline, campaignsNow, isActive, newestCampaigns } from './campaigns';
import { MAX_DATA_REQUESTS_PER_POLL, REPORT_MODES } from './callFinishedDescription';

interface CallWatchState {
	campaigns: CampaignWatchState;
	watched: Record<string, WatchedCampaign>;
	/** Whose turn it is: the watched campaigns in the order their data is read. */
	queue: string[];
}

interface CallSettings {
	chosen?: string[];
	outcomes: string[];
	finalOnly: boolean;
	budget: number;
}

function readSettings(context: IPollFunctions): CallSettings {
	const chosen =
		context.getNodeParameter('campaignScope', 'all') === 'chosen'
			? (context.getNodeParameter('campaignIds', []) as string[]).map(String)
			: undefined;
	const outcomes = (context.getNodeParameter('outcomes', []) as string[]).map((outcome) =>
		requireOneOf(outcome, 'Outcomes', CALL_OUTCOMES),
	);
	const report = requireOneOf(context.getNodeParameter('report', 'everyAttempt'), 'Report', [
		...REPORT_MODES,
	]);
	const budget = Math.floor(
		requireNumberInRange(
			context.getNodeParameter('dataRequestsPerPoll', 20),
			'Data Requests per Poll',
			1,
			MAX_DATA_REQUESTS_PER_POLL,
		),
	);
	return { chosen, outcomes, finalOnly: report === 'finalOutcome', budget };
}

function summary(campaign: Campaign): CampaignSummary {
	const text = (value: unknown) => (typeof value === 'string' ? value : null);
	return {
		id: campaign.id,
		name: text(campaign.name),
		agentName: text(campaign.agentName),
		status: campaign.status,
	};
}

/** The item: the record as the API sent it, with its campaign. */
const callItem = (record: IDataObject, campaign: CampaignSummary): IDataObject => ({
	...record,
	campaignId: campaign.id,
	campaign: { ...campaign },
});

/** A baseline of one campaign: what its data holds now, reported by nobody. */
function recordAll(watched: WatchedCampaign, records: IDataObject[]): void {
	for (const record of records) {
		const call = readCall(record);
		if (call.status !== 'pending') watched.numbers[call.phoneNumber] = call.signature;
	}
}

/**
 * What a page of a watched campaign's data reports, and the numbers' state after it: an ended
 * attempt not read before (Every Attempt), or an answered call and, in the campaign's last read,
 * each number's last attempt kept back (Final Outcome Only).
 */
function reportRecords(
	watched: WatchedCampaign,
	records: IDataObject[],
	settings: CallSettings,
): IDataObject[] {
	if (watched.silent) {
		recordAll(watched, records);
		return [];
	}
	const items: IDataObject[] = [];
	const report = (record: IDataObject, status: string) => {
		if (settings.outcomes.length === 0 || settings.outcomes.includes(status)) {
			items.push(callItem(record, watched.campaign));
		}
	};
	for (const record of records) {
		const call = readCall(record);
		const stored = watched.numbers[call.phoneNumber];
		if (stored === undefined && call.status === 'pending') continue;
		const held = stored?.startsWith('*') ?? false;
		const last = held ? stored.slice(1) : stored;
		let next = stored;
		if (call.signature !== last) {
			if (!call.ended) next = (held ? '*' : '') + call.signature;
			else if (!settings.finalOnly || call.status === 'answered') {
				report(record, call.status);
				next = call.signature;
			} else next = `*${call.signature}`;
		}
		if (settings.finalOnly && watched.ended && call.ended && next.startsWith('*')) {
			report(record, call.status);
			next = next.slice(1);
		}
		watched.numbers[call.phoneNumber] = next;
	}
	return items;
}

/** The campaigns to watch of those a poll saw (All Campaigns, or the chosen ones). */
const wanted = (settings: CallSettings) => (campaign: Campaign) =>
	!settings.chosen || settings.chosen.includes(campaign.id);

/**
 * The first poll: the campaigns running now are watched, their data read silently (what it holds
 * is the baseline, reported by nobody). That read is spread over polls by their time: it goes on
 * at the next polls, before anything of those campaigns is reported.
 */
async function baseline(context: IPollFunctions, settings: CallSettings): Promise<CallWatchState> {
	const campaigns = await campaignBaseline(context);
	const watched: Record<string, WatchedCampaign> = {};
	for (const id of Object.keys(campaigns.active)) {
		if (settings.chosen && !settings.chosen.includes(id)) continue;
		watched[id] = {
			campaign: { id, name: null, agentName: null, status: campaigns.active[id] },
			numbers: {},
			cursor: null,
			ended: false,
			silent: true,
		};
	}
	// A campaign that cannot be read is read again at the next poll (and reported then).
	return (await readData(context, settings, { campaigns, watched, queue: Object.keys(watched) }))
		.state;
}

/**
 * Reads the watched campaigns' data in turn, from where the last poll stopped, within the poll's
 * budget of data requests (not for a baseline read) and its time. A campaign not read to its end
 * keeps its place at the head of the queue; one read to its end goes to the back, or leaves once
 * it has ended; one whose read failed goes to the back too, its failure in `failures` while the
 * others are reported (when none could be read at all, the poll fails). Time too short for a read
 * after finding the campaigns leaves the reads to the next poll; a read that finds the API not
 * answering in the poll's time fails the poll, unless some data was read before it.
 */
async function readData(
	context: IPollFunctions,
	settings: CallSettings,
	state: CallWatchState,
): Promise<{ items: IDataObject[]; state: CallWatchState; failures: unknown[] }> {
	const { watched } = state;
	const items: IDataObject[] = [];
	let budget = settings.budget;
	let read = false;
	const waiting: string[] = [];
	const swept: string[] = [];
	const unreadable: string[] = [];
	const failures: NodeOperationError[] = [];
	for (const id of state.queue.filter((queued) => watched[queued])) {
		const entry = watched[id];
		// A baseline read costs no Data Requests per Poll: it reports nothing.
		const allowed = entry.silent ? Infinity : budget;
		if (allowed <= 0 || !timeForAnotherRead(context)) {
			waiting.push(id);
			continue;
		}
		const sweep = await sweepCampaign(
			context,
			entry,
			allowed,
			(records) => items.push(...reportRecords(entry, records, settings)),
			read,
		);
		if (!entry.silent) budget -= sweep.requests;
		read ||= sweep.requests > 0;
		entry.cursor = sweep.cursor;
		if (sweep.failed !== undefined) {
			failures.push(campaignUnreadable(context, entry.campaign, sweep.failed));
			unreadable.push(id);
		} else if (!sweep.complete) waiting.push(id);
		else if (entry.ended) delete watched[id];
		else {
			delete entry.silent;
			swept.push(id);
		}
	}
	if (failures.length > 0 && !read) throw failures[0];
	const queue = [...waiting, ...swept, ...unreadable];
	return { items, state: { ...state, watched, queue }, failures };
}

/**
 * One poll: which campaigns to read (new ones, ended ones for a last read), then their data in
 * turn (readData).
 */
async function poll(
	context: IPollFunctions,
	settings: CallSettings,
	previous: CallWatchState,
): Promise<{ items: IDataObject[]; state: CallWatchState; failures: unknown[] }> {
	// Changed on a copy: a poll that fails leaves the stored state as it was.
	const state = JSON.parse(JSON.stringify(previous)) as CallWatchState;
	const { now, unresolved, state: campaigns } = await campaignsNow(context, state.campaigns);
	const watched = state.watched;
	for (const campaign of [...now.values()].filter(wanted(settings))) {
		const entry = watched[campaign.id];
		if (!entry) {
			// New since the baseline: every attempt of it is news.
			const fresh = { campaign: summary(campaign), numbers: {}, cursor: null, ended: false };
			watched[campaign.id] = fresh;
			state.queue.push(campaign.id);
		}
		const current = watched[campaign.id];
		current.campaign = summary(campaign);
		if (!isActive(campaign) && !current.ended) {
			// Its last read starts now, after it ended: what landed before the end is all there.
			current.ended = true;
			current.cursor = null;
		}
	}
	for (const id of Object.keys(watched)) {
		// Active at the last poll and gone now (deleted): nothing more to read.
		if (!now.has(id) && !unresolved.has(id) && id in state.campaigns.active) delete watched[id];
	}
	return await readData(context, settings, { ...state, campaigns });
}

/** Fetch Test Event: an ended call of one of the newest campaigns, as the event gives it. */
async function sample(context: IPollFunctions, settings: CallSettings): Promise<IDataObject[]> {
	const campaigns = (await newestCampaigns(context)).filter(wanted(settings)).slice(0, 3);
	for (const campaign of campaigns) {
		const { items } = await listPage.call(context, dataPath(campaign.id), {
			missingAsUndefined: true,
		});
		const calls = items.map((record) => ({ record, call: readCall(record) }));
		const found = calls.find(
			({ call }) =>
				call.ended &&
				(settings.outcomes.length === 0 || settings.outcomes.includes(call.status)) &&
				(!settings.finalOnly || call.status === 'answered' || !isActive(campaign)),
		);
		if (found) return [callItem(found.record, summary(campaign))];
	}
	return [];
}

/** Call Finished: every call attempt that ended in the watched campaigns, once. */
export async function pollCallFinished(
	context: IPollFunctions,
): Promise<INodeExecutionData[][] | null> {
	const settings = triggerSetting(context, () => readSettings(context));
	const key = `callFinished:${settings.finalOnly ? 'final' : 'every'}:${settings.chosen?.join(',') ?? '*'}`;
	return await runPoll<CallWatchState>(context, key, {
		baseline: async () => await baseline(context, settings),
		poll: async (state) => await poll(context, settings, state),
		sample: async () => await sample(context, settings),
	});
}
