// The Messenger Live Trigger's generated histories (liveHistories.test.mjs): the trigger's own
// trigger() and loop, with the schedule's real times, on a virtual clock (test/support/virtualTime.mjs)
// against the simulated chats of chatHistories.mjs, hosted as n8n hosts it (test/support/triggerHost.mjs:
// static data saved only at the end of an activation and at each emit, reloaded through n8n's
// proxies at restarts in mode 'init' or 'leadershipChange' at any moment). Customers write over
// minutes of virtual time; the API's clock may be up to an hour from n8n's; one chat may fail
// (5xx or 403 on every read, or unknown for a while); a chat may be listed by ID and by phone, a
// phone's chat may open later, files may never download. A model that knows every message says
// what must have been handed over, and how soon.
import assert from 'node:assert/strict';

import fc from 'fast-check';

import { MessengerLiveTrigger } from '../../../../nodes/Messenger/MessengerLiveTrigger.node.ts';
import { resetPacing } from '../../../../nodes/shared/pacing.ts';
import { scriptedHttp } from '../../../../tools/context.mjs';
import { triggerHost } from '../../../support/triggerHost.mjs';
import { onVirtualTime } from '../../../support/virtualTime.mjs';
import {
	arrivalFields,
	BAD_CHAT,
	quickStore,
	readTapes,
	simulatedChats,
	START,
	watchedEntries,
} from './chatHistories.mjs';
import { API_URL, tapeArbitraries } from './triggerPolls.mjs';

const HOUR = 3_600_000;
/** A failure the trigger met this long before it stopped has been named: a read's time (20 s, its retries within it) and more. */
const MET_BEFORE_CLOSE_MS = 30_000;
/** A message of a chat that works is handed over within this long (about 150 reads of the budget) after it was written, the API's last outage or a restart. */
export const LIVENESS_MS = 150_000;
/** After the customers stop: at most this long for what is owed, then this long more for repeats. */
const QUIET = { maxMs: 10 * 60_000, afterMs: 60_000 };
/**
 * An activation that fails is tried again this long after (n8n queues a failed activation; a
 * person tries again), up to this many times: more than the answers a world's tapes can fail.
 */
const RETRY_ACTIVATION_MS = 60_000;
const ACTIVATION_TRIES = 20;

/**
 * A live world: a chat world of chatHistories.mjs (chats, phone, pages, orders, 503 outages and
 * answers that never come) plus the live dimensions. `skew`, `bad`, `twice`, `files`, `limits` and
 * `late` say whether the world may put the clocks apart, have a bad chat, list a chat twice, have
 * files that never download, answer 429 in its outages, and have late messages.
 */
export const liveWorldArbitrary = ({
	skew = false,
	bad = false,
	twice = false,
	files = false,
	limits = false,
	late = false,
} = {}) =>
	fc
		.record({
			chats: fc.integer({ min: 1, max: 3 }),
			before: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 3, maxLength: 3 }),
			byPhone: twice ? fc.constant(true) : fc.boolean(),
			twice: twice ? fc.boolean() : fc.constant(false),
			opensAt: fc.integer({ min: 0, max: 6 }),
			unknownChat: fc.constant(false),
			bad: bad
				? fc.record({
						kind: fc.constantFrom('5xx', '403', '404'),
						at: fc.nat(4),
						healsAfterMs: fc.constantFrom(20_000, 90_000, 240_000),
						failsFromMs: fc.constantFrom(0, 30_000),
					})
				: fc.constant(undefined),
			skewMs: skew
				? fc.oneof(fc.constantFrom(-HOUR, HOUR), fc.integer({ min: -HOUR, max: HOUR }))
				: fc.constant(0),
			// A person activating sees a chat that fails at once (the activation is refused): n8n's own
			// activations (a start, a new leader) are what must go on with the others.
			activation: bad
				? fc.constantFrom('init', 'leadershipChange')
				: fc.constantFrom('activate', 'init', 'leadershipChange'),
			restarts: fc.array(
				fc.record({
					atMs: fc.integer({ min: 0, max: 150_000 }),
					mode: fc.constantFrom('init', 'leadershipChange'),
				}),
				{ maxLength: 2 },
			),
			direction: fc.constantFrom('both', 'inbound'),
			groupByChat: fc.boolean(),
			download: files ? fc.constant(true) : fc.boolean(),
			brokenFiles: files
				? fc.uniqueArray(fc.integer({ min: 1, max: 10 }), { minLength: 1, maxLength: 3 })
				: fc.constant([]),
			pauseSeconds: fc.constant(0),
			pageSize: fc.integer({ min: 1, max: 3 }),
			arrivals: fc.array(
				fc.record({
					...arrivalFields,
					bad: fc.boolean(),
					gapMs: fc.constantFrom(0, 400, 3_000, 15_000, 40_000),
					lateMs: late ? fc.constantFrom(0, 0, 2_000, 30_000) : fc.constant(0),
				}),
				{ maxLength: 10 },
			),
			...readTapes,
			...tapeArbitraries(60, limits ? [503, 429] : [503]),
			slowFileAt: fc.constant([]),
		})
		.map((world) =>
			// A chat listed by its ID before it opens is a chat the API does not know: a person's
			// activation is refused (as it should be) until it opens, which only its customer's message
			// after activation does. Such a world is activated by n8n.
			world.twice && world.opensAt > 0 && world.activation === 'activate'
				? { ...world, activation: 'init' }
				: world,
		);

