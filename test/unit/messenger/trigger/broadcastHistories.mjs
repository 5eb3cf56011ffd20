// Broadcast Message Status Changed's generated histories (broadcastStatusHistories.test.mjs):
// broadcast messages whose status moves on while the trigger asks about them, IDs the API does
// not know from the start or that expire later (404), a clock of the test's own that every
// request moves on (so that a poll's time ends at any request), outages (503, 429) at any
// request, n8n restarting between polls from the state it saved. The trigger's own code is polled
// against it; the model keeps what each read in the kept state's lineage was served.
import assert from 'node:assert/strict';

import fc from 'fast-check';

import { BROADCAST_STATUSES } from '../../../../nodes/Messenger/trigger/broadcastStatus.ts';
import { httpError } from '../../../../tools/context.mjs';
import { N8N_MODES, PERSON_MODES } from './chatHistories.mjs';
import { answerOnTape, pollWorld, tapeArbitraries } from './triggerPolls.mjs';

/** A broadcast message ID the API does not know (404). */
export const UNKNOWN_MESSAGE = 'bm_9999';
const FORWARD = ['queued', 'sent', 'delivered', 'read'];

/**
 * A generated world: the watched messages (how far each is when watching begins, whether and
 * where it fails, whether it expires), the unknown ID, the settings, and the API's tapes: which
 * message moves on before each answer, each answer's duration, the answers cut off by the poll's
 * time, the outages, and where n8n restarts.
 */
export const broadcastWorldArbitrary = () =>
	fc.record({
		messages: fc.array(
			fc.record({
				startAt: fc.integer({ min: 0, max: 2 }),
				failsAt: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
				expires: fc.boolean(),
			}),
			{ minLength: 1, maxLength: 4 },
		),
		unknownId: fc.boolean(),
		unknownFirst: fc.boolean(),
		activation: fc.constantFrom(...PERSON_MODES, ...N8N_MODES),
		statuses: fc.subarray([...BROADCAST_STATUSES]),
		budgetMs: fc.integer({ min: 2_000, max: 8_000 }),
		steps: fc.array(fc.nat(), { maxLength: 16 }),
		answers: fc.array(fc.record({ steps: fc.nat(1), ms: fc.constantFrom(0, 300, 1000, 2500) }), {
			minLength: 1,
			maxLength: 6,
		}),
		...tapeArbitraries(50),
	});

/** The world's API: each message's path of statuses and where it stands, the clock, the tapes. */
export function simulatedBroadcast(world, clock) {
	const messages = world.messages.map((spec, index) => {
		const path =
			spec.failsAt === undefined ? FORWARD : [...FORWARD.slice(0, spec.failsAt), 'failed'];
		return {
			id: `bm_${String(index + 1).padStart(4, '0')}`,
			path,
			at: Math.min(spec.startAt, path.length - 1),
			expires: spec.expires,
			gone: false,
		};
	});
	let steps = 0;
	let answers = 0;
	const api = {
		messages,
		/** Per ID, the status the last answer of this poll served. */
		pollServed: new Map(),
		quiet: false,
	};
	/** A message moves on one status (or, expiring, is gone once it reached its end). */
	const step = (message) => {
		if (message.at < message.path.length - 1) message.at++;
		else if (message.expires) message.gone = true;
	};
	const open = () => messages.filter((m) => !m.gone && (m.at < m.path.length - 1 || m.expires));
	api.step = (count) => {
		for (let k = 0; k < count && steps < world.steps.length; k++) {
			const candidates = open();
			if (!candidates.length) return;
			step(candidates[world.steps[steps++] % candidates.length]);
		}
	};
	/** Every message to its last status (the quiet end: they all get there). */
	api.finish = () => {
		for (const message of messages) message.at = message.path.length - 1;
	};
	api.done = () => steps >= world.steps.length || open().length === 0;
	api.respond = (options) => {
		answers++;
		if (!api.quiet) api.step(world.answers[answers % world.answers.length].steps);
		answerOnTape(world, api, answers, {
			options,
			advance: clock.advance,
			slow: () => world.slowAt.includes(answers),
		});
		const id = decodeURIComponent(String(options.url).split('/').pop());
		const message = messages.find((m) => m.id === id && !m.gone);
		if (!message) throw httpError(404, { statusCode: 404, message: 'Message not found' });
		const status = message.path[message.at];
		api.pollServed.set(id, status);
		return { id, channel: 'whatsapp', recipient: '+34600000001', status };
	};
	return api;
}

