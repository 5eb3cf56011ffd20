// Call Finished's generated API histories (test/unit/voiceAi/trigger/callFinishedHistories.test.mjs):
// a simulated campaign whose calls start, end and are retried while the trigger reads its pages,
// the trigger's own code polled against it, and the model of what it must report.
import assert from 'node:assert/strict';

import fc from 'fast-check';
import { ObservableObject } from 'n8n-workflow';

import { CallTable } from '../../nodes/VoiceAi/trigger/callState.ts';
import { VoiceAiTrigger } from '../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { httpError, networkError } from '../../tools/context.mjs';
import { scriptedPoll } from './unit.mjs';

export const START = Date.UTC(2026, 0, 5, 9, 0, 0);
/** Numbers of the generated campaigns: two of them shared one 36-bit hash key before. */
const NUMBERS = [
	'+4915100775246',
	'+4915101034780',
	'+34600000001',
	'+34600000002',
	'+34600000003',
	'+34600000004',
	'+34600000005',
	'+34600000006',
	'+34600000007',
];
/** How a generated campaign ends: a final status, or deleted (gone from the list, its data 404). */
const CAMPAIGN_ENDS = ['completed', 'cancelled', 'failed', 'deleted'];
/**
 * What an answer may meet instead of its page: an outage (503), a 429, a timeout, a 403 for the
 * campaign read, or n8n stopping in the middle of the poll (its state not saved).
 */
const FAULTS = ['503', '429', 'timeout', '403', 'restart'];
/** The longest a failure may last, in answers (a 429 is asked again up to 6 times in all). */
const LONGEST_FAULT = 7;

/**
 * A workflow's static data as n8n keeps it: a live object the polls change, wrapped in n8n's own
 * observable proxies (n8n-workflow's ObservableObject, as Workflow builds it), saved as JSON only
 * at n8n's save points (the end of an activation, a poll that returned items), and at a restart
 * loaded again from what was saved, through the same proxies (docs/testing.md).
 */
export function n8nStaticData(nodeName = 'Call Finished') {
	const key = `node:${nodeName}`;
	let saved = '{}';
	let workflow;
	const load = () => {
		workflow = ObservableObject.create(JSON.parse(saved), undefined, {
			ignoreEmptyOnFirstChild: true,
		});
	};
	load();
	return {
		/** What getWorkflowStaticData('node') gives (Workflow.getStaticData). */
		node() {
			if (workflow[key] === undefined) workflow[key] = ObservableObject.create({}, workflow);
			return workflow[key];
		},
		/** A save point: written when something changed since the last (saveStaticData). */
		save() {
			if (!workflow.__dataChanged) return;
			saved = JSON.stringify(workflow);
			workflow.__dataChanged = false;
		},
		/** n8n restarts: the live object is gone, what was saved is loaded. */
		restart: load,
	};
}
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
			pageSize: fc.integer({ min: 1, max: 4 }),
			// How long the API takes to answer, in the model's time: slow pages cut polls short.
			latencyMs: fc.constantFrom(0, 1000, 4000),
			budget: fc.integer({ min: 1, max: 3 }),
			listings: fc.array(
				fc.record({
					number: fc.integer({ min: 0, max: NUMBERS.length - 1 }),
					campaign: fc.integer({ min: 0, max: 2 }),
					outcomes: fc.array(fc.constantFrom(...OUTCOMES), { minLength: 1, maxLength: 5 }),
					startedBefore: fc.integer({ min: 0, max: 3 }),
				}),
				{ minLength: 1, maxLength: 9 },
			),
			// Campaigns: 1 to 3 (a listing of campaign i beyond them is the last one's), each ended
			// its own way once its calls are over.
			campaigns: fc.integer({ min: 1, max: 3 }),
			ends: fc.array(fc.constantFrom(...CAMPAIGN_ENDS), { minLength: 3, maxLength: 3 }),
			schedule: fc.array(fc.nat(), { maxLength: 60 }),
			eventsPerAnswer: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 8 }),
			failAt: fc.uniqueArray(fc.integer({ min: 1, max: 60 }), { maxLength: 3 }),
			// Failures from an answer on, lasting some answers (a poll fails when its retries do).
			faults: fc.array(
				fc.record({
					at: fc.integer({ min: 1, max: 120 }),
					kind: fc.constantFrom(...FAULTS),
					answers: fc.integer({ min: 1, max: LONGEST_FAULT }),
				}),
				{ maxLength: 4 },
			),
			// Restarts before a poll (by its number, the last polls after the campaigns ended too).
			restartAfter: fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { maxLength: 4 }),
			// n8n's clock against the API's: up to an hour either way.
			clockOffsetMs: fc.oneof(
				fc.constant(0),
				fc.constantFrom(-3_600_000, 3_600_000),
				fc.integer({ min: -3_600_000, max: 3_600_000 }),
			),
		})
		// A number listed twice (at most) is told from a record read twice only by calledAt
		// (docs/api.md: one record per number; numbers listed twice are a case beyond it).
		.filter(
			(w) =>
				(duplicates &&
					w.shape === 'full' &&
					w.listings.every((l) => w.listings.filter((o) => sameListing(w, o, l)).length <= 2)) ||
				w.listings.every((l) => w.listings.filter((o) => sameListing(w, o, l)).length === 1),
		);

