// Call Finished in a busy workspace (in this process, against the sandbox on loopback), at the
// trigger's defaults (Data Requests per Poll 20, Every Attempt, All Campaigns): a campaign of 2,000
// numbers and one of 40 where calls land, beside K idle open campaigns (K = 0, 26, 100: in
// progress, every call of theirs ended, their retries far off). The trigger is activated after
// the campaigns ran a few call steps (its first poll is the baseline); then, a minute at a time, a
// call step and a poll. Measured per K: for each step, how many polls until every attempt that
// ended in it was reported (1: the next poll); requests per poll; attempts lost or reported twice,
// each attempt held to what the sandbox really did (tools/callTruth.mjs). An attempt whose number
// was called again before the trigger read it has no item of its own: the next attempt's item
// counts it (skippedAttempts), and it is counted in at that poll, as skipped.
//
// The sandbox dials a campaign's numbers in their order (api/calls.mjs): with 150 lines and a
// retry 3 steps after a no_answer or busy, a step ends calls at the numbers being reached (a page
// or two) and the retries of those reached 4 and 8 steps before, pages back: calls land on 2 to 7
// of the big campaign's 20 pages at each step, over much of it (pagesPerStep).
//
// BENCH_ROOT (a path to another checkout of this repository) measures that checkout's trigger
// (its nodes/); the sandbox and the tools are this repository's. The API answers at once and
// without a rate limit: a poll's time and the API's limit never bound the reads here, Data
// Requests per Poll does.
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { DEMO_CLIENTS, startSandbox } from '../sandbox/server.mjs';
import {
	CALL_OUTCOMES,
	attemptKey,
	endedAttemptList,
	endedSinceWatching,
	heldToTruth,
	itemKey,
	recordsNow,
} from '../tools/callTruth.mjs';
import { createPollContext, sandboxHttp } from '../tools/context.mjs';

/** The checkout whose trigger is measured: BENCH_ROOT, or this repository. */
export const BENCH_ROOT = resolve(
	process.env.BENCH_ROOT || fileURLToPath(new URL('..', import.meta.url)),
);

const BIG = { numbers: 2_000, lines: 150, retryDelaySteps: 3 };
const SMALL = { numbers: 40 };
const PAGE = 100;
/** Steps run before activation. */
const BEFORE_STEPS = 3;
/**
 * Steps measured: those after the first step after activation (that one ends the calls that were
 * on a line at activation, which tools/callTruth.mjs lets come or not).
 */
const MEASURED_STEPS = 8;
/**
 * Minutes at most after the last measured step, waiting for its results (steps go on): enough
 * for one page of each campaign a poll in turn to read the big one through beside 100 others.
 */
const MAX_EXTRA_MINUTES = 300;
/** A retry this many steps away never comes: an idle campaign stays in progress. */
const NEVER = 1e9;

const mean = (values) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
/** An attempt's key across campaigns (two campaigns may share a number). */
const keyIn = (campaignId, key) => `${campaignId} ${key}`;

/** The trigger of the checkout at `root`. */
async function loadTrigger(root) {
	const file = resolve(root, 'nodes/VoiceAi/VoiceAiTrigger.node.ts');
	const { VoiceAiTrigger } = await import(pathToFileURL(file).href);
	return VoiceAiTrigger;
}

/**
 * `count` idle open campaigns of 10 to 40 numbers: every number called at once, the calls ended
 * at the next step, each no_answer or busy to be retried never. One that has no retry waiting
 * completes (nothing left to call): it stays in the workspace, ended, and another is started.
 */
function startIdleCampaigns(sandbox, count) {
	const idle = [];
	for (let i = 0; idle.length < count; i++) {
		const numbers = 10 + ((i * 7) % 31);
		const campaign = sandbox.startCallCampaign({
			numbers,
			lines: numbers,
			retryDelaySteps: NEVER,
		});
		sandbox.stepCalls(2, campaign.id);
		if (campaign.status === 'in_progress') idle.push(campaign);
	}
	return idle;
}

