// Call campaigns whose calls progress over time: each step, the numbers being called end
// (answered, no_answer, busy, failed), some of them are retried later (attempts + 1), free lines
// call the next numbers, and the campaign completes when every number is done. Steps come from
// `stepCalls()` (tests, the bench) or the sandbox's call timer (`callStepMs`, the demo).
import { MAX_ATTEMPTS, callNumbers, callScript, pendingCall } from '../data.mjs';
import { pageOf } from './validation.mjs';
import { insert, nowIso } from './records.mjs';

/**
 * @typedef {import('../api.mjs').ApiContext} ApiContext
 * @typedef {import('../api.mjs').RequestInput} RequestInput
 * @typedef {import('../data.mjs').Campaign} Campaign
 * @typedef {import('../data.mjs').CampaignDataRecord} CampaignDataRecord
 *
 * A call campaign being played out: its scripts (callScripts.mjs), the numbers on a line now,
 * the retries waiting, and when each record last changed (for `--call-data-order last-change`).
 * `endsWhileCalling`: the campaign completes while its last calls are on a line (they end at the
 * next step, without retries).
 * @typedef {{
 *   campaign: Campaign,
 *   records: CampaignDataRecord[],
 *   scripts: import('../data/callScripts.mjs').AttemptScript[][],
 *   lines: number,
 *   retryDelaySteps: number,
 *   endsWhileCalling: boolean,
 *   next: number,
 *   calling: number[],
 *   retries: Array<{ index: number, due: number }>,
 *   step: number,
 *   clockMs: number,
 *   changes: number,
 *   changedAt: number[],
 *   previousEnd: WeakMap<CampaignDataRecord, string>,
 * }} CallRun
 */

/** Steps a number waits between a no_answer or busy and its retry (by default). */
export const RETRY_DELAY_STEPS = 2;

/** Statuses of an attempt that ended. */
const ENDED = ['answered', 'no_answer', 'busy', 'failed'];

/** When an ended record's attempt ended (its calledAt is the start), as ISO text. @param {CampaignDataRecord} record */
const endOf = (record) =>
	new Date(
		Date.parse(/** @type {string} */ (record.calledAt)) + record.durationSeconds * 1000,
	).toISOString();

/**
 * A new campaign, pending, newer than every other one (list pages rely on that order).
 * @param {ApiContext} api @param {Partial<Campaign>} partial
 */
export function newCampaign({ state, newId }, partial) {
	const campaigns = state.campaigns;
	const newest = campaigns.length > 0 ? Date.parse(campaigns[campaigns.length - 1].createdAt) : 0;
	const at = new Date(Math.max(Date.now(), newest + 1)).toISOString();
	const number = campaigns.length + 1;
	/** @type {Campaign} */
	const campaign = {
		id: newId('cmp'),
		name: `Sandbox campaign ${number}`,
		status: 'pending',
		agentName: state.agents[state.agents.length - 1]?.name ?? 'Sales Lucia',
		mode: 'immediate',
		numberDid: campaigns[campaigns.length - 1]?.numberDid ?? '+34910000000',
		createdAt: at,
		updatedAt: at,
		fileName: `sandbox-campaign-${number}-numbers.csv`,
		startDate: at,
		...partial,
	};
	return insert(campaigns, campaign);
}

/**
 * The records of a call campaign: its numbers in upload order, then the `duplicates` of them
 * listed a second time (spread over the list, as a second upload of some of the same numbers
 * appended to the first), each record with its own calls.
 * @param {ApiContext} api @param {string} campaignId @param {number} count @param {number} duplicates
 */
function campaignRecords(api, campaignId, count, duplicates) {
	const numbers = callNumbers(api.seed, campaignId, count);
	const twice = Math.min(count, Math.max(0, Math.floor(duplicates)));
	for (let i = 0; i < twice; i++) numbers.push(numbers[Math.floor((i * count) / twice)]);
	return numbers.map(pendingCall);
}

/**
 * A pending call campaign of `numbers` numbers; `lines` are called at once (each step ends that
 * many calls: 5 % of the numbers by default); a retry waits `retryDelaySteps` steps. `duplicates`
 * of its numbers are listed twice (the second record later in the data: `numbers + duplicates`
 * records); with `endsWhileCalling`, its status turns `completed` as soon as no number is left to
 * dial and no retry waits, while its last calls are still `calling` (they end at the next step).
 * @param {ApiContext} api
 * @param {{ numbers?: number, lines?: number, name?: string, retryDelaySteps?: number, duplicates?: number, endsWhileCalling?: boolean }} [options]
 */