/** A listing's campaign (0 to campaigns - 1; worlds without campaigns have one). */
const campaignOf = (world, spec) => Math.min(spec.campaign ?? 0, (world.campaigns ?? 1) - 1);

/** Two listings of one number in one campaign. */
const sameListing = (world, a, b) =>
	a.number === b.number && campaignOf(world, a) === campaignOf(world, b);

/** A campaign's ID in the generated API. */
const campaignId = (index) => `c${index + 1}`;

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

/** The API of the world's campaigns as the world makes it, with every attempt's truth. */
export function simulatedApi(world) {
	let now = START;
	const campaigns = Array.from({ length: world.campaigns ?? 1 }, (_, index) => ({
		id: campaignId(index),
		name: `Spring ${index + 1}`,
		agentName: 'Lucia',
		status: 'in_progress',
		createdAt: new Date(START - 3_600_000 - index * 60_000).toISOString(),
	}));
	const listings = world.listings.map((spec, index) => {
		const campaign = campaigns[campaignOf(world, spec)].id;
		const number = NUMBERS[spec.number];
		return {
			index,
			campaign,
			number,
			/** The listing's number in its campaign: what is reported once per attempt. */
			key: `${campaign} ${number}`,
			outcomes: spec.outcomes,
			attempts: [], // { n, start, end?, status? }
			changedAt: 0,
			steps: [], // what happens to it next: 'start' or 'end', in order
		};
	});
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
	/** The fault met by the answer under way (world.faults), if any. */
	const faultNow = () =>
		(world.faults ?? []).find((f) => answers >= f.at && answers < f.at + f.answers)?.kind;
	const gone = () => httpError(404, { message: 'Campaign not found' });
	const api = {
		campaigns,
		since: undefined,
		/** What the poll under way was served, by listing. */
		pollServed: new Map(),
		/** Faults the poll under way met; `stopped`: n8n stopped during it. */
		met: new Set(),
		stopped: false,
		done: () => listings.every((l) => l.steps.length === 0),
		/** Records a campaign's table may keep: one per listing (two for a number listed twice). */
		bound: (id) =>
			listings
				.filter((l) => l.campaign === id)
				.reduce((sum, l) => sum + (listings.filter((o) => o.key === l.key).length > 1 ? 2 : 1), 0),
		now: () => now,
		happen,
		listings,
		/** The calls are over: each campaign ends as the world says (a deleted one is gone). */
		endCampaigns() {
			for (const [index, campaign] of campaigns.entries()) {
				const end = world.ends?.[index] ?? 'completed';
				if (end === 'deleted') campaign.deleted = true;
				else campaign.status = end;
				for (const l of listings) if (l.campaign === campaign.id) l.gone = end === 'deleted';
			}
		},
		respond(options) {
			answers++;
			now += world.latencyMs;
			happen(world.eventsPerAnswer[answers % world.eventsPerAnswer.length]);
			if (world.failAt.includes(answers)) throw httpError(503, { message: 'Service Unavailable' });
			const fault = faultNow();
			if (fault) api.met.add(fault);
			if (fault === 'restart') api.stopped = true;
			if (fault === '503') throw httpError(503, { message: 'Service Unavailable' });
			if (fault === '429') throw httpError(429, { message: 'Too Many Requests' });
			if (fault === '403') throw httpError(403, { message: 'Forbidden' });
			if (fault === 'timeout') {
				now += 30_000;
				throw networkError('ETIMEDOUT');
			}
			const body = api.body(options);
			if (!options.returnFullResponse) return body;
			api.pollSince ??= now;
			return { body, headers: { date: new Date(now).toUTCString() }, statusCode: 200 };
		},
		body({ url, qs = {} }) {
			const listed = campaigns.filter((c) => !c.deleted).map(({ deleted, ...c }) => c);
			if (url.endsWith('/voice/campaigns')) {
				const items = listed.filter((c) => !qs.status || qs.status === c.status);
				return { items, total: items.length, page: 1, totalPages: 1 };
			}
			const [, id, data] = /\/campaigns\/([^/]+)(\/data)?$/.exec(url) ?? [];
			const campaign = listed.find((c) => c.id === id);
			if (!campaign) throw gone();
			if (!data) return campaign;
			const ordered = listings.filter((l) => l.campaign === id);
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
 * Runs a world: polls while calls happen, then the campaigns end and polls go on until the
 * trigger stops reading them. The static data lives as n8n keeps it (n8nStaticData): saved at the
 * end of an activation (the first poll that succeeds after a start) and after a poll that returned
 * items; n8n restarts between polls where the world says, and in the middle of one at a
 * `restart` fault, and loads what was saved. n8n's clock is the API's moved by clockOffsetMs.
 * Resolves to the items and what the model expects, from the reads of the polls whose state n8n
 * kept (a poll's reads count once its state was saved, or lived on to the end without a restart).
 */
export async function run(world, params = {}, log = undefined) {
	const api = simulatedApi(world);
	const n8n = n8nStaticData();
	let node = new VoiceAiTrigger();
	const items = [];
	/** What the polls whose state n8n kept were served of each listing, in order. */
	const served = new Map();
	/** What the polls since the last save point were served: lost if n8n restarts before the next. */
	let unsaved = [];
	const keep = () => {
		for (const pollServed of unsaved) {
			for (const [index, states] of pollServed) {
				served.set(index, [...(served.get(index) ?? []), ...states]);
			}
		}
		unsaved = [];
	};
	let activating = true;
	const restart = () => {
		n8n.restart();
		node = new VoiceAiTrigger();
		activating = true;
		unsaved = [];
	};
	let failedPolls = 0;
	let watchedSince;
	const stateNow = () => n8n.node().poll?.state;
	const poll = async () => {
		api.pollServed = new Map();
		api.pollSince = undefined;
		api.met = new Set();
		api.stopped = false;
		const { context } = scriptedPoll((options) => api.respond(options), {
			params: { event: 'callFinished', dataRequestsPerPoll: world.budget, ...params },
			staticData: n8n.node(),
		});
		// n8n's clock is the model's moved by the world's offset: a poll's time runs out when the
		// model's answers took longer than its budget (each event between answers is 2 s), and
		// reading stops there.
		const realNow = Date.now;
		Date.now = () => api.now() + (world.clockOffsetMs ?? 0);
		let result;
		let failed;
		try {
			result = await node.poll.call(context);
		} catch (error) {
			failed = error;
		} finally {
			Date.now = realNow;
		}
		if (api.stopped) {
			// n8n stopped during the poll: nothing of it was emitted or saved.
			restart();
			return false;
		}
		if (failed) {
			assert.doesNotMatch(String(failed.message), /must-never-leak/);
			if ([...api.met].every((kind) => kind === '503')) {
				assert.equal(failed.failure?.cause, 'temporarily-unavailable', failed.message);
			}
			failedPolls++;
			return false;
		}
		const emitted = result ? result[0].map((i) => i.json) : [];
		items.push(...emitted);
		log?.({ api, staticData: n8n.node(), items: emitted });
		// The state within its bound: a record per listing (two for a number listed twice, whose
		// listings may have taken each other's record).
		for (const [id, entry] of Object.entries(stateNow()?.watched ?? {})) {
			if (entry.table)
				assert.ok(CallTable.decode(entry.table).size <= api.bound(id), 'records kept');
		}
		// Watching began with the first poll that succeeded, at its first dated answer.
		api.since ??= api.pollSince;
		watchedSince ??= Object.values(stateNow()?.watched ?? {}).find((w) => w.since)?.since;
		unsaved.push(api.pollServed);
		if (activating || emitted.length > 0) {
			n8n.save();
			keep();
		}
		activating = false;
		return true;
	};
	// Watching begins with the first poll that succeeds; calls go on between and during polls.
	let polls = 0;
	const nextPoll = async () => {
		if (world.restartAfter.includes(polls)) restart();
		polls++;
		return await poll();
	};
	let watching = false;
	while ((!watching || !api.done()) && polls < 200) {
		watching = (await nextPoll()) || watching;
		api.happen(1);
	}
	api.endCampaigns();
	const reading = () => Object.keys(stateNow()?.watched ?? {}).length > 0;
	for (let quiet = 0; quiet < 60 && reading(); quiet++) await nextPoll();
	assert.ok(!reading(), 'the ended campaigns are read to their end');
	// The state in memory lives on: what its polls read counts.
	keep();
	const firstServed = new Map([...served].map(([index, states]) => [index, states[0]]));
	// What the trigger learned: when watching began by its clock, and what calledAt stamps (never
	// the other reading than the world's).
	const meaning = stateNow()?.calledAt?.meaning;
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

/** An item's listing key (simulatedApi): its campaign and number. */
export const itemKey = (item) => `${item.campaignId} ${item.phoneNumber}`;

/**
 * Per number of a campaign (a listing's `key`), the attempts that ended after watching began and that the trigger can know of: an
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
		const knowableAfter = (began) =>
			l.attempts.filter((a) => {
				if (a.end === undefined || a.end <= began) return false;
				if (a.n < seenN) return false;
				if (a.n === seenN && firstEnded) return SHAPES[world.shape] === SHAPES.full;
				return true;
			});
		// Watching began during the first poll that succeeded: at its first dated answer, or (the
		// trigger's `since`) at the answer of the campaign list it dates by, which retries may have
		// put later. An attempt that ended between the two may come or not.
		const knowable = knowableAfter(Math.max(api.since, since ?? -Infinity));
		const duringFirstPoll = knowableAfter(api.since).filter((a) => !knowable.includes(a));
		const either = l.attempts.filter(
			(a) =>
				a.end !== undefined &&
				a.end <= api.since &&
				a.n === seenN &&
				firstEnded &&
				['full', 'noAttempts'].includes(world.shape) &&
				undecidable(world, a, since),
		);
		either.push(...duringFirstPoll);
		expected.set(l.key, [...(expected.get(l.key) ?? []), ...knowable]);
		allowed.set(l.key, [...(allowed.get(l.key) ?? []), ...either]);
	}
	return { expected, allowed };
}
