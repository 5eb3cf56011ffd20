import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { answerMoment } from '../../shared/answerClock';
import { InputError } from '../../shared/errors';
import { listPage } from '../../shared/pagination';
import { runPoll, triggerSetting } from '../../shared/poll';
import { requireNumberInRange, requireOneOf } from '../../shared/validation';
import { CALL_OUTCOMES, readCall } from './callRecords';
import type { CalledAtState } from './calledAt';
import type { CampaignSummary, WatchedCampaign } from './callSweep';
import { dataPath } from './callSweep';
import { callItem } from './callReports';
import type { CallSettings, CallWatchState } from './callReads';
import { readData } from './callReads';
import type { Campaign } from './campaigns';
import { campaignBaseline, campaignsNow, isActive, newestCampaigns } from './campaigns';
import { MAX_DATA_REQUESTS_PER_POLL, REPORT_MODES } from './callFinishedDescription';

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

/** The campaigns to watch of those a poll saw (All Campaigns, or the chosen ones). */
const wanted = (settings: CallSettings) => (campaign: Campaign) =>
	!settings.chosen || settings.chosen.includes(campaign.id);

/**
 * The first poll: the campaigns running now are watched, their data read silently (what it holds
 * is the baseline, reported by nobody but for attempts that ended after watching began). That
 * read is spread over polls by their time: it goes on at the next polls.
 */
async function baseline(context: IPollFunctions, settings: CallSettings): Promise<CallWatchState> {
	// When watching began by the API's clock: the moment of its first answer.
	let since = answerMoment(undefined);
	let dated = false;
	const campaigns = await campaignBaseline(context, (second) => {
		if (!dated) since = answerMoment(second);
		dated = true;
	});
	const watched: Record<string, WatchedCampaign> = {};
	for (const id of Object.keys(campaigns.active)) {
		if (settings.chosen && !settings.chosen.includes(id)) continue;
		watched[id] = {
			campaign: { id, name: null, agentName: null, status: campaigns.active[id] },
			table: '',
			cursor: null,
			ended: false,
			silent: true,
			since,
		};
	}
	// A campaign that cannot be read is read again at the next poll (and reported then); a record
	// that cannot be read shows at activation, where the trigger is being set up.
	const first = await readData(context, settings, {
		campaigns,
		watched,
		queue: Object.keys(watched),
		calledAt: {},
	});
	const bad = first.failures.find((failure) => failure instanceof InputError);
	if (bad) throw bad;
	return { ...first.state, ...(first.items.length ? { waiting: first.items } : {}) };
}

/**
 * One poll: which campaigns to read (new ones, ended ones for their last reads), then their data
 * in turn (readData).
 */
async function poll(
	context: IPollFunctions,
	settings: CallSettings,
	previous: CallWatchState,
): Promise<{ items: IDataObject[]; state: CallWatchState; failures: unknown[] }> {
	// Changed on copies of the entries (their tables are texts, shared): a poll that fails leaves
	// the stored state as it was.
	const watched: Record<string, WatchedCampaign> = {};
	for (const [id, entry] of Object.entries(previous.watched)) watched[id] = { ...entry };
	const queue = [...previous.queue];
	// A copy through JSON: n8n hands static data over as proxies, which structuredClone refuses.
	const calledAt = JSON.parse(JSON.stringify(previous.calledAt ?? {})) as CalledAtState;
	const { now, unresolved, state: campaigns } = await campaignsNow(context, previous.campaigns);
	for (const campaign of [...now.values()].filter(wanted(settings))) {
		if (!watched[campaign.id]) {
			// New since the baseline: every attempt of it is news.
			watched[campaign.id] = {
				campaign: summary(campaign),
				table: '',
				cursor: null,
				ended: false,
			};
			queue.push(campaign.id);
		}
		const current = watched[campaign.id];
		current.campaign = summary(campaign);
		// The API may move updatedAt as calls land (not stated): a change ends a quiet spell.
		const listed = `${campaign.status} ${String(campaign.updatedAt ?? '')}`;
		if (current.listed !== undefined && current.listed !== listed) delete current.quiet;
		current.listed = listed;
		if (!isActive(campaign) && !current.ended) {
			// Its last reads start now, after it ended: what landed before the end is all there.
			current.ended = true;
			current.cursor = null;
		}
	}
	for (const id of Object.keys(watched)) {
		// Active at the last poll and gone now (deleted): nothing more to read.
		if (!now.has(id) && !unresolved.has(id) && id in previous.campaigns.active) delete watched[id];
	}
	const read = await readData(context, settings, { campaigns, watched, queue, calledAt });
	// What ended while the first poll read comes first.
	return { ...read, items: [...(previous.waiting ?? []), ...read.items] };
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
		if (!found) continue;
		// A sample has no read before it: no attempt of it counts as skipped.
		const skipped = found.call.attempts === undefined ? null : 0;
		return [callItem(found.record, summary(campaign), settings.finalOnly ? undefined : skipped)];
	}
	return [];
}

/** Call Finished: every call attempt that ended in the watched campaigns, once. */
export async function pollCallFinished(
	context: IPollFunctions,
): Promise<INodeExecutionData[][] | null> {
	const settings = triggerSetting(context, () => readSettings(context));
	const key = `callFinished3:${settings.finalOnly ? 'final' : 'every'}:${settings.chosen?.join(',') ?? '*'}`;
	return await runPoll<CallWatchState>(context, key, {
		baseline: async () => await baseline(context, settings),
		poll: async (state) => await poll(context, settings, state),
		sample: async () => await sample(context, settings),
	});
}