/** One run with `idleCount` idle open campaigns, the trigger being `Trigger`. */
async function run(Trigger, idleCount) {
	const sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 0, activeCampaignCount: 0 });
	try {
		const idle = startIdleCampaigns(sandbox, idleCount);
		const small = sandbox.startCallCampaign(SMALL);
		const big = sandbox.startCallCampaign(BIG);
		const busy = [small, big];
		const campaigns = [...idle, ...busy];
		sandbox.stepCalls(BEFORE_STEPS);
		const open = campaigns.filter((c) => c.status === 'in_progress').length;
		const runs = busy.map((campaign) => sandbox.state.callRuns.get(campaign.id));
		const seen = runs.map((r) => r.changes);
		const before = new Map(campaigns.map((c) => [c.id, recordsNow(sandbox, c)]));
		const from = Date.now();

		const auth = sandboxHttp(sandbox, DEMO_CLIENTS.full, { requestsPerMinute: 0 });
		const staticData = {};
		const trigger = new Trigger();
		const poll = async () => {
			const { context } = createPollContext({
				params: { event: 'callFinished' },
				http: auth.httpRequestWithAuthentication,
				credentials: auth.store.data,
				staticData,
				workflowId: 'bench-call-finished-busy',
			});
			const mark = sandbox.log.length;
			const result = await trigger.poll.call(context);
			const requests = sandbox.log.slice(mark).filter((e) => !e.path.endsWith('/token')).length;
			return { items: result ? result[0].map((item) => item.json) : [], requests };
		};
		const baseline = await poll();

		/** Per attempt: the step (minute) that ended it; 0, before activation. */
		const landed = new Map();
		for (const campaign of busy) {
			for (const { key } of endedAttemptList(sandbox, campaign))
				landed.set(keyIn(campaign.id, key), 0);
		}
		/** Per attempt: the poll (minute) that reported it, or counted it as skipped. */
		const accounted = new Map();
		/** The attempts only counted (skippedAttempts of a later attempt's item), not reported. */
		const countedOnly = new Set();
		const reported = new Set();
		const items = [...baseline.items];
		const requests = [];
		/** Per measured step: the big campaign's pages where calls ended. */
		const pagesPerStep = [];
		const measured = (key) => {
			const step = landed.get(key);
			return step !== undefined && step >= 2 && step < 2 + MEASURED_STEPS;
		};
		const lastStep = 1 + MEASURED_STEPS;
		let minutes = 0;
		for (let minute = 1; minute <= lastStep + MAX_EXTRA_MINUTES; minute++) {
			if (minute > lastStep && [...landed.keys()].every((k) => !measured(k) || accounted.has(k)))
				break;
			minutes = minute;
			sandbox.stepCalls();
			const pages = new Set();
			runs.forEach((callRun, i) => {
				for (let index = 0; index < callRun.records.length; index++) {
					if (callRun.changedAt[index] <= seen[i]) continue;
					const record = callRun.records[index];
					if (busy[i] === big && CALL_OUTCOMES.includes(record.status))
						pages.add(Math.floor(index / PAGE));
					// An attempt ends: the record shows its outcome, or already the next attempt dialed.
					const done = CALL_OUTCOMES.includes(record.status)
						? record.attempts
						: record.attempts - 1;
					for (let attempt = 1; attempt <= done; attempt++) {
						const key = keyIn(busy[i].id, attemptKey(record.phoneNumber, attempt));
						if (!landed.has(key)) landed.set(key, minute);
					}
				}
				seen[i] = callRun.changes;
			});
			if (minute >= 2 && minute <= lastStep) pagesPerStep.push(pages.size);
			const polled = await poll();
			if (minute <= lastStep) requests.push(polled.requests);
			for (const item of polled.items) {
				items.push(item);
				const key = keyIn(item.campaignId, itemKey(item));
				if (!accounted.has(key)) accounted.set(key, minute);
				reported.add(key);
				// Every Attempt: the attempts of the number that ended unseen before this one.
				for (let k = 1; k <= (Number(item.skippedAttempts) || 0); k++) {
					const earlier = keyIn(item.campaignId, attemptKey(item.phoneNumber, item.attempts - k));
					if (!accounted.has(earlier)) accounted.set(earlier, minute);
					countedOnly.add(earlier);
				}
			}
		}
		// The first step's attempts (on a line at activation) are not measured, nor earlier ones.
		const stepPolls = new Map();
		let lost = 0;
		let skipped = 0;
		let attempts = 0;
		for (const [key, step] of landed) {
			if (!measured(key)) continue;
			attempts++;
			const at = accounted.get(key);
			if (at === undefined) lost++;
			if (countedOnly.has(key) && !reported.has(key)) skipped++;
			const polls = at === undefined ? Infinity : at - step + 1;
			stepPolls.set(step, Math.max(stepPolls.get(step) ?? 0, polls));
		}
		// Every item held to what the sandbox did: reported twice, or not to be reported at all.
		// An attempt counted as skipped and reported too is reported twice.
		let doubled = [...countedOnly].filter((key) => reported.has(key)).length;
		let withoutItem = 0;
		for (const campaign of campaigns) {
			const truth = endedSinceWatching(sandbox, campaign, before.get(campaign.id), { from });
			const own = items.filter((item) => item.campaignId === campaign.id);
			const held = heldToTruth(own, truth);
			doubled += held.extra.length;
			withoutItem += held.missing.filter((key) => measured(keyIn(campaign.id, key))).length;
		}
		const perStep = [...stepPolls].sort(([a], [b]) => a - b).map(([, polls]) => polls);
		return {
			idle: idleCount,
			open,
			polls: mean(perStep),
			maxPolls: Math.max(...perStep),
			perStep,
			pagesPerStep,
			requests: mean(requests),
			maxRequests: Math.max(...requests),
			baselineRequests: baseline.requests,
			minutes,
			attempts,
			lost,
			// Lost or skipped, by tools/callTruth.mjs's count: lost + skipped.
			withoutItem,
			skipped,
			doubled,
		};
	} finally {
		await sandbox.close();
	}
}