/** The IDs a world watches, in the order given. */
export function watchedIds(world, api) {
	const ids = api.messages.map((m) => m.id);
	if (world.unknownId) {
		if (world.unknownFirst) ids.unshift(UNKNOWN_MESSAGE);
		else ids.push(UNKNOWN_MESSAGE);
	}
	return ids;
}

/**
 * Runs a world: polls while the messages move on (restarts where the world says), then every
 * message reaches its last status and quiet polls go on until none is watched. Resolves to the
 * changes emitted, the failures, and per ID the statuses served to the reads of the kept state's
 * lineage (the first is its baseline).
 */
export async function runBroadcast(world, clock) {
	const api = simulatedBroadcast(world, clock);
	const ids = watchedIds(world, api);
	/** A person activating may be refused an unknown ID (or one expired already): then no poll records anything. */
	const refusable =
		(world.unknownId || world.messages.some((m) => m.expires)) &&
		PERSON_MODES.includes(world.activation);
	const run = await pollWorld(world, api, {
		params: {
			event: 'broadcastStatusChanged',
			messageIds: ids.join(', '),
			statuses: world.statuses,
		},
		refusable,
		tick: clock.advance,
		moveOn: () => api.step(1),
		quietEnd: api.finish,
		startPoll: () => {
			api.pollServed = new Map();
		},
		recordPoll: (state, before, lineage) => {
			assert.ok(
				Object.keys(state.watching).every((id) => ids.includes(id)),
				'watching',
			);
			assert.ok(
				state.finished.every((id) => ids.includes(id)),
				'finished',
			);
			for (const [id, status] of api.pollServed) (lineage[id] ??= []).push(status);
		},
		emittedOf: (item) => [item.json],
		settled: (staticData) =>
			staticData.poll &&
			!staticData.poll.state.next &&
			Object.keys(staticData.poll.state.watching).length === 0,
	});
	return { api, ids, refusable, ...run };
}

/**
 * The changes the model expects: for each ID, each pair of consecutive reads in the kept
 * state's lineage whose statuses differ, the later one among the chosen statuses (all when none).
 */
export function expectedChanges(world, run) {
	const expected = [];
	for (const [id, served] of Object.entries(run.lineage)) {
		for (let i = 1; i < served.length; i++) {
			const [previousStatus, status] = [served[i - 1], served[i]];
			if (previousStatus === status) continue;
			if (world.statuses.length && !world.statuses.includes(status)) continue;
			expected.push(`${id}:${previousStatus}>${status}`);
		}
	}
	return expected.sort();
}

/** What every run must show, whatever the world (the property, and the defects test's histories). */
export function checkBroadcastRun(world, run) {
	const changes = run.emitted.map((c) => `${c.messageId}:${c.previousStatus}>${c.status}`);
	assert.deepEqual([...changes].sort(), expectedChanges(world, run));
	assert.equal(new Set(changes).size, changes.length, `emitted twice: ${changes}`);
	const gone = new Set([
		UNKNOWN_MESSAGE,
		...run.api.messages.filter((m) => m.gone).map((m) => m.id),
	]);
	for (const failure of run.failures) {
		const id = /broadcast message "([^"]+)" was not found/.exec(failure.message)?.[1];
		assert.ok(id && gone.has(id), `a failed execution of its own: ${failure.message}`);
	}
	for (const error of run.thrown) {
		const id = /broadcast message "([^"]+)" was not found/.exec(error.message)?.[1];
		const named = run.refusable && gone.has(id);
		assert.ok(
			named || ['temporarily-unavailable', 'rate-limited'].includes(error.failure?.cause),
			`a poll failed with ${JSON.stringify(error.failure)}: ${error.message}`,
		);
	}
	if (run.refusedAtActivation) {
		assert.deepEqual(run.emitted, []);
		return;
	}
	// Every message that does not expire is seen to its last status, whatever else is watched.
	for (const message of run.api.messages.filter((m) => !m.expires)) {
		const served = run.lineage[message.id] ?? [];
		assert.equal(served.at(-1), message.path.at(-1), `${message.id}: ${served}`);
	}
	if (world.unknownId) {
		const named = run.failures.filter((f) => f.message.includes(UNKNOWN_MESSAGE)).length;
		assert.ok(named >= 1 && named <= 1 + world.restartAfter.length, `named ${named} times`);
	}
}