export function startCallCampaign(
	api,
	{
		numbers = 40,
		lines,
		name,
		retryDelaySteps = RETRY_DELAY_STEPS,
		duplicates = 0,
		endsWhileCalling = false,
	} = {},
) {
	const count = Math.max(1, Math.floor(numbers));
	const campaign = newCampaign(api, name ? { name } : {});
	if (!name) campaign.name = `Calls ${campaign.name.replace('Sandbox campaign ', '#')}`;
	campaign.fileName = `${campaign.name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.csv`;
	const records = campaignRecords(api, campaign.id, count, duplicates);
	api.state.campaignData.set(campaign.id, records);
	api.state.callRuns.set(campaign.id, {
		campaign,
		records,
		scripts: records.map((_, i) => callScript(api.seed, campaign.id, i)),
		lines: Math.max(1, Math.floor(lines ?? Math.round(count * 0.05))),
		retryDelaySteps,
		endsWhileCalling,
		next: 0,
		calling: [],
		retries: [],
		step: 0,
		clockMs: Date.now(),
		changes: 0,
		changedAt: new Array(records.length).fill(0),
		previousEnd: new WeakMap(),
	});
	return campaign;
}

/** @param {CallRun} run @param {number} index @param {CampaignDataRecord} record */
function change(run, index, record) {
	run.records[index] = record;
	run.changedAt[index] = ++run.changes;
}

/** @param {CallRun} run @param {number} index @param {number} attempt (1 for the first call) */
function dial(run, index, attempt) {
	run.calling.push(index);
	const record = run.records[index];
	// A retry's calledAt comes after the attempt before's, even within a millisecond.
	const last = record.calledAt ? Date.parse(record.calledAt) + 1 : 0;
	const calledAt = new Date(Math.max(run.clockMs, last)).toISOString();
	const calling = {
		...record,
		status: 'calling',
		attempts: attempt,
		durationSeconds: 0,
		result: null,
		calledAt,
	};
	// What an API stamping calledAt at the end shows while this attempt is on a line.
	if (ENDED.includes(record.status)) run.previousEnd.set(calling, endOf(record));
	change(run, index, calling);
}

/** @param {CallRun} run @param {import('../data.mjs').CampaignStatus} status */
function setStatus(run, status) {
	run.campaign.status = status;
	run.campaign.updatedAt = nowIso();
}

/**
 * One step of one call campaign: the calls on a line end, due retries and then new numbers take
 * the free lines, and the campaign completes when nothing is left to call (with
 * `endsWhileCalling`, when nothing is left to dial: its last calls then end at the next step,
 * and no retry follows them).
 * @param {CallRun} run
 */
function stepRun(run) {
	run.step++;
	// The real time: a record never says that a call ended after the moment it is read.
	run.clockMs = Math.max(Date.now(), run.clockMs);
	if (run.campaign.status === 'pending') setStatus(run, 'in_progress');
	const ended = run.campaign.status === 'completed';
	for (const index of run.calling) {
		const record = run.records[index];
		const script = run.scripts[index][record.attempts - 1];
		// Steps come faster than calls last: the call is placed back in time by its length, so that
		// calledAt + durationSeconds is when it ended (now at the latest), as it is for the real API.
		const placed = Math.min(
			Date.parse(record.calledAt),
			run.clockMs - script.durationSeconds * 1000,
		);
		change(run, index, {
			...record,
			status: script.outcome,
			durationSeconds: script.durationSeconds,
			result: script.result,
			calledAt: new Date(placed).toISOString(),
		});
		if (!ended && record.attempts < run.scripts[index].length)
			run.retries.push({ index, due: run.step + run.retryDelaySteps });
	}
	run.calling = [];
	if (ended) return;
	while (run.calling.length < run.lines && run.retries[0]?.due <= run.step) {
		const { index } = /** @type {{ index: number }} */ (run.retries.shift());
		dial(run, index, Math.min(run.records[index].attempts + 1, MAX_ATTEMPTS));
	}
	while (run.calling.length < run.lines && run.next < run.records.length) dial(run, run.next++, 1);
	const nothingToDial = run.retries.length === 0 && run.next >= run.records.length;
	if (nothingToDial && (run.calling.length === 0 || run.endsWhileCalling))
		setStatus(run, 'completed');
}

const FINAL = ['completed', 'cancelled', 'failed'];

