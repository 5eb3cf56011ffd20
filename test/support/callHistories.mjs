// Call Finished's generated API histories (test/unit/voiceAi/trigger/callFinishedHistories.test.mjs):
// a simulated campaign whose calls start, end and are retried while the trigger reads its pages,
// the trigger's own code polled against it, and the model of what it must report.
import assert from 'node:assert/strict';

import fc from 'fast-check';

import { CallTable } from '../../nodes/VoiceAi/trigger/callState.ts';
import { VoiceAiTrigger } from '../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { httpError } from '../../tools/context.mjs';
import { scriptedPoll } from './unit.mjs';

export const START = Date.UTC(2026, 0, 5, 9, 0, 0);
/** Numbers of the generated campaigns: two of them shared one 36-bit hash key before. */
const NUMBERS = [
	'+4915100775246',
	'+4915101034780',
	'+34600000001',
	'+34600000002',
	'+34600000003',
];
export const SHAPES = {
	full: (r) => r,
	noCalledAt: ({ calledAt, durationSeconds, ...r }) => r,
	noAttempts: ({ attempts, ...r }) => r,
	minimal: ({ phoneNumber, status }) => ({ phoneNumber, status }),
};
const OUTCOMES = ['answered', 'no_answer', 'busy', 'failed'];

/**
 * A generated world: listings (a number and the outcomes of its attempts), the order the API
 * serves them in, its page size, the shape of its records, and tapes that say how many events
 * happen before each answer, which answers fail (503) and where n8n restarts.
 */
export const worldArbitrary = ({ shapes, orders, duplicates }) =>
	fc
		.record({
			shape: fc.constantFrom(...shapes),
			// What calledAt stamps (docs/api.md leaves it open): the call's start; or, once the call
			// ended, the moment that makes calledAt + durationSeconds its end (moved back, as the
			// sandbox does, when the duration leaves out the ringing); or the call's end (while a
			// number is being called, its record shows the end of the attempt before, if any); or the
			// start while the call goes on and its end once it ended.
			calledAt: fc.constantFrom('start', 'movedBack', 'end', 'startThenEnd'),
			order: fc.constantFrom(...orders),
			pageSize: fc.integer({ min: 1, max: 3 }),
			// How long the API takes to answer, in the model's time: slow pages cut polls short.
			latencyMs: fc.constantFrom(0, 1000, 4000),
			budget: fc.integer({ min: 1, max: 3 }),
			listings: fc.array(
				fc.record({
					number: fc.integer({ min: 0, max: NUMBERS.length - 1 }),
					outcomes: fc.array(fc.constantFrom(...OUTCOMES), { minLength: 1, maxLength: 3 }),
					startedBefore: fc.integer({ min: 0, max: 3 }),
				}),
				{ minLength: 1, maxLength: 6 },
			),
			schedule: fc.array(fc.nat(), { maxLength: 60 }),
			eventsPerAnswer: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 8 }),
			failAt: fc.uniqueArray(fc.integer({ min: 1, max: 60 }), { maxLength: 3 }),
			restartAfter: fc.uniqueArray(fc.integer({ min: 0, max: 20 }), { maxLength: 3 }),
		})
		// A number listed twice (at most) is told from a record read twice only by calledAt
		// (docs/api.md: one record per number; numbers listed twice are a case beyond it).
		.filter(
			(w) =>
				(duplicates &&
					w.shape === 'full' &&
					w.listings.every((l) => w.listings.filter((o) => o.number === l.number).length <= 2)) ||
				new Set(w.listings.map((l) => l.number)).size === w.listings.length,
		);

/**
 * The calledAt a record shows for an ended attempt (moved back: the call talked for the last
 * second; end: its end).
 */
export const shownCalledAt = (world, attempt) => {
	if (attempt.end === undefined || world.calledAt === 'start') return attempt.start;
	return world.calledAt === 'movedBack' ? attempt.end - 1000 : attempt.end;
};

/** Whether an ended attempt's calledAt is its end (the others: calledAt + durationSeconds is). */
const stampsEnd = (world) => world.calledAt === 'end' || world.calledAt === 'startThenEnd';

/** The calledAt a record shows while `attempt` is its last: undefined when it shows none. */
const recordCalledAt = (world, attempts) => {
	const last = attempts.at(-1);
	if (!last) return undefined;
	if (world.calledAt !== 'end' || last.end !== undefined) return shownCalledAt(world, last);
	return attempts.at(-2)?.end;
};

/** Whether calledAt is the end, as the trigger can learn it (calledAt.ts): 'start' or 'end'. */
export const calledAtMeaning = (world) => (stampsEnd(world) ? 'end' : 'start');

