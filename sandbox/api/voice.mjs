// Voice endpoints: agents, campaigns (cancel, per-number data), billing balance and trends.
import { balanceAnswer } from '../alternatives.mjs';
import { createRandom, hashString } from '../data.mjs';
import { callDataAnswer } from './calls.mjs';
import { HttpError, failIfAny } from './errors.mjs';
import { findById } from './records.mjs';
import { transitionCampaign } from './transitions.mjs';
import { oneOf, pageOf, parsePaging } from './validation.mjs';

/**
 * @typedef {import('../api.mjs').ApiContext} ApiContext
 * @typedef {import('../api.mjs').Handler} Handler
 */

const CAMPAIGN_STATUSES = ['pending', 'in_progress', 'completed', 'cancelled', 'failed'];
const FINAL_CAMPAIGN_STATUSES = ['completed', 'cancelled', 'failed'];
const GRANULARITIES = ['day', 'week', 'month'];
const MAX_TREND_PERIODS = 1000;

/** @type {Handler} */
export function listAgents(api, input) {
	const paging = parsePaging(input.query);
	failIfAny(paging.errors);
	return { status: 200, body: pageOf(api, input, api.state.agents, paging) };
}

/** @type {Handler} */
export function getAgent(api, { params }) {
	const agent = findById(api.state.agents, params.id);
	if (!agent) throw new HttpError(404, 'Agent not found');
	return { status: 200, body: agent };
}

/** @type {Handler} */
export function listCampaigns(api, input) {
	const { query } = input;
	const paging = parsePaging(query);
	if (api.options.campaignOrder === 'asc') paging.sort = 'asc';
	if (query.status !== undefined && !CAMPAIGN_STATUSES.includes(query.status)) {
		paging.errors.push(oneOf('status', CAMPAIGN_STATUSES));
	}
	failIfAny(paging.errors);
	const campaigns = api.state.campaigns;
	const matching =
		query.status === undefined || api.options.ignoreStatusFilter
			? campaigns
			: campaigns.filter((c) => c.status === query.status);
	return { status: 200, body: pageOf(api, input, matching, paging) };
}

/** @param {ApiContext} api @param {string} id */
function requireCampaign(api, id) {
	const campaign = findById(api.state.campaigns, id);
	if (!campaign) throw new HttpError(404, 'Campaign not found');
	return campaign;
}

/** @type {Handler} */
export function getCampaign(api, { params }) {
	return { status: 200, body: requireCampaign(api, params.id) };
}

/** @type {Handler} */
export function cancelCampaign(api, { params }) {
	const campaign = requireCampaign(api, params.id);
	if (FINAL_CAMPAIGN_STATUSES.includes(campaign.status)) {
		throw new HttpError(409, `Campaign is already ${campaign.status}`);
	}
	transitionCampaign(api, campaign, 'cancelled');
	return { status: 200, body: campaign };
}

/** @type {Handler} */
export function getCampaignData(api, input) {
	const campaign = requireCampaign(api, input.params.id);
	// A campaign whose data the server cannot read (failCampaignData): every read fails alike.
	const failure = api.state.campaignDataFailures.get(campaign.id);
	if (failure !== undefined)
		throw new HttpError(failure, 'Injected server error (campaign data unreadable)');
	const paging = parsePaging(input.query, { sortable: false });
	failIfAny(paging.errors);
	return { status: 200, body: callDataAnswer(api, input, campaign, paging) };
}

/** @type {Handler} */
export function getBalance(api) {
	return { status: 200, body: balanceAnswer(api.options, api.state.balance) };
}

const DAY_MS = 86_400_000;

/** @param {number} ms @param {string} granularity start of the UTC period containing ms */
function periodStart(ms, granularity) {
	const d = new Date(ms);
	const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
	if (granularity === 'day') return day;
	if (granularity === 'week') return day - ((d.getUTCDay() + 6) % 7) * DAY_MS;
	return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** @param {number} start @param {string} granularity */
function nextPeriod(start, granularity) {
	if (granularity === 'day') return start + DAY_MS;
	if (granularity === 'week') return start + 7 * DAY_MS;
	const d = new Date(start);
	return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/**
 * Daily figures from a hash of the day, so weeks and months are exact sums of their days.
 * @param {number} seed @param {number} dayMs
 */
function dayTrend(seed, dayMs) {
	const random = createRandom(hashString(`${seed}:trend:${dayMs}`));
	const weekday = new Date(dayMs).getUTCDay();
	const calls = weekday === 0 || weekday === 6 ? random.int(0, 40) : random.int(40, 220);
	const answered = Math.round(calls * (0.45 + random.next() * 0.35));
	const minutes = Math.round(answered * (1.2 + random.next() * 3) * 10) / 10;
	return { calls, answered, minutes };
}

/** @param {string | undefined} value @param {string} name @param {string[]} errors */
function parseDate(value, name, errors) {
	if (value === undefined) return undefined;
	const ms = Date.parse(value);
	if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms)) {
		errors.push(`${name} must be a valid ISO 8601 date string`);
		return undefined;
	}
	return ms;
}

/** @type {Handler} */
export function getTrends(api, { query }) {
	/** @type {string[]} */
	const errors = [];
	const granularity = query.granularity ?? 'day';
	if (!GRANULARITIES.includes(granularity)) errors.push(oneOf('granularity', GRANULARITIES));
	const from = parseDate(query.from, 'from', errors);
	const to = parseDate(query.to, 'to', errors);
	failIfAny(errors);
	const toMs = to ?? Date.now();
	const fromMs = from ?? toMs - 29 * DAY_MS;
	if (fromMs > toMs) throw new HttpError(400, ['from must not be later than to']);
	const starts = [];
	for (
		let start = periodStart(fromMs, granularity);
		start <= toMs;
		start = nextPeriod(start, granularity)
	) {
		starts.push(start);
		if (starts.length > MAX_TREND_PERIODS) {
			throw new HttpError(400, [
				`the range from..to must not span more than ${MAX_TREND_PERIODS} periods of one ${granularity}`,
			]);
		}
	}
	const rate = api.state.balance.ratePerMinute;
	const items = starts.map((start) => {
		const end = nextPeriod(start, granularity);
		let calls = 0;
		let answered = 0;
		let minutes = 0;
		for (let day = start; day < end; day += DAY_MS) {
			const figures = dayTrend(api.seed, day);
			calls += figures.calls;
			answered += figures.answered;
			minutes += figures.minutes;
		}
		minutes = Math.round(minutes * 10) / 10;
		return {
			period: new Date(start).toISOString().slice(0, 10),
			calls,
			answered,
			minutes,
			cost: Math.round(minutes * rate * 100) / 100,
		};
	});
	return { status: 200, body: { items } };
}
