// The polling triggers run once, on the main instance: one poll per activation or tick (not one
// per process), one change, one execution each. Both triggers poll when the main instance
// activates them and then every minute at `cronSecond`. The tests count the ticks that have
// passed and wait for the polls of each, instead of predicting when a poll comes: on a loaded
// machine a poll comes seconds late. They are done before the shared-limit test fills the API's
// window: a poll that meets a 429 there waits for its pacer, or fails and is made up for by the
// next one, and polls would no longer match ticks one to one.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { sleep, waitFor } from '../../tools/processes.mjs';
import { lastRunItems } from '../../tools/runData.mjs';
import {
	MESSENGER_TRIGGER,
	MESSENGER_TRIGGER_NODE,
	MESSENGER_TRIGGER_WORKFLOW,
	TRIGGER,
	TRIGGER_NODE,
	TRIGGER_WORKFLOW,
} from './queueWorkflows.mjs';

/** @typedef {ReturnType<typeof import('./cluster.mjs').useQueueCluster>} Cluster */

const MINUTE = 60_000;
/**
 * n8n registers a trigger's ticks once the answer of its activation poll is processed: a tick
 * this soon after the activation poll may or may not poll.
 */
const REGISTRATION_MS = 5_000;
/** After every passed tick has been polled: how long a second poll of a tick has to show up. */
const SETTLE_MS = 8_000;
/** Longest wait for the polls of the ticks that passed, with no tick falling in the settling time. */
const POLL_WAIT_MS = 150_000;

/** Whether a log entry is an answered poll of each trigger (one that met a 401 or 429 is sent again). */
const POLLS = {
	/** @param {Cluster} q */
	voice: (q, entry) =>
		entry.clientId === TRIGGER.client.clientId &&
		entry.status === 200 &&
		entry.method === 'GET' &&
		/\/voice\/campaigns$/.test(entry.path) &&
		entry.query.status === 'in_progress',
	/** @param {Cluster} q */
	messenger: (q, entry) =>
		entry.clientId === MESSENGER_TRIGGER.client.clientId &&
		entry.status === 200 &&
		entry.method === 'GET' &&
		entry.path === `/api/v1/messenger/broadcast/messages/${q.watchedMessage.id}`,
};

/** @param {Cluster} q @param {keyof typeof POLLS} kind */
const pollTimes = (q, kind) =>
	q.sandbox.log.filter((entry) => POLLS[kind](q, entry)).map((entry) => Date.parse(entry.at));

/** How many ticks (second `cronSecond` of a minute, UTC) fall in (from, to]. */
function ticksBetween(cronSecond, from, to) {
	const ticksUpTo = (t) => Math.floor((t - cronSecond * 1000) / MINUTE);
	return Math.max(0, ticksUpTo(to) - ticksUpTo(from));
}

/** Milliseconds from `t` to the next tick. */
const msToNextTick = (cronSecond, t) =>
	MINUTE - ((((t - cronSecond * 1000) % MINUTE) + MINUTE) % MINUTE);

/**
 * How many polls a trigger has made by `at` when it polls once at activation (its first poll)
 * and once per tick after: `min` and `max` differ only when a tick fell just after activation.
 * @param {number} cronSecond @param {number[]} times the trigger's polls so far
 */
function expectedPolls(cronSecond, times, at) {
	if (times.length === 0) return { min: 1, max: 1 };
	return {
		min: 1 + ticksBetween(cronSecond, times[0] + REGISTRATION_MS, at),
		max: 1 + ticksBetween(cronSecond, times[0], at),
	};
}

/**
 * Waits until both triggers have answered a poll for every tick that has passed, then SETTLE_MS
 * more with no tick in between (a second poll of a tick, from another process, would come then);
 * resolves to each trigger's count of polls and the range it must be in.
 * @param {Cluster} q
 */
async function settledPolls(q) {
	const deadline = Date.now() + POLL_WAIT_MS;
	for (;;) {
		// A tick due within the settling time comes first, so its polls are counted too.
		const due = msToNextTick(q.cronSecond, Date.now());
		if (due < SETTLE_MS + 2_000) await sleep(due + 1_000);
		const since = Date.now();
		await waitFor(
			() =>
				Object.keys(POLLS).every((kind) => {
					const times = pollTimes(q, kind);
					return times.length >= expectedPolls(q.cronSecond, times, since).min;
				}),
			{
				timeoutMs: Math.max(0, deadline - Date.now()),
				describe: () => `no poll for every tick at second ${q.cronSecond}${q.diagnostics()}`,
			},
		);
		await sleep(SETTLE_MS);
		const at = Date.now();
		// A tick came meanwhile: its polls are counted too, unless the polls never catch up.
		if (ticksBetween(q.cronSecond, since, at) > 0 && at < deadline) continue;
		return {
			at,
			...Object.fromEntries(
				Object.keys(POLLS).map((kind) => {
					const times = pollTimes(q, kind);
					return [kind, { count: times.length, ...expectedPolls(q.cronSecond, times, at) }];
				}),
			),
		};
	}
}

