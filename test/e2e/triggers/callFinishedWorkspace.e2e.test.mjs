// Voice AI Trigger, Call Finished in a busy workspace, in a running n8n, at the trigger's default
// settings (All Campaigns, Every Attempt, Data Requests per Poll 20, a poll a minute): 26 open
// campaigns whose calls have all ended beside one of 40 numbers and one of 2,000 where calls land.
// Two timelines side by side, each on a sandbox of its own:
// - fast: the API answers at once; every attempt that ended in a step comes within 2 polls;
// - slow: each answer takes 1.5 s and the API's calledAt stamps the end of a call
//   (`calledAtStamps: 'end'`); within 4 polls, and nothing that ended before activation.
// A step (calls end, retries and new numbers are dialed) follows each of the first polls; nothing
// is lost or doubled (tools/callTruth.mjs). On n8n 2.41's durable scheduler:
// callFinishedWorkspaceDurable.e2e.test.mjs; on n8n 1.x: n8n1CallFinishedWorkspace.e2e.test.mjs.
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';

import { DEMO_CLIENTS, startSandbox } from '../../../sandbox/server.mjs';
import {
	endedAttemptList,
	endedSinceWatching,
	heldToTruth,
	itemKey,
	recordsNow,
} from '../../../tools/callTruth.mjs';
import { sandboxCredential } from '../../../tools/workflows.mjs';
import { pollDiagnostics, suiteOptions } from '../harness.mjs';
import { afterNextPoll, callFinishedWorkflow, executionsWithItems } from './callFinished.mjs';
import { usePollingN8n } from './polling.mjs';

const { version, env, title, it } = suiteOptions(
	'Voice AI Trigger, Call Finished in a busy workspace, in a running n8n',
);

const IDLE_CAMPAIGNS = 26;
/** Steps of calls, one after each of the first polls; then polls until the last step's results are due. */
const STEPS = 3;
const TIMELINES = {
	fast: { latencyMs: 0, calledAtStamps: 'start', withinPolls: 2 },
	slow: { latencyMs: 1_500, calledAtStamps: 'end', withinPolls: 4 },
};
/** Seconds from activating the workflows to their first scheduled poll. */
const FIRST_POLL_AFTER_S = 40;
const { full } = DEMO_CLIENTS;
const CREDENTIALS = {
	fast: { id: 'e2eWorkspaceFast', name: 'Call Finished, busy workspace (e2e)' },
	slow: { id: 'e2eWorkspaceSlow', name: 'Call Finished, busy workspace, slow API (e2e)' },
};
const WORKFLOWS = {
	fast: { id: 'e2eWorkspaceFlwF', credential: CREDENTIALS.fast },
	slow: { id: 'e2eWorkspaceFlwS', credential: CREDENTIALS.slow },
};

/** A promise's outcome, kept for a test to read later (no unhandled rejection meanwhile). */
const settle = (promise) =>
	promise.then(
		(value) => ({ value }),
		(error) => ({ error }),
	);

/** The busy workspace: idle open campaigns, and two where calls land, run a few steps. */
function busyWorkspace(sandbox) {
	for (let i = 0; i < IDLE_CAMPAIGNS; i++) {
		// Every number dialed at once and ended at the next step; retries a lifetime away: the
		// campaign stays in progress with nothing to call.
		sandbox.startCallCampaign({
			numbers: 10,
			lines: 10,
			retryDelaySteps: 1e9,
			name: `E2E idle ${i}`,
		});
	}
	sandbox.stepCalls(2);
	const small = sandbox.startCallCampaign({ numbers: 40, lines: 10, name: 'E2E busy 40' });
	const big = sandbox.startCallCampaign({
		numbers: 2_000,
		lines: 150,
		retryDelaySteps: 3,
		name: 'E2E busy 2000',
	});
	sandbox.stepCalls(2);
	return [...sandbox.state.callRuns.values()].map((run) => run.campaign);
}