/** Messages of an emitted item (Group by Chat gives several per item). */
const messagesOf = (item) => (Array.isArray(item.json.messages) ? item.json.messages : [item.json]);

/** Each message ID handed over, with the times of its hand-overs and what came with it. */
export function handedOver(host) {
	const byId = new Map();
	for (const emit of host.emits) {
		for (const item of emit.items) {
			for (const message of messagesOf(item)) {
				const seen = byId.get(message.messageId) ?? { at: [], message, binary: item.binary };
				seen.at.push(emit.at);
				byId.set(message.messageId, seen);
			}
		}
	}
	return byId;
}

/**
 * What the model says of each message: 'once' (written after the first activation that took
 * ended), 'never' (written before it began, or not wanted by Direction), 'atMostOnce' (written
 * while that activation read, or late: its `createdAt` older than the API's time when it appeared,
 * behind what the trigger may have read already; the API promises nothing of such a message), or
 * written just before watching began, within what the API's clock cannot tell apart
 * (`clockSlackMs`: a chat the activation left unread counts from the earliest the API's clock can
 * have shown then, docs/triggers.md "The API's clock").
 */
export function expectedMessages(world, run) {
	const expected = new Map();
	const slack = clockSlackMs(world);
	for (const message of run.api.messages) {
		let verdict = 'once';
		if (!run.began || message.writtenAt < run.began.from - slack) verdict = 'never';
		else if (message.writtenAt < run.began.from) verdict = 'atMostOnce';
		else if (world.direction === 'inbound' && message.direction !== 'inbound') verdict = 'never';
		else if (message.writtenAt <= run.began.to) verdict = 'atMostOnce';
		else if (message.createdAt < new Date(message.writtenAt + world.skewMs).toISOString()) {
			verdict = 'atMostOnce';
		}
		expected.set(message.id, verdict);
	}
	return expected;
}

/**
 * How long before watching began a message may be stamped and still count as after it: the Date
 * header counts whole seconds (up to 999 ms cut), and it was stamped when the answer was made,
 * an answer's duration before n8n got it (the world's longest).
 */
export const clockSlackMs = (world) => 999 + Math.max(0, ...world.answers.map(({ ms }) => ms));

/**
 * Runs a world: activation (tried again a minute later while it fails), the customers' messages
 * at their times, restarts at theirs, then quiet (no outages) until everything owed was handed
 * over, a minute more, deactivation, and two minutes after it. Resolves to the API, the host,
 * when watching began (by n8n's clock: `from` the first activation that took, `to` its end).
 */