/**
 * The same runs with the trigger as of commit 2518aec, measured by this bench (BENCH_ROOT on a
 * checkout of it): Data Requests per Poll shared out evenly among the watched campaigns, read in
 * turn wherever calls land (a page each when there are more of them than requests). What the
 * rows compare with.
 */
export const FAIR_SHARE_2518AEC = {
	0: { polls: 1.5, maxPolls: 2, requests: 15, maxRequests: 23, lost: 0, doubled: 0, skipped: 0 },
	26: {
		polls: 19.125,
		maxPolls: 24,
		requests: 23,
		maxRequests: 23,
		lost: 0,
		doubled: 0,
		skipped: 205,
	},
	100: {
		polls: 65.25,
		maxPolls: 83,
		requests: 24,
		maxRequests: 24,
		lost: 0,
		doubled: 0,
		skipped: 199,
	},
};

/**
 * The runs for each count of idle open campaigns, with the trigger of the checkout at `root`
 * (BENCH_ROOT by default).
 * @param {{ idle?: number[], root?: string }} [options]
 */
export async function measureCallFinishedBusy({ idle = [0, 26, 100], root = BENCH_ROOT } = {}) {
	const Trigger = await loadTrigger(root);
	const results = [];
	for (const count of idle) results.push(await run(Trigger, count));
	return results;
}

// `node --import tsx bench/callFinishedBusy.mjs` prints the figures; BENCH_ROOT=<checkout> for
// another checkout's trigger.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
	const started = Date.now();
	const figures = await measureCallFinishedBusy();
	const benchSeconds = (Date.now() - started) / 1000;
	console.log(JSON.stringify({ root: BENCH_ROOT, benchSeconds, figures }, null, 1));
}
