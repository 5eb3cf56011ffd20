// Voice AI Trigger, Call Finished in a busy workspace, in a running n8n (triggers/polling.mjs says
// how n8n polls), at the trigger's default settings: Data Requests per Poll 20, a poll a minute,
// All Campaigns, Every Attempt. Three timelines side by side, each on a sandbox of its own (its log
// tells its polls apart), the workflows activated one after another:
// - busy: 26 idle open campaigns (in progress, every call ended, their retries never due) beside
//   one of 40 numbers and one of 2,000 where calls land: a step of calls after each of the first
//   polls, the big campaign's 700 lines ending calls on a third of its 20 pages in turn, so that
//   its steps land on every page. An ended attempt stays readable for two polls (its retry comes
//   two steps later). Every attempt that ended in a step comes within 2 polls of the step; none is
//   lost or comes twice, none that ended before activation comes (tools/callTruth.mjs).
// - slow: the same world on an API that answers each request in 1.5 s (a poll has time for about
//   20 reads; the first read goes on over polls): within 4 polls, reported or counted in a later
//   attempt's skippedAttempts.
// - calledAt at the end: an API whose calledAt stamps the end of a call (calledAtStamps 'end'),
//   activated seconds after calls ended and while others are on a line: the first poll reports
//   nothing that ended before activation, and every attempt that ended after it comes once.
// Each timeline prints the polls each step took to come in (t.diagnostic), with the pages its
// calls landed on and the data reads of each poll. On n8n 2.41's durable scheduler:
// callFinishedBusyDurable.e2e.test.mjs; on n8n 1.x: n8n1CallFinishedBusy.e2e.test.mjs.
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';

import { DEMO_CLIENTS, startSandbox } from '../../../sandbox/server.mjs';
import {
	attemptKey,
	endedAttemptList,
	endedSinceWatching,
	heldToTruth,
	itemKey,
	recordsNow,
	unaccounted,
} from '../../../tools/callTruth.mjs';
import { pollDiagnostics, sandboxCredential, sleep, suiteOptions } from '../harness.mjs';
import {
	afterNextPoll,
	callFinishedWorkflow,
	executionsWithItems,
	pollsOf,
} from './callFinished.mjs';
import { usePollingN8n } from './polling.mjs';

const { version, env, title, it } = suiteOptions(
	'Voice AI Trigger, Call Finished in a busy workspace, in a running n8n',
);

const IDLE_CAMPAIGNS = 26;
/** Where calls land: 2 lines, a retry 2 steps after a no_answer or busy (the sandbox's defaults). */
const SMALL = { numbers: 40, name: 'E2E busy, 40 numbers' };
/** 700 lines: a step ends the calls of a third of the 20 pages, the next third at the next step. */
const BIG = { numbers: 2_000, lines: 700, name: 'E2E busy, 2,000 numbers' };
const PAGE = 100;
/** Steps before activation: numbers called, ended and retried on every page of the big one. */
const BEFORE_STEPS = 3;
/** The calledAt timeline's campaign: calls on a line at activation, and ended seconds before. */
const STAMPED = { numbers: 300, lines: 30, name: 'E2E busy, calledAt at the end' };
const STAMPED_BEFORE_STEPS = 4;
/** Between the last step before activation and activation: what ended, ended seconds before. */
const BEFORE_ACTIVATION_MS = 3_000;
/** The polls at activation are over by then (n8n 2.41.1 makes a second one about 10 s after). */
const ACTIVATION_POLLS_MS = 20_000;
/** Scheduled polls after the first (the one at activation, the baseline): about 6 minutes. */
const POLLS = 6;
/** Every answer of the slow timeline's API is held back this long. */
const LATENCY_MS = 1_500;
/**
 * Seconds from the start to the first scheduled poll: the workflows are imported and activated
 * before it, the slow timeline's poll at activation reading for up to 40 s.
 */
const FIRST_POLL_AFTER_S = 70;
/** A retry this many steps away never comes: an idle campaign stays in progress. */
const NEVER = 1e9;
/**
 * Per timeline: its steps (one after each of the first polls, the last one `within` polls or more
 * before the last poll) and the polls within which a step's attempts must come.
 */