export async function runLive(world, { clientId = 'client' } = {}) {
	// The jitter of retries and of the pacing's cuts, the same at every run of a world.
	const random = Math.random;
	let seed = 12345;
	Math.random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
	try {
		return await onVirtualTime(START, async (clock) => await live(world, clock, clientId));
	} finally {
		Math.random = random;
		resetPacing();
	}
}

/** Waits `ms` (at least a tick: the loop yields to the clock at each request); `signal` cuts it short, as axios does. */
async function answerAfter(ms, signal) {
	await new Promise((resolve, reject) => {
		const aborted = () => {
			clearTimeout(timer);
			reject(Object.assign(new Error('canceled'), { code: 'ERR_CANCELED' }));
		};
		const timer = setTimeout(() => {
			signal?.removeEventListener('abort', aborted);
			resolve();
		}, ms);
		if (signal?.aborted) aborted();
		else signal?.addEventListener('abort', aborted, { once: true });
	});
}

async function live(world, clock, clientId) {
	// An answer's time on the tapes passes while the request waits for it (other timers run then).
	let takes = 0;
	const api = simulatedChats(world, clock.advance, (ms) => (takes += ms));
	const entries = watchedEntries(world);
	const { http } = scriptedHttp(async (options) => {
		takes = 0;
		let answer;
		try {
			answer = { body: api.respond(options) };
		} catch (error) {
			answer = { error };
		}
		await answerAfter(takes, options.abortSignal);
		const status = 'error' in answer ? answer.error.response?.status : 200;
		api.answered.push({ at: Date.now(), url: String(options.url), status });
		if ('error' in answer) throw answer.error;
		return answer.body;
	});
	api.reads = [];
	/** The answers that came (a request cut off by the trigger's time or its stop got none), with their status. */
	api.answered = [];
	const host = triggerHost({
		makeNode: () => new MessengerLiveTrigger(),
		context: {
			params: {
				event: 'messageReceived',
				chats: entries.join(', '),
				direction: world.direction,
				messageTypes: [],
				options: { downloadMedia: world.download, groupByChat: world.groupByChat },
			},
			credentials: { baseUrl: API_URL, clientId, requestsPerMinute: 0 },
			store: quickStore,
		},
		http: async (type, options) => {
			api.reads.push({ at: Date.now(), url: String(options.url) });
			return await http(type, options);
		},
		clock,
	});
	const run = { api, entries, host, restartsAt: [] };
	/** Activates in `mode` until it takes (a person's activation refused with a bad chat: again). */
	const activate = async (mode) => {
		for (let attempt = 0; attempt < ACTIVATION_TRIES; attempt++) {
			const from = Date.now();
			if (await host.activate(mode)) return { from, to: Date.now() };
			await clock.runUntil(Date.now() + RETRY_ACTIVATION_MS);
		}
		return undefined;
	};
	run.began = await activate(world.activation);
	const origin = Date.now();
	const events = [];
	let at = origin;
	for (const arrival of world.arrivals) {
		at += arrival.gapMs;
		events.push({ at, arrive: true });
	}
	for (const restart of world.restarts) events.push({ at: origin + restart.atMs, restart });
	events.sort((a, b) => a.at - b.at);
	for (const event of events) {
		await clock.runUntil(event.at);
		if (event.arrive) api.arrive(1);
		else if (run.began) {
			run.restartsAt.push(Date.now());
			await host.close();
			await activate(event.restart.mode);
		}
	}
	api.arrive(world.arrivals.length);
	api.quiet = true;
	const owed = () => {
		const expected = expectedMessages(world, run);
		const got = handedOver(host);
		return [...expected].some(([id, verdict]) => verdict === 'once' && !got.has(id));
	};
	await clock.runUntil(Date.now() + QUIET.maxMs, () => !owed());
	await clock.runUntil(Date.now() + QUIET.afterMs);
	run.closedAt = Date.now();
	await host.close();
	const requests = api.reads.length;
	await clock.runUntil(Date.now() + 120_000);
	run.afterClose = api.reads.slice(requests);
	return run;
}