/** The API of one campaign as the world makes it, with every attempt's truth. */
export function simulatedApi(world) {
	let now = START;
	const listings = world.listings.map((spec, index) => ({
		index,
		number: NUMBERS[spec.number],
		outcomes: spec.outcomes,
		attempts: [], // { n, start, end?, status? }
		changedAt: 0,
		steps: [], // what happens to it next: 'start' or 'end', in order
	}));
	for (const l of listings) for (const _ of l.outcomes) l.steps.push('start', 'end');
	const step = (l) => {
		const next = l.steps.shift();
		now += 2000;
		if (next === 'start') l.attempts.push({ n: l.attempts.length + 1, start: now });
		else {
			const attempt = l.attempts[l.attempts.length - 1];
			attempt.end = now;
			attempt.status = l.outcomes[attempt.n - 1];
		}
		l.changedAt = now;
	};
	// Some steps happen before watching begins: the baseline holds them.
	for (const [i, l] of listings.entries()) {
		for (let s = 0; s < world.listings[i].startedBefore && l.steps.length; s++) step(l);
	}
	let tape = 0;
	let answers = 0;
	const happen = (count) => {
		for (let k = 0; k < count; k++) {
			const open = listings.filter((l) => l.steps.length);
			if (!open.length) return;
			step(open[(world.schedule[tape++] ?? tape) % open.length]);
		}
	};
	const record = (l) => {
		const last = l.attempts[l.attempts.length - 1];
		const status = !last ? 'pending' : last.end === undefined ? 'calling' : last.status;
		const calledAt = recordCalledAt(world, l.attempts);
		// The call's length: from calledAt to its end, or (calledAt stamping the end) from its start.
		const from = stampsEnd(world) ? last?.start : calledAt;
		return SHAPES[world.shape]({
			phoneNumber: l.number,
			status,
			attempts: last ? last.n : 0,
			...(calledAt !== undefined ? { calledAt: new Date(calledAt).toISOString() } : {}),
			...(last?.end !== undefined ? { durationSeconds: (last.end - from) / 1000 } : {}),
		});
	};
	const api = {
		campaignStatus: 'in_progress',
		since: undefined,
		/** What each poll's answers served, by listing: kept only for polls that succeeded. */
		served: [],
		pollServed: new Map(),
		done: () => listings.every((l) => l.steps.length === 0),
		bound: listings.reduce(
			(sum, l) => sum + (listings.filter((o) => o.number === l.number).length > 1 ? 2 : 1),
			0,
		),
		now: () => now,
		happen,
		listings,
		respond(options) {
			answers++;
			now += world.latencyMs;
			happen(world.eventsPerAnswer[answers % world.eventsPerAnswer.length]);
			if (world.failAt.includes(answers)) throw httpError(503, { message: 'Service Unavailable' });
			const body = api.body(options);
			if (!options.returnFullResponse) return body;
			api.pollSince ??= now;
			return { body, headers: { date: new Date(now).toUTCString() }, statusCode: 200 };
		},
		body({ url, qs = {} }) {
			const campaign = {
				id: 'c1',
				name: 'Spring',
				agentName: 'Lucia',
				status: api.campaignStatus,
				createdAt: new Date(START - 3_600_000).toISOString(),
			};
			if (url.endsWith('/voice/campaigns')) {
				const items = !qs.status || qs.status === campaign.status ? [campaign] : [];
				return { items, total: items.length, page: 1, totalPages: 1 };
			}
			if (url.endsWith('/voice/campaigns/c1')) return campaign;
			const ordered = [...listings];
			if (world.order === 'lastChangeDesc')
				ordered.sort((a, b) => b.changedAt - a.changedAt || a.index - b.index);
			if (world.order === 'lastChangeAsc')
				ordered.sort((a, b) => a.changedAt - b.changedAt || a.index - b.index);
			const page = Number(qs.page ?? 1);
			const shown = ordered.slice((page - 1) * world.pageSize, page * world.pageSize);
			for (const l of shown) {
				if (!api.pollServed.has(l.index)) api.pollServed.set(l.index, []);
				api.pollServed.get(l.index).push(structuredClone(l.attempts));
			}
			return {
				items: shown.map(record),
				totalPages: Math.max(1, Math.ceil(ordered.length / world.pageSize)),
				page,
			};
		},
	};
	return api;
}

/**
 * Runs a world: polls (a restart where the world says) while calls happen, then the campaign
 * completes and polls go on until the trigger stops reading it. Resolves to the items and what
 * the model expects.
 */