const TIMELINES = {
	busy: { steps: 5, within: 2, latencyMs: 0 },
	slow: { steps: 3, within: 4, latencyMs: LATENCY_MS },
	stamped: { steps: 5, latencyMs: 0 },
};
const { full } = DEMO_CLIENTS;
const CREDENTIALS = {
	busy: { id: 'e2eBusyCredBusy1', name: 'Call Finished, busy workspace (e2e)' },
	slow: { id: 'e2eBusyCredSlow1', name: 'Call Finished, busy workspace, slow API (e2e)' },
	stamped: { id: 'e2eBusyCredStmp1', name: 'Call Finished, calledAt at the end (e2e)' },
};
const WORKFLOWS = {
	busy: { id: 'e2eBusyWorkspace', credential: CREDENTIALS.busy },
	slow: { id: 'e2eBusySlowApi01', credential: CREDENTIALS.slow },
	stamped: { id: 'e2eBusyCalledEnd', credential: CREDENTIALS.stamped },
};

/** A promise's outcome, kept for a test to read later (no unhandled rejection meanwhile). */
const settle = (promise) =>
	promise.then(
		(value) => ({ value }),
		(error) => ({ error }),
	);

/** What a timeline found, or its failure. */
async function outcome(promise) {
	const { value, error } = await promise;
	if (error) throw error;
	return value;
}

/** An attempt's key across campaigns (two campaigns may share a number). */
const keyIn = (campaignId, key) => `${campaignId} ${key}`;

/** Pages as short runs: [1, 2, 3, 7] → "1-3, 7". */
function pageRuns(pages) {
	const sorted = [...pages].sort((a, b) => a - b);
	const runs = [];
	for (const page of sorted) {
		const last = runs.at(-1);
		if (last && page === last[1] + 1) last[1] = page;
		else runs.push([page, page]);
	}
	return runs.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ') || 'none';
}

/**
 * The busy world on `sandbox`: `IDLE_CAMPAIGNS` idle open campaigns of 10 to 40 numbers (all
 * called at once and ended at the next step, each no_answer or busy to be retried never; one
 * without a retry waiting completes and stays, ended, and another is started), then the two where
 * calls land, run BEFORE_STEPS steps.
 */
function busyWorld(sandbox) {
	const idle = [];
	for (let i = 0; idle.length < IDLE_CAMPAIGNS; i++) {
		const numbers = 10 + ((i * 7) % 31);
		const campaign = sandbox.startCallCampaign({
			numbers,
			lines: numbers,
			retryDelaySteps: NEVER,
			name: `E2E busy, idle ${i + 1}`,
		});
		sandbox.stepCalls(2, campaign.id);
		if (campaign.status === 'in_progress') idle.push(campaign);
	}
	const small = sandbox.startCallCampaign(SMALL);
	const big = sandbox.startCallCampaign(BIG);
	for (const campaign of [small, big]) sandbox.stepCalls(BEFORE_STEPS, campaign.id);
	return { idle, big, landing: [small, big], all: [...idle, small, big] };
}

/** The calledAt timeline's world: one campaign, run STAMPED_BEFORE_STEPS steps just now. */
function stampedWorld(sandbox) {
	const campaign = sandbox.startCallCampaign(STAMPED);
	sandbox.stepCalls(STAMPED_BEFORE_STEPS, campaign.id);
	return { idle: [], big: undefined, landing: [campaign], all: [campaign] };
}

/** When each poll of `sandbox`'s client began (its request for the in-progress campaigns). */
const pollStarts = (sandbox) =>
	sandbox.log
		.filter(
			(e) =>
				e.clientId === full.clientId &&
				e.path.endsWith('/voice/campaigns') &&
				e.query.status === 'in_progress',
		)
		.map((e) => Date.parse(e.at));

/** The poll (0: the one at activation) during which something happened at `at`. */
const pollAt = (starts, at) => starts.filter((start) => start <= at).length - 1;

