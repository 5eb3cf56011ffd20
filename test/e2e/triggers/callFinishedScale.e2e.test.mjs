// Voice AI Trigger, Call Finished at scale, in a running n8n (triggers/polling.mjs says how n8n
// polls). Four timelines side by side, each on a sandbox of its own (its log tells its polls apart),
// the workflows activated together:
// - broken: one workflow on three campaigns, one of which answers 403 on every read of its data
//   after the baseline: the other two report, each poll that could not read it is a failed
//   execution naming it; once it reads again, its results come once.
// - first read: 3,000 numbers on an API that answers each request in 1.5 s, so that reading its 30
//   pages takes longer than a poll's 40 s: the first read goes on over polls, reports nothing that
//   ended before activation and each attempt that ended afterwards once; the workflow's static
//   data, read through n8n's REST API, keeps 12 bytes or less per ended number.
// - duplicates: numbers listed twice in a campaign: each attempt of both records once.
// - ends while calling: a campaign whose status turns completed while its last calls are on a
//   line: those calls are reported when they end (Every Attempt and Final Outcome Only).
// What had ended before activation is read from the sandbox just before (tools/callTruth.mjs
// endedSinceWatching). On n8n 1.x: n8n1CallFinishedScale.e2e.test.mjs.
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';

import { DEMO_CLIENTS, startSandbox } from '../../../sandbox/server.mjs';
import {
	CALL_OUTCOMES,
	attemptKey,
	countKeys,
	endedSinceWatching,
	heldToTruth,
	itemKey,
	recordsNow,
	unaccounted,
} from '../../../tools/callTruth.mjs';
import { pollDiagnostics, sandboxCredential, suiteOptions, waitFor } from '../harness.mjs';
import {
	afterNextPoll,
	callFinishedWorkflow,
	executionsWithItems,
	pollsOf,
} from './callFinished.mjs';
import { usePollingN8n } from './polling.mjs';

const { version, title, it } = suiteOptions(
	'Voice AI Trigger, Call Finished at scale, in a running n8n',
);