describe(title, { timeout: 15 * 60_000 }, () => {
	const sandboxes = { fast: undefined, slow: undefined };
	before(async () => {
		for (const [name, timeline] of Object.entries(TIMELINES)) {
			const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', activeCampaignCount: 0 });
			sandbox.setOptions({ calledAtStamps: timeline.calledAtStamps });
			sandboxes[name] = sandbox;
		}
	});
	after(async () => {
		for (const sandbox of Object.values(sandboxes)) await sandbox?.close();
	});

	const suite = usePollingN8n({
		version,
		env,
		credentials: () =>
			Object.keys(TIMELINES).map((name) =>
				sandboxCredential(CREDENTIALS[name], sandboxes[name], full),
			),
		// Imported below, together.
		workflows: () => [],
	});

	/**
	 * One timeline: the first poll (the baseline), then a step after each of the first STEPS polls
	 * and polls until the last step's results are due. Resolves to the poll each attempt of a step
	 * ended after (`stepOf`), the poll that reported it (`arrivals`), the campaigns and what their
	 * records held at activation.
	 */
	async function drive(name, campaigns, atActivation) {
		const sandbox = sandboxes[name];
		const { latencyMs, withinPolls } = TIMELINES[name];
		const describe = () => pollDiagnostics(sandbox, suite, 30);
		const ended = () =>
			campaigns.flatMap((campaign) =>
				endedAttemptList(sandbox, campaign).map(({ key }) => `${campaign.id} ${key}`),
			);
		const stepOf = new Map();
		const arrivals = new Map();
		/** Per poll: when it ended and the executions n8n had recorded by then. */
		const seen = [];
		const known = new Set(ended());
		await afterNextPoll(sandbox, [full], { since: [0], latencyMs, describe });
		for (let poll = 1; poll <= STEPS + withinPolls - 1; poll++) {
			if (poll <= STEPS) {
				sandbox.stepCalls();
				for (const key of ended()) {
					if (!known.has(key)) stepOf.set(key, poll - 1);
					known.add(key);
				}
			}
			await afterNextPoll(sandbox, [full], { latencyMs, describe });
			const executions = await executionsWithItems(suite.api, WORKFLOWS[name].id);
			seen.push(`poll ${poll} ended ${new Date().toISOString()}: ${executions.map((e) => e.id)}`);
			for (const item of executions.flatMap((e) => e.items)) {
				const key = `${item.campaignId} ${itemKey(item)}`;
				if (!arrivals.has(key)) arrivals.set(key, poll);
			}
		}
		return { stepOf, arrivals, campaigns, atActivation, seen };
	}

	const run = {};
	before(async () => {
		const { n8n } = suite;
		const worlds = {};
		for (const name of Object.keys(TIMELINES)) {
			const campaigns = busyWorkspace(sandboxes[name]);
			const records = Object.fromEntries(
				campaigns.map((c) => [c.id, recordsNow(sandboxes[name], c)]),
			);
			worlds[name] = { campaigns, atActivation: { from: 0, records } };
		}
		const cronSecond = Math.floor(Date.now() / 1000 + FIRST_POLL_AFTER_S) % 60;
		const workflows = Object.keys(TIMELINES).map((name) =>
			callFinishedWorkflow(WORKFLOWS[name], cronSecond, { campaignScope: 'all' }),
		);
		// Imported and activated one after another (n8n 1.x's SQLite refuses workflows written at once).
		for (const workflow of workflows) await n8n.importWorkflow(workflow);
		const from = Date.now();
		for (const workflow of workflows) await n8n.activate(workflow.id);
		for (const name of Object.keys(TIMELINES)) {
			worlds[name].atActivation.from = from;
			run[name] = settle(drive(name, worlds[name].campaigns, worlds[name].atActivation));
		}
	});

	for (const [name, { latencyMs, calledAtStamps, withinPolls }] of Object.entries(TIMELINES)) {
		it(`${name} API (answers in ${latencyMs} ms, calledAt stamps the ${calledAtStamps}): every result of a step within ${withinPolls} polls, nothing lost, doubled or from before activation`, async (t) => {
			const { value, error } = await run[name];
			if (error) throw error;
			const { stepOf, arrivals, campaigns, atActivation, seen } = value;
			const sandbox = sandboxes[name];
			const executions = await executionsWithItems(suite.api, WORKFLOWS[name].id);
			assert.deepEqual(
				executions.filter((e) => e.status !== 'success').map((e) => e.error),
				[],
				'no failed execution',
			);
			const items = executions.flatMap((e) => e.items);
			// Timed: the attempts that must come. A call on a line at activation may come or not (the
			// durable scheduler keeps no state of the poll at activation: its first poll records the
			// baseline, docs/triggers.md).
			const timed = [];
			for (const campaign of campaigns) {
				const truth = endedSinceWatching(
					sandbox,
					campaign,
					atActivation.records[campaign.id],
					atActivation,
				);
				for (const key of truth.expected.keys()) {
					if (stepOf.has(`${campaign.id} ${key}`)) timed.push(`${campaign.id} ${key}`);
				}
				const mine = items.filter((item) => item.campaignId === campaign.id);
				assert.deepEqual(
					heldToTruth(mine, truth),
					{ missing: [], extra: [] },
					`${campaign.name}: every attempt once, nothing from before activation`,
				);
			}
			const pollsFor = (key) => (arrivals.get(key) ?? Infinity) - stepOf.get(key);
			const slowest = Math.max(...timed.map(pollsFor));
			// Per step: the polls its last result took ('-': only calls on a line at activation ended).
			const bySteps = Array.from({ length: STEPS }, (_, step) => {
				const ofStep = timed.filter((key) => stepOf.get(key) === step);
				return ofStep.length ? Math.max(...ofStep.map(pollsFor)) : '-';
			});
			t.diagnostic(
				`${timed.length} attempts dialed after activation ended in ${STEPS} steps (${stepOf.size} with the calls on a line then); polls until a step's results were all in: ${bySteps.join(', ')}; ${executions.length} executions`,
			);
			assert.ok(timed.length > 100, `calls landed: ${timed.length}`);
			const unseen = timed.find((key) => !arrivals.has(key));
			const [campaignId, key] = unseen?.split(' ') ?? [];
			const found = executions.find((e) =>
				e.items.some((i) => i.campaignId === campaignId && itemKey(i) === key),
			);
			assert.ok(
				slowest <= withinPolls,
				`polls until every result of a step: ${bySteps}\n${seen.join('\n')}\n${unseen ?? ''} came in ${JSON.stringify(found && { id: found.id, startedAt: found.startedAt })}`,
			);
		});
	}
});