describe(title, { timeout: 15 * 60_000 }, () => {
	/** The timelines' own sandboxes. */
	const sandboxes = { busy: undefined, slow: undefined, stamped: undefined };
	before(async () => {
		const options = { port: 0, host: '127.0.0.1', activeCampaignCount: 0 };
		sandboxes.busy = await startSandbox(options);
		sandboxes.slow = await startSandbox(options);
		sandboxes.slow.setFaults({ latencyMs: LATENCY_MS });
		sandboxes.stamped = await startSandbox({ ...options, calledAtStamps: 'end' });
	});
	after(async () => {
		for (const sandbox of Object.values(sandboxes)) await sandbox?.close();
	});

	const suite = usePollingN8n({
		version,
		env,
		credentials: () =>
			Object.entries(CREDENTIALS).map(([name, credential]) =>
				sandboxCredential(credential, sandboxes[name], full),
			),
		// Imported below, together.
		workflows: () => [],
	});

	/** Per timeline: its campaigns, and what their records held just before activation. */
	const worlds = {};
	const atActivation = {};

	/**
	 * One step of the campaigns where calls land; each attempt it ended is noted in `landed` with
	 * the step and the polls made before it, and the big campaign's pages it ended calls on.
	 */
	function step(name, number, landed) {
		const sandbox = sandboxes[name];
		const world = worlds[name];
		const polls = pollsOf(sandbox, full);
		const at = Date.now();
		const pages = new Set();
		for (const campaign of world.landing) {
			const before = new Set(endedAttemptList(sandbox, campaign).map(({ key }) => key));
			sandbox.stepCalls(1, campaign.id);
			for (const { key, index } of endedAttemptList(sandbox, campaign)) {
				if (before.has(key)) continue;
				landed.set(keyIn(campaign.id, key), { step: number, polls });
				if (campaign === world.big) pages.add(Math.floor(index / PAGE) + 1);
			}
		}
		return { pages, polls, at };
	}

	/** A timeline: after the poll at activation and after each of the next polls, a step. */
	async function drive(name) {
		const sandbox = sandboxes[name];
		const { steps, latencyMs } = TIMELINES[name];
		const options = { latencyMs, describe: () => pollDiagnostics(sandbox, suite, 30) };
		const landed = new Map();
		const stepped = [];
		await afterNextPoll(sandbox, [full], { since: [0], ...options });
		// n8n 2.41.1 polls again some seconds after activation: the first step comes after that.
		await sleep(Math.max(0, atActivation[name].from + ACTIVATION_POLLS_MS - Date.now()));
		await afterNextPoll(sandbox, [full], { since: [pollsOf(sandbox, full) - 1], ...options });
		for (let poll = 1; poll <= POLLS; poll++) {
			if (poll <= steps) stepped.push(step(name, poll, landed));
			await afterNextPoll(sandbox, [full], options);
		}
		return { landed, stepped };
	}

	const run = {};
	before(async () => {
		const { n8n } = suite;
		const cronSecond = Math.floor(Date.now() / 1000 + FIRST_POLL_AFTER_S) % 60;
		worlds.busy = busyWorld(sandboxes.busy);
		worlds.slow = busyWorld(sandboxes.slow);
		for (const w of Object.values(WORKFLOWS))
			await n8n.importWorkflow(callFinishedWorkflow(w, cronSecond, { campaignScope: 'all' }));
		// Calls end, others are dialed, just before activation.
		worlds.stamped = stampedWorld(sandboxes.stamped);
		await sleep(BEFORE_ACTIVATION_MS);
		// One after another (n8n 1.x's SQLite refuses workflows written at once): the calledAt
		// timeline's first, seconds after its calls ended; the slow API's last, its poll at
		// activation reads for up to 40 s.
		for (const name of ['stamped', 'busy', 'slow']) {
			const sandbox = sandboxes[name];
			const records = new Map(
				worlds[name].all.map((campaign) => [campaign.id, recordsNow(sandbox, campaign)]),
			);
			const from = Date.now();
			atActivation[name] = { records, from };
			await n8n.activate(WORKFLOWS[name].id);
			atActivation[name].tookMs = Date.now() - from;
			// Its steps begin once its poll at activation has ended, the others' activations aside.
			run[name] = settle(drive(name));
		}
	});

	/**
	 * What a timeline's workflow reported, held to what the calls did: per attempt, the poll that
	 * reported it or counted it as skipped (in a later attempt's skippedAttempts); per step, the
	 * polls until its last attempt came; what is extra (twice, or ended before activation) and
	 * what is lost.
	 */
	async function measure(name) {
		const { landed, stepped } = await outcome(run[name]);
		const sandbox = sandboxes[name];
		const world = worlds[name];
		const executions = await executionsWithItems(suite.api, WORKFLOWS[name].id);
		const starts = pollStarts(sandbox);
		/** Per attempt: the poll that reported it, or counted it as skipped. */
		const accounted = new Map();
		const counted = new Set();
		const reported = new Set();
		/** Items per poll, the one at activation first. */
		const itemsPerPoll = starts.map(() => 0);
		for (const execution of executions) {
			const poll = pollAt(starts, execution.startedAt);
			itemsPerPoll[poll] += execution.items.length;
			for (const item of execution.items) {
				const key = keyIn(item.campaignId, itemKey(item));
				if (!accounted.has(key)) accounted.set(key, poll);
				reported.add(key);
				for (let k = 1; k <= (Number(item.skippedAttempts) || 0); k++) {
					const earlier = keyIn(item.campaignId, attemptKey(item.phoneNumber, item.attempts - k));
					if (!accounted.has(earlier)) accounted.set(earlier, poll);
					counted.add(earlier);
				}
			}
		}
		const items = executions.flatMap((e) => e.items);
		const truths = new Map(
			world.all.map((campaign) => [
				campaign.id,
				endedSinceWatching(
					sandbox,
					campaign,
					atActivation[name].records.get(campaign.id),
					atActivation[name],
				),
			]),
		);
		const extra = [];
		const lost = [];
		for (const campaign of world.all) {
			const own = items.filter((item) => item.campaignId === campaign.id);
			const truth = truths.get(campaign.id);
			extra.push(...heldToTruth(own, truth).extra.map((key) => keyIn(campaign.id, key)));
			lost.push(...unaccounted(own, truth).map(([phone]) => `${campaign.id} ${phone}`));
		}
		// An attempt counted as skipped and reported as well came twice.
		extra.push(...[...counted].filter((key) => reported.has(key)));
		// Nothing of a campaign that was not open at activation (ended idle ones, the seeded ones).
		const watched = new Set(world.all.map((campaign) => campaign.id));
		extra.push(
			...items
				.filter((item) => !watched.has(item.campaignId))
				.map((item) => keyIn(item.campaignId, itemKey(item))),
		);
		/** A key of `landed` dialed after activation (its campaign's truth expects it). */
		const expected = (key) => {
			const [campaignId, attempt] = key.split(' ');
			return truths.get(campaignId).expected.has(attempt);
		};
		const steps = stepped.map(({ pages, polls }, i) => {
			const number = i + 1;
			const keys = [...landed].filter(([, at]) => at.step === number);
			const pollsFor = (list) =>
				Math.max(
					0,
					...list.map(([key, at]) =>
						accounted.has(key) ? accounted.get(key) - at.polls + 1 : Infinity,
					),
				);
			const measured = keys.filter(([key]) => expected(key));
			const onALine = keys.filter(([key]) => !expected(key));
			return {
				number,
				attempts: measured.length,
				polls: measured.length ? pollsFor(measured) : undefined,
				skipped: measured.filter(([key]) => counted.has(key) && !reported.has(key)).length,
				onALine: onALine.length,
				onALineCame: onALine.filter(([key]) => accounted.has(key)).length,
				pages,
				after: polls,
			};
		});
		const dataReads = starts.map(
			(start, i) =>
				sandbox.log.filter(
					(e) =>
						e.path.endsWith('/data') &&
						Date.parse(e.at) >= start &&
						(i + 1 === starts.length || Date.parse(e.at) < starts[i + 1]),
				).length,
		);
		const failed = executions.filter((e) => e.status !== 'success').map((e) => e.error);
		// Executions that began before the first step: nothing had ended since activation then.
		const beforeSteps = executions
			.filter((e) => e.startedAt < stepped[0].at)
			.reduce((sum, e) => sum + e.items.length, 0);
		const { from, tookMs } = atActivation[name];
		const timing = `activation took ${Math.round(tookMs / 1000)} s, polls began at +${starts.map((start) => Math.round((start - from) / 1000)).join(', +')} s`;
		const found = { executions, items, itemsPerPoll, steps, dataReads, extra, lost, failed };
		return { ...found, beforeSteps, timing };
	}

	/** The measurements of a timeline, in one line for the CI log. */
	function describeRun(name, measured) {
		const { executions, items, itemsPerPoll, steps, dataReads, extra, lost, timing } = measured;
		const polls = (s) => (s.polls === Infinity ? 'never' : (s.polls ?? '-'));
		const perStep = steps.map((s) => {
			const parts = [`step ${s.number}: ${s.attempts} attempts`];
			if (s.polls !== undefined) parts.push(`in ${polls(s)} poll(s)`);
			if (s.skipped) parts.push(`(${s.skipped} only counted as skipped)`);
			if (s.onALine) parts.push(`+ ${s.onALineCame} of ${s.onALine} on a line at activation came`);
			if (worlds[name].big) parts.push(`on big pages ${pageRuns(s.pages)}`);
			return parts.join(' ');
		});
		return [
			`${name}: polls per step ${steps.map(polls).join(', ')} (the steps after ${steps.map((s) => s.after).join(', ')} polls)`,
			...perStep,
			`data reads per poll ${dataReads.join(', ')}; items per poll ${itemsPerPoll.join(', ')} (${items.length} in ${executions.length} executions)`,
			`${extra.length} extra (twice or from before activation), ${lost.length} numbers with attempts lost`,
			timing,
		].join('; ');
	}

	/** Busy and slow: the goals, after the measurements are printed. */
	async function assertWithin(t, name) {
		const measured = await measure(name);
		t.diagnostic(describeRun(name, measured));
		const { within } = TIMELINES[name];
		assert.deepEqual(measured.failed, [], 'no failed execution');
		assert.equal(measured.beforeSteps, 0, 'nothing reported before the first step');
		assert.deepEqual(
			measured.extra.slice(0, 20),
			[],
			`${measured.extra.length} extra: twice, or ended before activation`,
		);
		const late = measured.steps.filter((s) => s.polls !== undefined && s.polls > within);
		assert.deepEqual(
			late.map((s) => `step ${s.number}: ${s.polls} polls`),
			[],
			`every step's attempts within ${within} polls`,
		);
		assert.deepEqual(
			measured.lost.slice(0, 20),
			[],
			`${measured.lost.length} numbers with attempts neither reported nor counted as skipped`,
		);
		const attempts = measured.steps.reduce((sum, s) => sum + s.attempts, 0);
		assert.ok(attempts > 200, `${attempts} attempts ended after activation`);
	}

	it('busy: 26 idle open campaigns beside 40 and 2,000 numbers calling; every attempt of a step within 2 polls, none lost or twice, none from before activation', async (t) => {
		await assertWithin(t, 'busy');
	});

	it('slow: the same on an API answering in 1.5 s; every attempt of a step within 4 polls (reported or counted as skipped), none lost or twice', async (t) => {
		await assertWithin(t, 'slow');
	});

	it('calledAt at the end: the first poll reports nothing that ended before activation; every attempt that ended after it comes once', async (t) => {
		const measured = await measure('stamped');
		t.diagnostic(describeRun('stamped', measured));
		const sandbox = sandboxes.stamped;
		const [campaign] = worlds.stamped.all;
		const before = atActivation.stamped.records.get(campaign.id);
		const truth = endedSinceWatching(sandbox, campaign, before, atActivation.stamped);
		// The calls on a line at activation ended after it, and the first read saw them calling
		// (it read the campaign's 3 pages in the poll at activation): they must come too.
		const calling = new Set(
			before
				.filter((record) => record.status === 'calling')
				.map((record) => attemptKey(record.phoneNumber, record.attempts)),
		);
		assert.ok(calling.size > 0, 'calls on a line at activation');
		const expected = new Map(truth.expected);
		for (const [key, times] of truth.either)
			if (calling.has(key)) expected.set(key, (expected.get(key) ?? 0) + times);
		const either = new Map([...truth.either].filter(([key]) => !calling.has(key)));
		const endedBefore = before.filter((record) => record.endedAt !== undefined).length;
		assert.ok(endedBefore >= STAMPED.lines * 2, `${endedBefore} calls ended before activation`);

		assert.deepEqual(measured.failed, [], 'no failed execution');
		assert.equal(measured.beforeSteps, 0, 'nothing reported before the first step');
		const held = heldToTruth(measured.items, { expected, either });
		assert.deepEqual(held.extra, [], 'nothing twice, nothing that ended before activation');
		assert.deepEqual(held.missing, [], 'every attempt that ended after activation');
	});
});