/** @param {Cluster} q @param {Awaited<ReturnType<typeof settledPolls>>} polls */
function assertOnePollPerTick(q, polls, message) {
	for (const kind of Object.keys(POLLS)) {
		const { count, min, max } = polls[kind];
		assert.ok(
			count >= min && count <= max,
			`${message}: the ${kind} trigger polled ${count} times, activation and ticks make ${
				min === max ? min : `${min} or ${max}`
			}${q.diagnostics()}`,
		);
	}
}

/**
 * The baseline: the first test of the suite, so the fan-out runs while the triggers wait for
 * their next tick.
 * @param {Cluster} q
 */
export function triggerBaselineTests(q) {
	it("the main instance alone makes the triggers' baseline polls; then a campaign and a message change", async () => {
		const polls = await settledPolls(q);
		assertOnePollPerTick(q, polls, 'one poll per activation or tick, not one per process');
		assert.deepEqual(
			await q.executionsOf(TRIGGER_WORKFLOW),
			[],
			'the baseline starts no execution',
		);
		assert.deepEqual(await q.executionsOf(MESSENGER_TRIGGER_WORKFLOW), []);

		const at = new Date().toISOString();
		const campaign = q.sandbox.state.campaigns.find((c) => c.status === 'in_progress');
		assert.ok(campaign, 'the sandbox has a campaign in progress');
		Object.assign(campaign, { status: 'completed', updatedAt: at });
		const message = q.sandbox.state.broadcastMessages.find((m) => m.id === q.watchedMessage.id);
		assert.equal(message?.status, 'queued');
		Object.assign(message, { status: 'sent', updatedAt: at });
		q.changed = { campaign, message, polls };
	});
}

/**
 * After the change: one execution each, and no second one a tick later.
 * @param {Cluster} q
 */
export function triggersRanOnceTests(q) {
	it('the triggers ran once: one change each, exactly one execution each', async () => {
		assert.ok(q.changed, 'the baseline test ran');
		const finished = async (workflowId) => {
			const list = await q.executionsOf(workflowId);
			return list.length > 0 && list.every((e) => !['new', 'running'].includes(e.status));
		};
		await waitFor(
			async () =>
				(await finished(TRIGGER_WORKFLOW)) && (await finished(MESSENGER_TRIGGER_WORKFLOW)),
			{
				timeoutMs: MINUTE + POLL_WAIT_MS,
				describe: () => `no finished executions after the change${q.diagnostics()}`,
			},
		);
		// One more tick, and its polls: no process emits the changes again.
		const finishedAt = Date.now();
		await sleep(msToNextTick(q.cronSecond, finishedAt) + 1_000);
		const polls = await settledPolls(q);

		/** The items the workflow's only execution started with. */
		const onlyExecution = async (workflowId, nodeName) => {
			const all = await q.executionsOf(workflowId);
			assert.equal(all.length, 1, JSON.stringify(all, null, 2));
			assert.equal(all[0].status, 'success', JSON.stringify(all[0]));
			assert.equal(all[0].mode, 'trigger');
			const { runData } = await q.api.runDataOf(all[0].id);
			return lastRunItems(runData, nodeName);
		};
		const campaignEvents = await onlyExecution(TRIGGER_WORKFLOW, TRIGGER_NODE);
		assert.deepEqual(
			campaignEvents.map((item) => [item.campaignId, item.previousStatus, item.status]),
			[[q.changed.campaign.id, 'in_progress', 'completed']],
		);
		const messageEvents = await onlyExecution(MESSENGER_TRIGGER_WORKFLOW, MESSENGER_TRIGGER_NODE);
		assert.deepEqual(
			messageEvents.map((item) => [item.messageId, item.previousStatus, item.status]),
			[[q.changed.message.id, 'queued', 'sent']],
		);
		// Each tick was one poll per trigger, from the first to the one just waited for: the
		// workers do not poll. Since the baseline (both counts taken with every tick polled) exactly.
		assertOnePollPerTick(q, polls, 'one poll per tick');
		const ticks = ticksBetween(q.cronSecond, q.changed.polls.at, polls.at);
		assert.deepEqual(
			{ voice: polls.voice.count, messenger: polls.messenger.count },
			{
				voice: q.changed.polls.voice.count + ticks,
				messenger: q.changed.polls.messenger.count + ticks,
			},
			`one poll per tick since the baseline (${ticks} ticks)${q.diagnostics()}`,
		);
	});
}