/** Every answer of the first-read sandbox is held back this long: 30 pages take 45 s. */
const LATENCY_MS = 1_500;
const FIRST_READ_NUMBERS = 3_000;
const PAGES = FIRST_READ_NUMBERS / 100;
/** Seconds from activating the workflows to their first scheduled poll (the first read's first poll takes up to 40 s). */
const FIRST_POLL_AFTER_S = 58;
/** A pause this long in a client's requests ends a poll. */
const POLL_GAP_MS = 10_000;
const STATE_BYTES_PER_ENDED_NUMBER = 12;
const { full, voiceOnly } = DEMO_CLIENTS;
const CREDENTIALS = {
	broken: { id: 'e2eScaleCredBrkn', name: 'Call Finished at scale, broken campaign (e2e)' },
	first: { id: 'e2eScaleCredFrst', name: 'Call Finished at scale, first read (e2e)' },
	dup: { id: 'e2eScaleCredDupl', name: 'Call Finished at scale, duplicates (e2e)' },
	callingFull: { id: 'e2eScaleCredCall', name: 'Call Finished at scale, calling (e2e)' },
	callingVoice: { id: 'e2eScaleCredCalV', name: 'Call Finished at scale, calling, voice (e2e)' },
};
const WORKFLOWS = {
	broken: { id: 'e2eScaleBroken01', credential: CREDENTIALS.broken },
	first: { id: 'e2eScaleFirst001', credential: CREDENTIALS.first },
	dup: { id: 'e2eScaleDupl0001', credential: CREDENTIALS.dup },
	callingEvery: { id: 'e2eScaleCallEvry', credential: CREDENTIALS.callingFull },
	callingFinal: { id: 'e2eScaleCallFinl', credential: CREDENTIALS.callingVoice },
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

/**
 * Every item says how many attempts of its number ended unseen since the read before: none here
 * (every attempt stays readable for a poll); null where no read came before (the first read).
 */
function assertNoneSkipped(items) {
	const said = items.map((item) => item.skippedAttempts);
	assert.deepEqual(
		said.filter((skipped) => skipped !== 0 && skipped !== null),
		[],
		'skippedAttempts',
	);
	assert.ok(said.includes(0), 'skippedAttempts 0 after a read');
}

/** The items of one campaign. */
const ofCampaign = (items, campaign) => items.filter((item) => item.campaignId === campaign.id);

describe(title, { timeout: 15 * 60_000 }, () => {
	/** The timelines' own sandboxes (the broken campaign's is the suite's). */
	const sandboxes = { first: undefined, dup: undefined, calling: undefined };
	before(async () => {
		sandboxes.first = await startSandbox({ port: 0, host: '127.0.0.1' });
		sandboxes.first.setFaults({ latencyMs: LATENCY_MS });
		sandboxes.dup = await startSandbox({ port: 0, host: '127.0.0.1' });
		sandboxes.calling = await startSandbox({ port: 0, host: '127.0.0.1' });
	});
	after(async () => {
		for (const sandbox of Object.values(sandboxes)) await sandbox?.close();
	});

	const suite = usePollingN8n({
		version,
		credentials: (sandbox) => [
			sandboxCredential(CREDENTIALS.broken, sandbox, full),
			sandboxCredential(CREDENTIALS.first, sandboxes.first, full),
			sandboxCredential(CREDENTIALS.dup, sandboxes.dup, full),
			sandboxCredential(CREDENTIALS.callingFull, sandboxes.calling, full),
			sandboxCredential(CREDENTIALS.callingVoice, sandboxes.calling, voiceOnly),
		],
		// Imported below, together.
		workflows: () => [],
	});
	const diagnostics = (sandbox) => () => pollDiagnostics(sandbox, suite, 30);

	/** The campaigns, and what their records held just before the workflows were activated. */
	const campaigns = {};
	const atActivation = { from: 0, records: {} };
	/** What Call Finished must report of a campaign (tools/callTruth.mjs endedSinceWatching). */
	const truthOf = (sandbox, name) =>
		endedSinceWatching(sandbox, campaigns[name], atActivation.records[name], atActivation);

	/**
	 * Broken: B's data answers 403 (refused: the campaign's own failure, not an outage) from the first scheduled poll on, for two polls, while all three
	 * campaigns call on (two steps a poll: every attempt stays readable for a poll); then B reads
	 * again, and all three run to their end.
	 */
	async function driveBroken() {
		const { sandbox } = suite;
		const { h1, h2, b } = campaigns;
		const describe = diagnostics(sandbox);
		const step = () => {
			for (const campaign of [h1, h2, b]) sandbox.stepCalls(2, campaign.id);
		};
		await afterNextPoll(sandbox, [full], { since: [0], describe });
		sandbox.failCampaignData(b.id, 403);
		step();
		for (let poll = 0; poll < 2; poll++) {
			await afterNextPoll(sandbox, [full], { describe });
			step();
		}
		sandbox.failCampaignData(b.id, null);
		const healedAt = Date.now();
		for (let poll = 0; poll < 12; poll++) {
			await afterNextPoll(sandbox, [full], { describe });
			if ([h1, h2, b].every((c) => c.status === 'completed')) break;
			step();
		}
		assert.ok(
			[h1, h2, b].every((c) => c.status === 'completed'),
			`the campaigns ended${describe()}`,
		);
		return { healedAt };
	}

	/**
	 * First read: activation read part of the 3,000 numbers; their retries are called and end
	 * while the first read goes on, then once a sweep has read them all the third attempts, and the
	 * campaign ends. The static data is read once every number has ended an attempt.
	 */
	async function driveFirstRead() {
		const sandbox = sandboxes.first;
		const f = campaigns.f;
		const describe = diagnostics(sandbox);
		const path = `/api/v1/voice/campaigns/${f.id}/data`;
		const lastPageReads = () =>
			sandbox.log.filter((e) => e.path === path && Number(e.query.page) === PAGES).length;
		const poll = () => afterNextPoll(sandbox, [full], { latencyMs: LATENCY_MS, describe });
		const pollUntil = async (done, what) => {
			for (let i = 0; i < 8 && !done(); i++) await poll();
			assert.ok(done(), `${what}${describe()}`);
		};
		await afterNextPoll(sandbox, [full], { since: [0], latencyMs: LATENCY_MS, describe });
		const firstPoll = sandbox.log.filter((e) => e.path === path).length;
		// The retries are called and end while the first read goes on.
		sandbox.stepCalls(2, f.id);
		await pollUntil(() => lastPageReads() >= 1, 'the first read did not reach the last page');
		await pollUntil(() => lastPageReads() >= 2, 'no sweep read every page after the first read');
		const state = await readStaticData();
		while (f.status !== 'completed') sandbox.stepCalls(1, f.id);
		await pollUntil(() => lastPageReads() >= 3, 'the ended campaign was not read to its end');
		return { firstPoll, state };
	}

	/** The workflow's static data as n8n keeps it, and the numbers that had ended an attempt. */
	async function readStaticData() {
		const records = sandboxes.first.state.campaignData.get(campaigns.f.id);
		const ended = records.filter((r) => CALL_OUTCOMES.includes(r.status) || r.attempts > 1);
		const workflow = await suite.n8n.rest(
			'GET',
			`/rest/workflows/${suite.n8n.workflowId(WORKFLOWS.first.id)}`,
		);
		const staticData =
			typeof workflow.staticData === 'string'
				? JSON.parse(workflow.staticData)
				: workflow.staticData;
		return { staticData, endedNumbers: ended.length };
	}

	/** Duplicates: two steps a poll to the campaign's end, and a poll after it. */
	async function driveDuplicates() {
		const sandbox = sandboxes.dup;
		const d = campaigns.d;
		const describe = diagnostics(sandbox);
		await afterNextPoll(sandbox, [full], { since: [0], describe });
		for (let poll = 0; poll < 12 && d.status !== 'completed'; poll++) {
			sandbox.stepCalls(2, d.id);
			await afterNextPoll(sandbox, [full], { describe });
		}
		assert.equal(d.status, 'completed', `the campaign ended${describe()}`);
	}

	/**
	 * Ends while calling: its first step completes it with every call on a line, and a poll reads
	 * it so; then those calls end, and two polls more.
	 */
	async function driveEndsWhileCalling() {
		const sandbox = sandboxes.calling;
		const e = campaigns.e;
		const describe = diagnostics(sandbox);
		const poll = () => afterNextPoll(sandbox, [full, voiceOnly], { describe });
		await afterNextPoll(sandbox, [full, voiceOnly], { since: [0, 0], describe });
		sandbox.stepCalls(1, e.id);
		assert.equal(e.status, 'completed');
		const calling = sandbox.state.campaignData
			.get(e.id)
			.filter((r) => r.status === 'calling')
			.map((r) => attemptKey(r.phoneNumber, r.attempts));
		assert.equal(calling.length, 40, 'every call on a line when the campaign completed');
		await poll();
		sandbox.stepCalls(1, e.id);
		await poll();
		await poll();
		return { calling };
	}

	const run = {};
	before(async () => {
		const { n8n, sandbox } = suite;
		campaigns.h1 = sandbox.startCallCampaign({ numbers: 30, lines: 10, name: 'E2E scale H1' });
		campaigns.h2 = sandbox.startCallCampaign({ numbers: 30, lines: 10, name: 'E2E scale H2' });
		campaigns.b = sandbox.startCallCampaign({ numbers: 30, lines: 10, name: 'E2E scale broken' });
		sandbox.stepCalls(2);
		// Every number called and ended once before activation; its retries come one step later.
		campaigns.f = sandboxes.first.startCallCampaign({
			numbers: FIRST_READ_NUMBERS,
			lines: FIRST_READ_NUMBERS,
			retryDelaySteps: 1,
			name: 'E2E scale first read',
		});
		sandboxes.first.stepCalls(2);
		// Pending at activation: every attempt of both records of a number comes after it.
		campaigns.d = sandboxes.dup.startCallCampaign({
			numbers: 30,
			lines: 12,
			duplicates: 8,
			name: 'E2E scale duplicates',
		});
		// Pending at activation; its first step calls every number at once, which leaves none to
		// dial and no retry waiting: the campaign completes with all its calls on a line.
		campaigns.e = sandboxes.calling.startCallCampaign({
			numbers: 40,
			lines: 40,
			endsWhileCalling: true,
			name: 'E2E scale ends while calling',
		});
		const sandboxOf = { f: sandboxes.first, d: sandboxes.dup, e: sandboxes.calling };
		for (const [name, campaign] of Object.entries(campaigns)) {
			atActivation.records[name] = recordsNow(sandboxOf[name] ?? sandbox, campaign);
		}

		// Activated one after another (n8n 1.x's SQLite refuses workflows written at once), the slow
		// API's last; their first scheduled poll comes well after the polls at activation.
		const cronSecond = Math.floor(Date.now() / 1000 + FIRST_POLL_AFTER_S) % 60;
		const workflow = (w, campaignList, parameters = {}) =>
			callFinishedWorkflow(w, cronSecond, {
				campaignIds: campaignList.map((c) => c.id),
				...parameters,
			});
		const { h1, h2, b, f, d, e } = campaigns;
		const workflows = [
			workflow(WORKFLOWS.broken, [h1, h2, b]),
			workflow(WORKFLOWS.dup, [d]),
			workflow(WORKFLOWS.callingEvery, [e]),
			workflow(WORKFLOWS.callingFinal, [e], { report: 'finalOutcome' }),
			workflow(WORKFLOWS.first, [f]),
		];
		for (const w of workflows) await n8n.importWorkflow(w);
		atActivation.from = Date.now();
		for (const w of workflows) await n8n.activate(w.id);
		run.broken = settle(driveBroken());
		run.first = settle(driveFirstRead());
		run.dup = settle(driveDuplicates());
		run.calling = settle(driveEndsWhileCalling());
	});

	it('a campaign whose data answers 403 beside two healthy ones: theirs arrive, failed executions name it, and once healed its results come once', async (t) => {
		const { healedAt } = await outcome(run.broken);
		const { sandbox } = suite;
		const { h1, h2, b } = campaigns;
		const executions = await executionsWithItems(suite.api, WORKFLOWS.broken.id);
		const failed = executions.filter((e) => e.status !== 'success');
		assert.ok(failed.length >= 2, `failed executions: ${JSON.stringify(executions)}`);
		for (const { error } of failed) {
			assert.match(
				error?.message ?? '',
				new RegExp(`"${b.name}" \\(${b.id}\\)`),
				JSON.stringify(error),
			);
			assert.doesNotMatch(error.message, /E2E scale H[12]/);
		}
		const items = executions.flatMap((e) => e.items);
		for (const name of ['h1', 'h2']) {
			const campaignItems = ofCampaign(items, campaigns[name]);
			assert.deepEqual(
				heldToTruth(campaignItems, truthOf(sandbox, name)),
				{ missing: [], extra: [] },
				`${name}: every attempt once`,
			);
		}
		// The healthy campaigns reported at the polls that could not read B.
		const firstFailed = failed[0].startedAt;
		assert.ok(
			executions.some(
				(e) => e.items.length > 0 && e.startedAt >= firstFailed - 5_000 && e.startedAt < healedAt,
			),
			'results of H1 or H2 while B was unreadable',
		);
		const bItems = ofCampaign(items, b);
		const truth = truthOf(sandbox, 'b');
		assert.ok(bItems.length > 0, 'B reported once healed');
		assert.deepEqual(heldToTruth(bItems, truth).extra, [], 'nothing of B twice');
		assert.deepEqual(
			unaccounted(bItems, truth),
			[],
			'every attempt of B reported or counted as skipped',
		);
		const before = executions.filter((e) => e.startedAt < healedAt).flatMap((e) => e.items);
		assert.deepEqual(ofCampaign(before, b), [], 'nothing of B while it could not be read');
		t.diagnostic(
			`${failed.length} failed executions, ${executions.length - failed.length} with results; H1 ${ofCampaign(items, h1).length}, H2 ${ofCampaign(items, h2).length}, B ${bItems.length} results (${bItems.reduce((n, i) => n + (Number(i.skippedAttempts) || 0), 0)} attempts skipped)`,
		);
	});

	it('a first read longer than a poll: silent, spread over polls, then every attempt once; the state 12 bytes or less per ended number', async (t) => {
		const { firstPoll, state } = await outcome(run.first);
		const sandbox = sandboxes.first;
		const f = campaigns.f;
		const path = `/api/v1/voice/campaigns/${f.id}/data`;
		// The first read: every page once, in order, over more than one poll.
		const reads = sandbox.log.filter((e) => e.path === path && e.status === 200);
		const lastOfFirstRead = reads.findIndex((e) => Number(e.query.page) === PAGES);
		const firstRead = reads.slice(0, lastOfFirstRead + 1);
		assert.deepEqual(
			firstRead.map((e) => Number(e.query.page)),
			Array.from({ length: PAGES }, (_, i) => i + 1),
		);
		assert.ok(firstPoll < PAGES, `the poll at activation read ${firstPoll} of ${PAGES} pages`);
		const polls = firstRead.filter(
			(e, i) => i === 0 || Date.parse(e.at) - Date.parse(firstRead[i - 1].at) > POLL_GAP_MS,
		).length;
		assert.ok(polls >= 2, `the first read took ${polls} poll(s)`);

		const executions = await executionsWithItems(suite.api, WORKFLOWS.first.id);
		assert.deepEqual(
			executions.filter((e) => e.status !== 'success').map((e) => e.error),
			[],
		);
		const items = executions.flatMap((e) => e.items);
		const truth = truthOf(sandbox, 'f');
		assert.ok(truth.expected.size > 300, `${truth.expected.size} attempts after activation`);
		assert.deepEqual(heldToTruth(items, truth), { missing: [], extra: [] });
		assertNoneSkipped(items);

		// The state: what grows with the numbers (its long texts) within 12 bytes an ended number.
		const { staticData, endedNumbers } = state;
		assert.equal(endedNumbers, FIRST_READ_NUMBERS);
		const json = JSON.stringify(staticData);
		const fixed = JSON.stringify(staticData, (_, value) =>
			typeof value === 'string' && value.length > 1_000 ? '' : value,
		);
		const bytes = Buffer.byteLength(json);
		const growing = (bytes - Buffer.byteLength(fixed)) / endedNumbers;
		assert.ok(
			growing <= STATE_BYTES_PER_ENDED_NUMBER,
			`${growing.toFixed(2)} bytes per ended number: ${json.slice(0, 500)}`,
		);
		assert.ok(Buffer.byteLength(fixed) < 2_000, `the rest of the state: ${fixed.slice(0, 2_000)}`);
		t.diagnostic(
			`first read over ${polls} polls (${firstPoll} of ${PAGES} pages at activation); ${items.length} results in ${executions.length} executions; static data ${bytes} bytes for ${endedNumbers} ended numbers: ${(bytes / endedNumbers).toFixed(2)} a number, ${growing.toFixed(2)} without its fixed ${bytes - Math.round(growing * endedNumbers)}`,
		);
	});

	it('duplicates: each attempt of both records of a number listed twice, once', async (t) => {
		await outcome(run.dup);
		const sandbox = sandboxes.dup;
		const executions = await executionsWithItems(suite.api, WORKFLOWS.dup.id);
		const items = executions.flatMap((e) => e.items);
		const truth = truthOf(sandbox, 'd');
		assert.deepEqual(heldToTruth(items, truth), { missing: [], extra: [] });
		assertNoneSkipped(items);
		const twice = [...truth.expected].filter(([, times]) => times === 2);
		assert.ok(twice.length >= 8, `${twice.length} attempts ended by both records of a number`);
		assert.deepEqual(
			executions.filter((e) => e.status !== 'success').map((e) => e.error),
			[],
		);
		t.diagnostic(
			`${items.length} results, ${twice.length} attempts ended by both records of their number`,
		);
	});

	it('a call still calling when its campaign ends is reported: Every Attempt and Final Outcome Only', async (t) => {
		const { calling } = await outcome(run.calling);
		const sandbox = sandboxes.calling;
		const e = campaigns.e;
		const truth = truthOf(sandbox, 'e');
		const every = (await executionsWithItems(suite.api, WORKFLOWS.callingEvery.id)).flatMap(
			(x) => x.items,
		);
		assert.deepEqual(heldToTruth(every, truth), { missing: [], extra: [] });
		const everyKeys = new Set(every.map(itemKey));
		assert.deepEqual(
			calling.filter((key) => !everyKeys.has(key)),
			[],
		);

		// Final Outcome Only: each number's last attempt, unless it had ended before activation.
		const records = sandbox.state.campaignData.get(e.id);
		const last = countKeys(records.map((r) => attemptKey(r.phoneNumber, r.attempts)));
		const finalTruth = {
			expected: new Map([...last].filter(([key]) => truth.expected.has(key))),
			either: new Map([...last].filter(([key]) => truth.either.has(key))),
		};
		const final = (await executionsWithItems(suite.api, WORKFLOWS.callingFinal.id)).flatMap(
			(x) => x.items,
		);
		assert.deepEqual(heldToTruth(final, finalTruth), { missing: [], extra: [] });
		const finalKeys = new Set(final.map(itemKey));
		assert.deepEqual(
			calling.filter((key) => truth.expected.has(key) && !finalKeys.has(key)),
			[],
		);
		assert.ok(
			final.every((item) => item.campaign.status === 'completed' || item.status === 'answered'),
		);
		t.diagnostic(
			`${calling.length} calls on a line when the campaign completed; Every Attempt ${every.length} results, Final Outcome Only ${final.length}`,
		);
	});
});
