// Polls that keep to their time in a running n8n (triggers/polling.mjs says how n8n polls), against
// an API that answers every request in 1.5 s and one that takes requests and never answers. Three
// timelines run side by side, each on its own API client:
// - Call Finished with Data Requests per Poll at its maximum (100) on a campaign of 3,000 numbers:
//   30 pages, 45 s of answers, more than a poll's 40 s. Its baseline is read over two polls (three
//   under the durable scheduler, which does not keep what the poll at activation read); the
//   campaign then runs to its end at once and its last sweep takes two polls again.
// - Message Received watching 40 chats, one request each: a poll reads about 25 of them.
// - Call Finished on a second sandbox that stops answering for one poll: that poll fails within
//   its budget (a failed execution, the Error Workflow runs) and the next one reports what the
//   campaign did meanwhile, once.
// Every poll is timed in the sandbox log: its requests are grouped by the pauses between polls (the
// workflows are activated together, and their first scheduled poll comes long after the polls at
// activation). With the durable scheduler and on n8n 1.x: pollTimeDurable.e2e.test.mjs,
// n8n1PollTime.e2e.test.mjs.
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';

import { DEMO_CLIENTS, startSandbox } from '../../../sandbox/server.mjs';
import { doubled, endedAttempts, finalOutcomes, itemKey } from '../../../tools/callTruth.mjs';
import {
	POLL_NOOP_NODE,
	executableWorkflow,
	isN8n1,
	lastRunItems,
	pollDiagnostics,
	sandboxCredential,
	suiteOptions,
	waitFor,
} from '../harness.mjs';
import { callFinishedWorkflow } from './callFinished.mjs';
import { messageReceivedWorkflow } from './messageReceived.mjs';
import { usePollingN8n } from './polling.mjs';

const { version, env, title, it } = suiteOptions(
	'Polls within their time budget against a slow or silent API, in a running n8n',
);

/** Every answer of the suite's sandbox is held back this long. */
const LATENCY_MS = 1_500;
/** The longest a poll may take (nodes/shared/pollClock.ts POLL_BUDGET.maxMs; n8n's durable scheduler offers less). */
const BUDGET_MS = 40_000;
/** For the event loop of a loaded machine, between an answer and the poll's end. */
const SLACK_MS = 2_000;
/** A pause this long in a client's requests ends a poll (its requests follow each other closely). */
const POLL_GAP_MS = 10_000;
const ABANDONED = /Poll exceeded its timeout and was abandoned/;
/**
 * A scheduled poll's budget in seconds: the durable scheduler offers its timeout (45 s) less a
 * fifth (getPollBudgetMs), shorter than the trigger's own.
 */
const scheduledBudgetS = (env) => (env?.N8N_SCHEDULER_POLL_TRIGGERS_ENABLED === 'true' ? 36 : 40);

/** Seconds from activating the workflows to their first scheduled poll. */
const FIRST_POLL_AFTER_S = 58;
const CHAT_COUNT = 40;
const PAGES = 30;
const CREDENTIALS = {
	calls: { id: 'e2ePollTimeCalls', name: 'Poll time, calls (e2e)' },
	chats: { id: 'e2ePollTimeChats', name: 'Poll time, chats (e2e)' },
	silent: { id: 'e2ePollTimeSilnt', name: 'Poll time, silent API (e2e)' },
};
const CLIENTS = {
	calls: DEMO_CLIENTS.voiceOnly,
	chats: DEMO_CLIENTS.messengerOnly,
	silent: DEMO_CLIENTS.full,
};
const WORKFLOWS = {
	calls: { id: 'e2ePollTimeCall1', credential: CREDENTIALS.calls },
	chats: { id: 'e2ePollTimeChat1', credential: CREDENTIALS.chats },
	silent: { id: 'e2ePollTimeHung1', credential: CREDENTIALS.silent },
	onError: { id: 'e2ePollTimeError' },
};