/**
 * One step of every running call campaign (or only of `campaignId`'s); then, when
 * `callCampaigns` asks to keep that many running, new ones start (the demo always has calls
 * landing and a campaign to cancel).
 * @param {ApiContext & { options: { callCampaigns?: number, callCampaignNumbers?: number } }} api
 * @param {string} [campaignId]
 */
export function stepCalls(api, campaignId) {
	// A finished run stays (its data keeps its order); a cancelled one had its calls ended there.
	const running = () =>
		[...api.state.callRuns.values()].filter((r) => !FINAL.includes(r.campaign.status));
	// A campaign that completed while calls were on a line (endsWhileCalling) steps until they end.
	const stepped = [...api.state.callRuns.values()].filter(
		(r) =>
			!FINAL.includes(r.campaign.status) ||
			(r.campaign.status === 'completed' && r.calling.length > 0),
	);
	for (const run of stepped) if (!campaignId || run.campaign.id === campaignId) stepRun(run);
	const keep = api.options.callCampaigns ?? 0;
	while (running().length < keep) {
		startCallCampaign(api, { numbers: api.options.callCampaignNumbers ?? 40, lines: 2 });
	}
}

/** Whether the campaign's calls progress by steps (advanceOnce leaves it alone). @param {ApiContext} api @param {string} id */
export const isCallCampaign = (api, id) => api.state.callRuns.has(id);

/**
 * A record as `calledAtStamps` has it: `start` as kept; `end`: an ended attempt's calledAt is its
 * end, and while a number is being called it shows the end of its attempt before (null on the
 * first).
 * @param {ApiContext} api @param {CallRun | undefined} run @param {CampaignDataRecord} record
 */
function stamped(api, run, record) {
	if (api.options.calledAtStamps !== 'end' || !record.calledAt) return record;
	if (ENDED.includes(record.status)) return { ...record, calledAt: endOf(record) };
	if (record.status === 'calling') {
		return { ...record, calledAt: run?.previousEnd.get(record) ?? null };
	}
	return record;
}

/** Per shape of `callRecordShape`, the fields renamed (to '': left out); the others stay. */
const SHAPE_RENAMES = {
	snake: { phoneNumber: 'phone', durationSeconds: 'duration_seconds', calledAt: 'called_at' },
	minimal: { attempts: '', calledAt: '' },
	unknown: {
		phoneNumber: 'msisdn',
		status: 'outcome',
		attempts: 'tries',
		durationSeconds: '',
		result: '',
		calledAt: '',
	},
};

/**
 * A record in the shape `callRecordShape` chooses.
 * @param {string} shape @param {CampaignDataRecord} record
 */
function shaped(shape, record) {
	/** @type {Record<string, string> | undefined} */
	const renames = SHAPE_RENAMES[/** @type {keyof typeof SHAPE_RENAMES} */ (shape)];
	if (!renames) return record;
	return Object.fromEntries(
		Object.entries(record).flatMap(([name, value]) => {
			const to = name in renames ? renames[name] : name;
			return to ? [[to, value]] : [];
		}),
	);
}

/**
 * A page of a campaign's data, as the alternatives say: in upload order or the last changed
 * first, paged or all at once, each record in its shape.
 * @param {ApiContext} api @param {RequestInput} input @param {Campaign} campaign
 * @param {{ page: number, limit: number }} paging
 */
export function callDataAnswer(api, input, campaign, paging) {
	const records = api.state.campaignData.get(campaign.id) ?? [];
	const run = api.state.callRuns.get(campaign.id);
	let ordered = records;
	if (api.options.callDataOrder === 'last-change' && run) {
		const at = run.changedAt;
		const indexes = records.map((_, i) => i).sort((a, b) => at[b] - at[a] || a - b);
		ordered = indexes.map((i) => records[i]);
	}
	const all = api.options.callDataPaging === 'all';
	const answer = pageOf(api, input, ordered, {
		page: all ? 1 : paging.page,
		limit: all ? Math.max(1, ordered.length) : paging.limit,
		sort: 'asc',
	});
	// Only the page's records are shaped: a campaign of 100,000 numbers is read a page at a time.
	/** @param {CampaignDataRecord[]} page */
	const shape = (page) =>
		page.map((record) => shaped(api.options.callRecordShape, stamped(api, run, record)));
	if (Array.isArray(answer)) return shape(answer);
	for (const key of ['items', 'data'])
		if (Array.isArray(answer[key])) answer[key] = shape(answer[key]);
	return answer;
}