export async function run(world, params = {}, log = undefined) {
	const api = simulatedApi(world);
	const staticData = {};
	let node = new VoiceAiTrigger();
	const items = [];
	const firstServed = new Map();
	/** What the polls that succeeded were served of each listing, in order. */
	const served = new Map();
	let failedPolls = 0;
	let watchedSince;
	const poll = async () => {
		api.pollServed = new Map();
		api.pollSince = undefined;
		const { context } = scriptedPoll((options) => api.respond(options), {
			params: { event: 'callFinished', dataRequestsPerPoll: world.budget, ...params },
			staticData,
		});
		try {
			// n8n's clock is the model's: a poll's time runs out when the model's answers took
			// longer than its budget (each event between answers is 2 s), and reading stops there.
			const realNow = Date.now;
			Date.now = () => api.now();
			let result;
			try {
				result = await node.poll.call(context);
			} finally {
				Date.now = realNow;
			}
			items.push(...(result ? result[0].map((i) => i.json) : []));
			log?.({ api, staticData, items: result ? result[0].map((i) => i.json) : [] });
		} catch (error) {
			assert.equal(error.failure?.cause, 'temporarily-unavailable', error.message);
			failedPolls++;
			return false;
		}
		// The state within its bound: a record per listing (two for a number listed twice, whose
		// listings may have taken each other's record).
		const table = staticData.poll?.state?.watched?.c1?.table;
		if (table) assert.ok(CallTable.decode(table).size <= api.bound, 'records kept');
		// Watching began with the first poll that succeeded, at its first dated answer.
		api.since ??= api.pollSince;
		watchedSince ??= staticData.poll?.state?.watched?.c1?.since;
		for (const [index, states] of api.pollServed) {
			served.set(index, [...(served.get(index) ?? []), ...states]);
		}
		for (const [index, states] of api.pollServed)
			if (!firstServed.has(index)) firstServed.set(index, states[0]);
		return true;
	};
	// Watching begins with the first poll that succeeds; calls go on between and during polls.
	let polls = 0;
	let watching = false;
	while ((!watching || !api.done()) && polls < 200) {
		if (world.restartAfter.includes(polls)) node = new VoiceAiTrigger();
		watching = (await poll()) || watching;
		polls++;
		api.happen(1);
	}
	api.campaignStatus = 'completed';
	for (let quiet = 0; quiet < 40 && staticData.poll?.state?.watched?.c1; quiet++) await poll();
	assert.equal(
		staticData.poll?.state?.watched?.c1,
		undefined,
		'the completed campaign is read to its end',
	);
	// What the trigger learned: when watching began by its clock, and what calledAt stamps (never
	// the other reading than the world's).
	const meaning = staticData.poll?.state?.calledAt?.meaning;
	if (meaning) assert.equal(meaning, calledAtMeaning(world), 'what calledAt stamps, learned');
	return { api, items, firstServed, served, failedPolls, since: watchedSince, meaning };
}

/**
 * Whether an ended attempt first read ended tells nothing of when it ended against `since` (the
 * trigger's) but by what calledAt stamps: as the start, calledAt + durationSeconds comes after
 * since; as the end, calledAt does not (calledAt.ts keeps it until the records tell).
 */
function undecidable(world, attempt, since) {
	const calledAt = shownCalledAt(world, attempt);
	const from = stampsEnd(world) ? attempt.start : calledAt;
	const asStart = calledAt + (attempt.end - from);
	return since !== undefined && calledAt <= since && asStart > since;
}

/**
 * Per number, the attempts that ended after watching began and that the trigger can know of: an
 * attempt that ended and was retried before the trigger first read its record leaves no trace, and
 * one that had ended when first read is judged by its own time only when the record has calledAt,
 * and only once the records told what calledAt stamps when the two readings disagree.
 */
export function expectedAttempts(world, api, firstServed, { since } = {}) {
	return judgedAttempts(world, api, firstServed, since).expected;
}

/**
 * Per number, the attempts that may come or not (records with calledAt): with calledAt stamping the end, those that
 * ended before watching began but that the trigger cannot tell from ones that ended after it
 * until a record tells what calledAt stamps (calledAt.ts takes the start reading when a full read
 * of the campaign told nothing).
 */
export function allowedAttempts(world, api, firstServed, { since } = {}) {
	return judgedAttempts(world, api, firstServed, since).allowed;
}

function judgedAttempts(world, api, firstServed, since) {
	const expected = new Map();
	const allowed = new Map();
	for (const l of api.listings) {
		const first = firstServed.get(l.index) ?? [];
		const seenN = first.length;
		const firstEnded = seenN > 0 && first[seenN - 1].end !== undefined;
		const knowable = l.attempts.filter((a) => {
			if (a.end === undefined || a.end <= api.since) return false;
			if (a.n < seenN) return false;
			if (a.n === seenN && firstEnded) return SHAPES[world.shape] === SHAPES.full;
			return true;
		});
		const either = l.attempts.filter(
			(a) =>
				a.end !== undefined &&
				a.end <= api.since &&
				a.n === seenN &&
				firstEnded &&
				['full', 'noAttempts'].includes(world.shape) &&
				undecidable(world, a, since),
		);
		expected.set(l.number, [...(expected.get(l.number) ?? []), ...knowable]);
		allowed.set(l.number, [...(allowed.get(l.number) ?? []), ...either]);
	}
	return { expected, allowed };
}