/** The Error Workflow: an Error Trigger, whose output shows what it was given. */
const errorWorkflow = (id) =>
	executableWorkflow(id, {}, [
		{
			id: `${id}-trigger`,
			name: 'Error Trigger',
			type: 'n8n-nodes-base.errorTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
	]);

/**
 * The polls of `client` in `sandbox`'s log from entry `from` on, that have ended (with `running`,
 * the one that may still run too): its requests grouped by pauses longer than POLL_GAP_MS, each
 * poll from its first request's arrival to its last answer (`latencyMs` after that request arrived).
 */
function pollsIn(sandbox, client, { from = 0, latencyMs = 0, running = false } = {}) {
	const polls = [];
	let last = -Infinity;
	for (const entry of sandbox.log.slice(from)) {
		if (entry.clientId !== client.clientId) continue;
		const at = Date.parse(entry.at);
		if (at - last > POLL_GAP_MS) polls.push({ start: at, end: at, requests: [] });
		const poll = polls.at(-1);
		poll.end = at + latencyMs;
		poll.requests.push(entry);
		last = at;
	}
	if (!running && Date.now() - last <= POLL_GAP_MS) polls.pop();
	return polls.map((poll) => ({ ...poll, ms: poll.end - poll.start }));
}

/** A promise's outcome, kept for a test to read later (no unhandled rejection meanwhile). */
const settle = (promise) =>
	promise.then(
		(value) => ({ value }),
		(error) => ({ error }),
	);

describe(title, { timeout: 15 * 60_000 }, () => {
	/** The second sandbox: the one that stops answering. */
	const silent = { sandbox: undefined };
	before(async () => {
		silent.sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
	});
	after(async () => {
		await silent.sandbox?.close();
	});

	const campaigns = { big: undefined, small: undefined };
	/** The 40 watched chats, and what the calls had done when watching began. */
	let chats = [];
	let endedAtActivation = new Map();
	const suite = usePollingN8n({
		version,
		env,
		credentials: (sandbox) => [
			sandboxCredential(CREDENTIALS.calls, sandbox, CLIENTS.calls),
			sandboxCredential(CREDENTIALS.chats, sandbox, CLIENTS.chats),
			sandboxCredential(CREDENTIALS.silent, silent.sandbox, CLIENTS.silent),
		],
		// Imported below, together.
		workflows: () => [],
	});

	const diagnostics = (sandbox = suite.sandbox) => pollDiagnostics(sandbox, suite, 30);
	const reads = (sandbox, client, path, from = 0) =>
		sandbox.log
			.slice(from)
			.filter((e) => e.clientId === client.clientId && e.path === path && e.status === 200);
	const bigDataPath = () => `/api/v1/voice/campaigns/${campaigns.big.id}/data`;
	const chatPath = (chat) => `/api/v1/messenger/messages/chat/${chat.id}`;
	const chatsRead = (from) =>
		chats.filter((chat) => reads(suite.sandbox, CLIENTS.chats, chatPath(chat), from).length > 0)
			.length;

	/** Waits until `client` has made a whole poll that started after `at` (ms). */
	async function aPollAfter(sandbox, client, at, latencyMs) {
		await waitFor(() => pollsIn(sandbox, client, { latencyMs }).some((poll) => poll.start > at), {
			timeoutMs: 130_000,
			intervalMs: 1_000,
			describe: () =>
				`no poll of ${client.clientId} after ${new Date(at).toISOString()}${diagnostics(sandbox)}`,
		});
	}

	/**
	 * The polls of Call Finished so far: the first one whose reads of the campaign's data went on
	 * from an earlier poll to the last page ended the baseline. (The durable scheduler does not keep
	 * what the poll at activation read: the baseline starts again at its first poll.)
	 */
	function baselineEnded() {
		const polls = pollsIn(suite.sandbox, CLIENTS.calls, { running: true });
		const pages = (poll) =>
			poll.requests.filter((e) => e.path === bigDataPath()).map((e) => Number(e.query.page));
		const end = polls.findIndex((poll) => pages(poll)[0] > 1 && pages(poll).includes(PAGES));
		return end >= 0 && { polls: end + 1 };
	}

	/**
	 * Call Finished: the baseline read to its end (over polls), then the campaign to its end at
	 * once; its last sweep, and one poll more.
	 */
	async function driveCalls() {
		const { sandbox } = suite;
		const { polls: baselinePolls } = await waitFor(baselineEnded, {
			timeoutMs: 260_000,
			intervalMs: 500,
			describe: () => `the baseline did not read ${PAGES} pages${diagnostics()}`,
		});
		const big = campaigns.big;
		while (big.status !== 'completed') sandbox.stepCalls(1, big.id);
		const from = sandbox.log.length;
		const swept = await waitFor(
			() => reads(sandbox, CLIENTS.calls, bigDataPath(), from).at(PAGES - 1),
			{
				timeoutMs: 200_000,
				intervalMs: 1_000,
				describe: () => `the last sweep did not read ${PAGES} pages${diagnostics()}`,
			},
		);
		await aPollAfter(sandbox, CLIENTS.calls, Date.parse(swept.at) + POLL_GAP_MS, LATENCY_MS);
		return { baselinePolls, from };
	}

	/** Message Received: every chat has its baseline; then a message in each, read over polls. */
	async function driveChats() {
		const { sandbox } = suite;
		await waitFor(() => chatsRead(0) === CHAT_COUNT, {
			timeoutMs: 200_000,
			intervalMs: 500,
			describe: () => `${chatsRead(0)} chats read for the baseline${diagnostics()}`,
		});
		const baselinePolls = pollsIn(sandbox, CLIENTS.chats, { latencyMs: LATENCY_MS }).length + 1;
		const written = chats.map(
			(chat, i) => sandbox.customerWrites({ chatId: chat.id, text: `order ${i}` }).items[0].id,
		);
		const from = sandbox.log.length;
		await waitFor(() => chatsRead(from) === CHAT_COUNT, {
			timeoutMs: 200_000,
			intervalMs: 1_000,
			describe: () => `${chatsRead(from)} chats read after the messages${diagnostics()}`,
		});
		await aPollAfter(sandbox, CLIENTS.chats, Date.now() + POLL_GAP_MS, LATENCY_MS);
		return { baselinePolls, written };
	}

	/**
	 * The silent API: after the baseline, the sandbox takes requests and never answers until a poll
	 * has failed; meanwhile the small campaign runs to its end. Then it answers again.
	 */
	async function driveSilence() {
		const { sandbox } = silent;
		const id = WORKFLOWS.silent.id;
		// A poll after the one at activation, whose state the durable scheduler does not keep.
		await waitFor(() => pollsIn(sandbox, CLIENTS.silent).length >= 2, {
			timeoutMs: 130_000,
			intervalMs: 1_000,
			describe: () => `no poll after activation${diagnostics(sandbox)}`,
		});
		sandbox.setFaults({ hangRate: 1 });
		const from = sandbox.log.length;
		const small = campaigns.small;
		while (small.status !== 'completed') sandbox.stepCalls(1, small.id);
		const failed = await waitFor(
			async () => (await suite.api.executionsOf(id)).find((e) => e.status === 'error'),
			{
				timeoutMs: 130_000,
				intervalMs: 1_000,
				describe: () => `no failed execution${diagnostics(sandbox)}`,
			},
		);
		// The workflow is the sandbox's only client (a request not answered names none in the log).
		const hung = sandbox.log.slice(from);
		sandbox.setFaults({});
		await waitFor(
			async () => (await suite.api.executionsOf(id)).some((e) => e.status === 'success'),
			{
				timeoutMs: 130_000,
				intervalMs: 1_000,
				describe: () => `no execution after the API answered again${diagnostics(sandbox)}`,
			},
		);
		return { failed, hung };
	}

	const run = {};
	before(async () => {
		const { n8n, sandbox } = suite;
		// Slow from the first poll on: the baselines too must keep to their time.
		sandbox.setFaults({ latencyMs: LATENCY_MS });
		campaigns.big = sandbox.startCallCampaign({
			numbers: PAGES * 100,
			lines: 300,
			name: 'E2E poll time',
		});
		sandbox.stepCalls(2, campaigns.big.id);
		endedAtActivation = endedAttempts(sandbox, campaigns.big);
		chats = Array.from(
			{ length: CHAT_COUNT },
			(_, i) => sandbox.customerWrites({ phone: `+3460077${String(i).padStart(4, '0')}` }).chat,
		);
		campaigns.small = silent.sandbox.startCallCampaign({
			numbers: 20,
			lines: 20,
			name: 'E2E poll time, silent API',
		});
		silent.sandbox.stepCalls(1, campaigns.small.id);

		// The Error Workflow first: the silent API's workflow names it by n8n's ID (n8n 1.x gives
		// new ones). n8n 2.x runs a published Error Workflow only; n8n 1.x cannot publish one.
		await n8n.importWorkflow({ ...errorWorkflow(WORKFLOWS.onError.id), active: !isN8n1(version) });
		// The others are activated together, and their first scheduled poll comes well after the
		// polls at activation (up to 40 s): a poll is told from the next by the pause between them.
		const cronSecond = Math.floor(Date.now() / 1000 + FIRST_POLL_AFTER_S) % 60;
		const silentWorkflow = callFinishedWorkflow(WORKFLOWS.silent, cronSecond, {
			campaignIds: [campaigns.small.id],
		});
		const errorWorkflowId = n8n.workflowId(WORKFLOWS.onError.id);
		const workflows = [
			callFinishedWorkflow(WORKFLOWS.calls, cronSecond, {
				campaignIds: [campaigns.big.id],
				dataRequestsPerPoll: 100,
			}),
			messageReceivedWorkflow(
				WORKFLOWS.chats.id,
				CREDENTIALS.chats,
				chats.map((chat) => chat.id).join('\n'),
				cronSecond,
			),
			{
				...silentWorkflow,
				settings: { ...silentWorkflow.settings, errorWorkflow: errorWorkflowId },
			},
		];
		// One after another: n8n 1.x on SQLite refuses workflows written at the same moment.
		for (const workflow of workflows) await n8n.importWorkflow({ ...workflow, active: true });
		run.calls = settle(driveCalls());
		run.chats = settle(driveChats());
		run.silence = settle(driveSilence());
	});

	/** What a timeline found, or its failure. */
	async function outcome(promise) {
		const { value, error } = await promise;
		if (error) throw error;
		return value;
	}

	/** The polls of a client, each within its budget. */
	function assertPollsInBudget(sandbox, client, latencyMs) {
		const polls = pollsIn(sandbox, client, { latencyMs });
		const longest = Math.max(...polls.map((poll) => poll.ms));
		assert.ok(
			longest <= BUDGET_MS + SLACK_MS,
			`polls took ${polls.map((poll) => poll.ms)} ms${diagnostics(sandbox)}`,
		);
		return { polls: polls.length, longest };
	}

	it('Call Finished at 100 data requests a poll, 1.5 s an answer: each result once, every poll within its budget', async (t) => {
		const { baselinePolls, from } = await outcome(run.calls);
		const { sandbox } = suite;
		assert.ok(baselinePolls >= 2, `the baseline took ${baselinePolls} poll(s)`);
		const lastSweep = pollsIn(sandbox, CLIENTS.calls, { from }).filter((poll) =>
			poll.requests.some((e) => e.path === bigDataPath()),
		);
		assert.ok(lastSweep.length >= 2, `the last sweep took ${lastSweep.length} poll(s)`);
		const items = await suite.api.emittedItems(WORKFLOWS.calls.id, POLL_NOOP_NODE);
		assert.deepEqual(doubled(items), [], 'nothing reported twice');
		// The campaign ran to its end between two polls: what a number did before its last attempt
		// was never there to read. Each number's last attempt is reported, unless it had ended
		// before activation (the baseline).
		const expected = [...finalOutcomes(sandbox, campaigns.big).keys()].filter(
			(key) => !endedAtActivation.has(key),
		);
		assert.ok(expected.length > 2_000, `${expected.length} results`);
		assert.deepEqual(items.map(itemKey).sort(), expected.sort());
		const truth = endedAttempts(sandbox, campaigns.big);
		assert.ok(items.every((item) => truth.get(itemKey(item)) === item.status));
		const { polls, longest } = assertPollsInBudget(sandbox, CLIENTS.calls, LATENCY_MS);
		assert.doesNotMatch(suite.output(), ABANDONED);
		const executions = (await suite.api.executionsOf(WORKFLOWS.calls.id)).length;
		t.diagnostic(
			`Call Finished: ${polls} polls, the longest ${longest} ms (budget ${BUDGET_MS}), ${items.length} results in ${executions} executions, baseline over ${baselinePolls} polls, last sweep over ${lastSweep.length}`,
		);
	});

	it('Message Received on 40 chats, 1.5 s an answer: each message once, over several polls, every poll within its budget', async (t) => {
		const { baselinePolls, written } = await outcome(run.chats);
		const { sandbox } = suite;
		assert.ok(baselinePolls >= 2, `the baseline took ${baselinePolls} poll(s)`);
		const items = await suite.api.emittedItems(WORKFLOWS.chats.id, POLL_NOOP_NODE);
		const ids = items.map((item) => item.messageId);
		assert.deepEqual(
			ids.filter((id, i) => ids.indexOf(id) !== i),
			[],
			'nothing reported twice',
		);
		assert.deepEqual([...ids].sort(), [...written].sort());
		const executions = (await suite.api.executionsOf(WORKFLOWS.chats.id)).length;
		assert.ok(executions >= 2, `read over ${executions} poll(s)`);
		const { polls, longest } = assertPollsInBudget(sandbox, CLIENTS.chats, LATENCY_MS);
		assert.doesNotMatch(suite.output(), ABANDONED);
		t.diagnostic(
			`Message Received: ${polls} polls, the longest ${longest} ms (budget ${BUDGET_MS}), ${items.length} messages in ${executions} executions, baseline over ${baselinePolls} polls`,
		);
	});

	it('an API that never answers: the poll fails within its budget, the Error Workflow runs, the next poll reports what it missed, once', async (t) => {
		const { failed, hung } = await outcome(run.silence);
		const { sandbox } = silent;
		const id = WORKFLOWS.silent.id;
		assert.ok(hung.length >= 1, 'the failed poll asked');
		assert.ok(
			hung.every((e) => e.status === 0),
			'and was not answered',
		);
		const timeBudget = new RegExp(
			`The poll stopped at the end of its time budget \\(${scheduledBudgetS(env)} s\\) while waiting for the API to answer`,
		);
		const { error } = await suite.api.runDataOf(failed.id);
		assert.match(error?.message ?? '', timeBudget, JSON.stringify(error));
		const tookMs = Date.parse(failed.stoppedAt ?? failed.startedAt) - Date.parse(hung[0].at);
		const budgetMs = scheduledBudgetS(env) * 1000;
		assert.ok(tookMs <= budgetMs + SLACK_MS, `the failed poll took ${tookMs} ms`);

		// The Error Workflow ran once, for that poll.
		const [handled, ...more] = await waitFor(
			async () => {
				const list = await suite.api.executionsOf(WORKFLOWS.onError.id);
				return list.length && list.every((e) => e.status === 'success') ? list : undefined;
			},
			{ timeoutMs: 30_000, describe: () => 'the Error Workflow did not run' },
		);
		assert.deepEqual(more, []);
		const [report] = lastRunItems((await suite.api.runDataOf(handled.id)).runData, 'Error Trigger');
		assert.equal(report.workflow.id, suite.n8n.workflowId(id));
		const reported = report.execution?.error?.message ?? report.trigger?.error?.message;
		assert.match(reported ?? '', timeBudget, JSON.stringify(report));

		// One failed execution, then one with every result of the campaign, and nothing again.
		const executions = (await suite.api.executionsOf(id)).sort(
			(a, b) => Number(a.id) - Number(b.id),
		);
		assert.deepEqual(
			executions.map((e) => e.status),
			['error', 'success'],
		);
		const items = lastRunItems(
			(await suite.api.runDataOf(executions[1].id)).runData,
			POLL_NOOP_NODE,
		);
		assert.deepEqual(doubled(items), []);
		assert.deepEqual(
			items.map(itemKey).sort(),
			[...finalOutcomes(sandbox, campaigns.small).keys()].sort(),
		);
		const { polls, longest } = assertPollsInBudget(sandbox, CLIENTS.silent, 0);
		assert.doesNotMatch(suite.output(), ABANDONED);
		t.diagnostic(
			`silent API: the failed poll took ${tookMs} ms (budget ${budgetMs}); ${polls} polls answered, the longest ${longest} ms; ${items.length} results after it`,
		);
	});
});