/** Each message handed over as the model says; none after a closeFunction resolved. */
export function checkExactlyOnce(world, run) {
	assert.ok(run.began, `no activation took: ${run.host.refused.at(-1)?.error.message}`);
	const got = handedOver(run.host);
	const expected = expectedMessages(world, run);
	for (const [id, verdict] of expected) {
		const count = got.get(id)?.at.length ?? 0;
		const message = run.api.messages.find((m) => m.id === id);
		const what = `${id} (${message.chat}, written at +${message.writtenAt - START} ms, createdAt ${message.createdAt})`;
		if (verdict === 'once')
			assert.equal(count, 1, `${what} handed over ${count} times, expected once`);
		if (verdict === 'never')
			assert.equal(count, 0, `${what} handed over ${count} times, expected never`);
		if (verdict === 'atMostOnce') assert.ok(count <= 1, `${what} handed over ${count} times`);
	}
	for (const id of got.keys()) assert.ok(expected.has(id), `${id} was never written`);
	checkStops(run);
	// A media message comes with its file, or says what failed.
	for (const [id, { message, binary }] of got) {
		if (!message.message?.content?.url || !world.download) continue;
		if (message.binaryProperty !== undefined) {
			assert.ok(binary?.[message.binaryProperty], `${id}: no file`);
		} else assert.ok(message.mediaError, `${id}: neither its file nor a mediaError`);
	}
}

/** Nothing is asked or handed over once a closeFunction resolved. */
export function checkStops(run) {
	assert.deepEqual(run.host.lateRequests, [], 'requests after closeFunction resolved');
	assert.deepEqual(run.host.lateEmits, [], 'emits after closeFunction resolved');
	assert.deepEqual(run.afterClose, [], 'requests after the last deactivation');
}

/**
 * The bad chat's failure reaches the user as a failed execution that names it, once the trigger met
 * it while watching: an answer of the bad chat failing (its 5xx or 403 from `failsFromMs` on, its
 * 404 while unknown) came at least MET_BEFORE_CLOSE_MS before the last deactivation. (A read cut
 * off by the activation's time and answered only once the chat healed met nothing to name.)
 */
export function checkBadChatNamed(world, run) {
	const { kind, failsFromMs } = world.bad;
	const ownFailure = ({ at, status }) =>
		kind === '404'
			? status === 404
			: status === (kind === '403' ? 403 : 503) && at >= START + failsFromMs;
	const met = run.api.answered.some(
		(answer) =>
			answer.url.endsWith(`/messages/chat/${BAD_CHAT}`) &&
			answer.at >= run.began?.from &&
			answer.at <= run.closedAt - MET_BEFORE_CLOSE_MS &&
			ownFailure(answer),
	);
	if (!met) return;
	const named = run.host.failed.some(({ error }) =>
		`${error.message} ${error.description ?? ''}`.includes(BAD_CHAT),
	);
	assert.ok(named, `no failed execution names ${BAD_CHAT} (${run.host.failed.length} failed)`);
}

/** The last moment before `at` in `times` (-Infinity: none). */
const lastBefore = (times, at) =>
	times.reduce((last, t) => (t <= at && t > last ? t : last), -Infinity);

/**
 * A chat that works is never held up by the one that fails: each of its messages owed is handed
 * over within LIVENESS_MS of the latest of its writing, the API's last outage and the last restart.
 */
export function checkLiveness(world, run) {
	assert.ok(run.began, `no activation took: ${run.host.refused.at(-1)?.error.message}`);
	const got = handedOver(run.host);
	const end = run.closedAt;
	for (const [id, verdict] of expectedMessages(world, run)) {
		const message = run.api.messages.find((m) => m.id === id);
		if (verdict !== 'once' || message.chat === BAD_CHAT) continue;
		const handed = got.get(id)?.at[0] ?? end;
		const since = Math.max(
			message.writtenAt,
			lastBefore(run.api.faults, handed),
			lastBefore(run.restartsAt, handed),
		);
		assert.ok(
			handed - since <= LIVENESS_MS,
			`${id} (${message.chat}) handed over ${handed - since} ms after it could be (${
				got.has(id) ? 'late' : 'never'
			}), ${run.api.reads.filter((r) => r.at > since && r.at <= handed).length} requests between`,
		);
	}
}
