import * as workflow from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { RequestFailure } from './errors';
import { serverPauseMs } from './rateLimitHints';

/**
 * The API's window for its request limit (tests and benchmarks shorten it), and whether a
 * process adapts its rate to the 429 answers it meets; without that it keeps to Requests per
 * Minute whatever happens (the benchmark runs both).
 */
export const pacingSettings = { windowMs: 60_000, adaptive: true };

/**
 * The least share of a window a process spreads what it may send over. At its ceiling (alone, as
 * far as it knows) a twentieth: processes that start together then meet the shared limit with a
 * request or two in flight each, not with everything their executions had ready. Below it (it has
 * met others) half a window: requests of all processes interleave, so whichever sends into a full
 * window is a matter of chance weighted by its share, not of who resumed last.
 */
const SPREAD_SHARE = { atCeiling: 1 / 20, below: 1 / 2 };
/** The adaptive rule's numbers (the README states them; a test compares). */
export const ADAPTIVE_RULE = {
	/** A 429 cuts the rate to this share of what was sent in the last window (drawn per cut). */
	cutShare: { min: 0.85, max: 0.95 },
	/** Windows after a cut in which the rate grows by one request per window; then it doubles. */
	steadyWindows: 2,
	/** Spread added to a server's pause, as a share of it, so processes do not resume together. */
	pauseJitterShare: 0.1,
	/**
	 * A storm: a run of cuts that left less than this share of a rate that had held a window (the
	 * API refused everything for a while, whatever was sent). Once a request sent after its last
	 * cut succeeds, the rate doubles with each answer back to that rate.
	 */
	stormShare: 0.5,
} as const;
/** The growth per window doubles up to 2 ** this. */
const MAX_DOUBLINGS = 16;

/** What one process knows about one credential's limit. */
export interface PacerState {
	/** The credential's Requests per Minute: never exceeded. */
	ceiling: number;
	/** Requests per window this process allows itself now; starts at the ceiling. */
	allowance: number;
	/** When the answers of the last window came back, oldest first. */
	answered: number[];
	/** Requests sent and not answered yet: each holds a place until its answer comes. */
	inFlight: number;
	lastSentAt: number;
	/** When this process sent its first request. */
	firstSentAt?: number;
	/** No request before this (the server said when to come back). */
	pausedUntil: number;
	/** When the rate was last cut; 429s for requests sent before it belong to that cut. */
	lastCutAt: number;
	/** The rate sent before the run of cuts under way (none: no cut since the last success after one). */
	cutsFrom?: number;
	/** After a storm: the rate it doubles back to with each answer. */
	regrowTo?: number;
}

export interface AttemptOutcome {
	/** 2xx: the request was carried out. */
	succeeded?: boolean;
	/** 429: the API's limit was met. */
	limited?: boolean;
	/** How long the server asked to hold back, when it said. */
	pauseMs?: number;
}

/**
 * The window a place is held for: the API's, counted from the answer (which comes after the API
 * counted the request, whatever the network did), plus a little slack for servers that keep
 * coarser time.
 */
function windowSpan(): number {
	return Math.ceil(pacingSettings.windowMs * 1.005);
}

/**
 * The spacing at which `count` requests a window stay clear of its limit: each holds its place for
 * the window's span from its answer, so requests a window / `count` apart would fill it, and from
 * then on each would wait for a place of the window before to free, repeating that window's gaps.
 * A hundredth more leaves room for an answer that comes sooner than the one a window before.
 */
export function evenSpacingMs(count: number): number {
	return (windowSpan() * 1.01) / Math.max(1, count);
}

export function createPacer(ceiling: number): PacerState {
	return {
		ceiling,
		allowance: ceiling,
		answered: [],
		inFlight: 0,
		lastSentAt: -Infinity,
		pausedUntil: -Infinity,
		lastCutAt: -Infinity,
	};
}

function forgetOldAnswers(pacer: PacerState, now: number): void {
	const { answered } = pacer;
	let expired = 0;
	while (expired < answered.length && answered[expired] <= now - windowSpan()) expired++;
	if (expired > 0) answered.splice(0, expired);
}

/** Milliseconds until this process may send its next request (0: now). */
export function sendDelay(pacer: PacerState, now: number): number {
	forgetOldAnswers(pacer, now);
	const span = windowSpan();
	const limit = Math.max(1, Math.floor(pacer.allowance));
	let at = Math.max(now, pacer.pausedUntil);
	if (pacingSettings.adaptive) {
		const spread = pacer.allowance < pacer.ceiling ? SPREAD_SHARE.below : SPREAD_SHARE.atCeiling;
		// Coming back after a storm, requests are spaced as at the rate they come back to: each
		// answer doubles the rate, so it is back within as many answers, not within a window.
		const spacedAs = Math.max(limit, Math.floor(pacer.regrowTo ?? 0));
		at = Math.max(at, pacer.lastSentAt + Math.floor((span * spread) / spacedAs));
	}
	const mustLeave = pacer.answered.length + pacer.inFlight - limit + 1;
	if (mustLeave > 0) {
		// A place frees a window after its answer; one still awaited frees later than a window from now.
		at = Math.max(
			at,
			mustLeave <= pacer.answered.length ? pacer.answered[mustLeave - 1] + span : now + span,
		);
	}
	// Whole milliseconds: a fraction would never pass in a simulated clock.
	return at - now;
}

export function markSent(pacer: PacerState, now: number): void {
	pacer.inFlight++;
	pacer.lastSentAt = now;
	pacer.firstSentAt ??= now;
}

/**
 * Multiplicative decrease: the rate drops to 85–95 % of what this process sent in the last
 * window (not of its allowance, which it may not have used), once per congestion event.
 */
function slowDown(pacer: PacerState, sentAt: number, now: number, random: () => number): void {
	if (sentAt < pacer.lastCutAt) return;
	forgetOldAnswers(pacer, now);
	const sent = pacer.answered.length + pacer.inFlight;
	const share =
		ADAPTIVE_RULE.cutShare.min +
		(ADAPTIVE_RULE.cutShare.max - ADAPTIVE_RULE.cutShare.min) * random();
	const rate = Math.min(pacer.allowance, sent);
	// Only a rate that held a whole window without a 429 is one to come back to: not the first
	// window's, when processes that start together find their shares.
	const heldSince = Math.max(pacer.lastCutAt, pacer.firstSentAt ?? now);
	if (pacer.cutsFrom === undefined && now - heldSince >= pacingSettings.windowMs) {
		pacer.cutsFrom = rate;
	}
	pacer.regrowTo = undefined;
	pacer.allowance = Math.max(1, rate * share);
	pacer.lastCutAt = now;
}

/**
 * A request sent after the last cut succeeded: the run of cuts is over. One that cut the rate
 * below `stormShare` of what was sent before it is a storm, not this process's share of a limit
 * (a cut or two near one leaves 80 % or more): its cuts outlive it by a window or so, as the rate
 * doubles back (slow start) to what was sent before it, then climbs on doubling.
 */
function endCuts(pacer: PacerState, sentAt: number): void {
	const { cutsFrom } = pacer;
	if (cutsFrom === undefined || sentAt < pacer.lastCutAt) return;
	if (pacer.allowance < cutsFrom * ADAPTIVE_RULE.stormShare) pacer.regrowTo = cutsFrom;
	pacer.cutsFrom = undefined;
}

/**
 * Additive increase: each answered request adds step / allowance, so a window's worth adds
 * `step` requests per window; the step doubles with each window without a 429, so a process
 * left alone is back at the ceiling within a few windows while one near the shared limit
 * creeps up by one.
 */
function speedUp(pacer: PacerState, now: number): void {
	const { regrowTo } = pacer;
	if (regrowTo !== undefined) {
		const target = Math.min(regrowTo, pacer.ceiling);
		pacer.allowance = Math.min(target, pacer.allowance * 2);
		if (pacer.allowance < target) return;
		// Back at a rate that held before the storm: the climb goes on doubling, not by one a window.
		pacer.regrowTo = undefined;
		pacer.lastCutAt = Math.min(
			pacer.lastCutAt,
			now - ADAPTIVE_RULE.steadyWindows * pacingSettings.windowMs,
		);
		return;
	}
	if (pacer.allowance >= pacer.ceiling) return;
	const quietWindows = Math.floor((now - pacer.lastCutAt) / pacingSettings.windowMs);
	const doublings = Math.min(
		Math.max(0, quietWindows - ADAPTIVE_RULE.steadyWindows + 1),
		MAX_DOUBLINGS,
	);
	const step = 2 ** doublings;
	pacer.allowance = Math.min(pacer.ceiling, pacer.allowance + step / pacer.allowance);
}

/** Records the answer (or failure) of a request sent at `sentAt`, and adapts the rate to it. */
export function markAnswered(
	pacer: PacerState,
	sentAt: number,
	now: number,
	outcome: AttemptOutcome,
	random = Math.random,
): void {
	pacer.inFlight = Math.max(0, pacer.inFlight - 1);
	// A refused request holds no place here: were it to, a process that met a 429 with little of
	// its own in the window would wait a whole window for a place the API may never have counted.
	if (!outcome.limited) {
		const { answered } = pacer;
		let at = answered.length;
		while (at > 0 && answered[at - 1] > now) at--;
		answered.splice(at, 0, now);
	}
	if (!pacingSettings.adaptive) return;
	if (outcome.limited) {
		if (outcome.pauseMs !== undefined) {
			const pause =
				Math.min(outcome.pauseMs, pacingSettings.windowMs) *
				(1 + ADAPTIVE_RULE.pauseJitterShare * random());
			pacer.pausedUntil = Math.max(pacer.pausedUntil, Math.ceil(now + pause));
		}
		slowDown(pacer, sentAt, now, random);
	} else if (outcome.succeeded) {
		endCuts(pacer, sentAt);
		speedUp(pacer, now);
	}
}

type AbortableSleep = (ms: number, signal: AbortSignal) => Promise<void>;
/**
 * A sleep that a signal cuts short: n8n-workflow 2.x's `sleep` takes the signal; 1.x's ignores it
 * and exports `sleepWithAbort` instead (2.x no longer does). Either rejects when cut short.
 */
export function abortableSleepOf(module: object): AbortableSleep {
	const { sleepWithAbort } = module as { sleepWithAbort?: AbortableSleep };
	return typeof sleepWithAbort === 'function' ? sleepWithAbort : sleep;
}
const sleepUnlessAborted = abortableSleepOf(workflow);
/** A sleep that `signal` cuts short (it then rejects), on both lines of n8n-workflow. */
export const abortableSleep: AbortableSleep = sleepUnlessAborted;

/** A caller waiting for a request slot. */
interface Turn {
	/** Past this moment the turn is of no use (a poll's time would be up): it is given up. */
	readonly latestStart: number;
	/** Served before the turns without it (a request within a budget of its own: see apiRequest). */
	readonly ahead: boolean;
	readonly resolve: (slot: RequestSlot | null) => void;
}

/** One process's pacer for one credential, with the turns waiting for it in order. */
export interface Pacer extends PacerState {
	waiting: Turn[];
	/** The one timer a pacer runs, while turns wait: when it ends and how to cut it short. */
	nap?: { until: number; stop: AbortController };
}

/** One process's pacer per credential (base URL and client ID). */
const pacers = new Map<string, Pacer>();

export interface RequestSlot {
	readonly pacer: Pacer;
	readonly sentAt: number;
	settled: boolean;
}

/**
 * Hands out what the pacer allows now, in order, and gives up every turn that would come after its
 * latest start: the first turn's delay is the least any turn behind it waits, so a turn is given
 * up as soon as that passes its latest start, and at the latest when its latest start comes (the
 * pacer wakes by then, as it wakes for the first turn). A turn given up leaves the queue: it takes
 * no place later and holds up no one. Called whenever the queue or the pacer changes.
 */
function serveTurns(pacer: Pacer): void {
	for (;;) {
		const now = Date.now();
		const delay = Math.max(0, sendDelay(pacer, now));
		pacer.waiting = pacer.waiting.filter((turn) => {
			if (now + delay <= turn.latestStart) return true;
			turn.resolve(null);
			return false;
		});
		const first = pacer.waiting[0];
		if (!first) return stopNap(pacer);
		if (delay > 0) return napUntil(pacer, now + delay);
		pacer.waiting.shift();
		markSent(pacer, now);
		first.resolve({ pacer, sentAt: now, settled: false });
	}
}

/** Sleeps until `until` and serves the turns then, unless the current nap wakes sooner. */
function napUntil(pacer: Pacer, until: number): void {
	if (pacer.nap && pacer.nap.until <= until) return;
	stopNap(pacer);
	const nap = { until, stop: new AbortController() };
	pacer.nap = nap;
	sleepUnlessAborted(until - Date.now(), nap.stop.signal).then(
		() => {
			if (pacer.nap !== nap) return;
			pacer.nap = undefined;
			serveTurns(pacer);
		},
		// Cut short: the queue emptied, or a nearer nap took over.
		() => undefined,
	);
}

function stopNap(pacer: Pacer): void {
	pacer.nap?.stop.abort();
	pacer.nap = undefined;
}

/**
 * Waits for this credential's turn (0 or less: no pacing) and takes it. Executions of one process
 * queue in order; what they may send adapts to the 429s they meet, never above `perMinute`.
 * Hand the slot to `settleRequestSlot` when the answer comes. Null: the turn would come after
 * `latestStart` (a poll whose time would be up by then), or `stop` fired (a live trigger was
 * deactivated), and none was taken; the wait ends by `latestStart` whatever the turns ahead wait
 * for, and at once when `stop` fires: the turn leaves the queue and holds up no one. A turn
 * `ahead` queues before every turn without it.
 */
export async function waitForRequestSlot(
	key: string,
	perMinute: number,
	latestStart = Infinity,
	stop?: AbortSignal,
	ahead = false,
): Promise<RequestSlot | undefined | null> {
	if (!Number.isFinite(perMinute) || perMinute <= 0) return undefined;
	if (stop?.aborted) return null;
	const ceiling = Math.max(1, Math.floor(perMinute));
	const pacer = pacers.get(key) ?? { ...createPacer(ceiling), waiting: [] };
	pacers.set(key, pacer);
	pacer.ceiling = ceiling;
	pacer.allowance = Math.min(pacer.allowance, ceiling);
	return await new Promise<RequestSlot | null>((resolve) => {
		const leave = () => {
			pacer.waiting = pacer.waiting.filter((waiting) => waiting !== turn);
			turn.resolve(null);
			serveTurns(pacer);
		};
		const turn: Turn = {
			latestStart,
			ahead,
			resolve: (slot) => {
				stop?.removeEventListener('abort', leave);
				resolve(slot);
			},
		};
		stop?.addEventListener('abort', leave, { once: true });
		const behind = ahead ? pacer.waiting.findIndex((waiting) => !waiting.ahead) : -1;
		pacer.waiting.splice(behind === -1 ? pacer.waiting.length : behind, 0, turn);
		serveTurns(pacer);
	});
}

/**
 * Gives back a slot whose request never went out (the turn after it was given up, or the caller
 * stopped): it holds no place in the window.
 */
export function giveBackRequestSlot(slot: RequestSlot | undefined | null): void {
	if (!slot || slot.settled) return;
	slot.settled = true;
	slot.pacer.inFlight = Math.max(0, slot.pacer.inFlight - 1);
	if (slot.pacer.waiting.length > 0) serveTurns(slot.pacer);
}

/** Tells the pacer what a request got: nothing (2xx), or the failure (a 429 with its headers). */
export function settleRequestSlot(
	slot: RequestSlot | undefined | null,
	failure?: RequestFailure,
): void {
	if (!slot || slot.settled) return;
	slot.settled = true;
	const now = Date.now();
	const limited = failure?.status === 429;
	markAnswered(slot.pacer, slot.sentAt, now, {
		succeeded: failure === undefined,
		limited,
		pauseMs: limited ? serverPauseMs(failure.headers, now) : undefined,
	});
	// A server's pause may put waiting turns past their latest start; a grown rate, serve sooner.
	if (slot.pacer.waiting.length > 0) serveTurns(slot.pacer);
}

/**
 * A share of a credential's requests that some callers keep to on top of the credential's own
 * pacing (the Messenger Live Trigger's budget): its pacer's key and requests per minute. Requests
 * made through a context that has one wait for a turn in both.
 */
export interface RequestBudget {
	key: string;
	perMinute: number;
}

const budgets = new WeakMap<object, RequestBudget>();

/** Requests made through `context` keep to `budget` too (see apiRequest). */
export function keepToBudget(context: object, budget: RequestBudget): void {
	budgets.set(context, budget);
}

/** The budget a context's requests keep to, if any. */
export function requestBudgetOf(context: object): RequestBudget | undefined {
	return budgets.get(context);
}

/** Milliseconds until a request within `budget` may go (0: now), without taking a turn. */
export function budgetDelayMs(budget: RequestBudget): number {
	const pacer = pacers.get(budget.key);
	if (!pacer) return 0;
	return Math.max(0, sendDelay(pacer, Date.now()));
}

/** Forgets every pacer, giving up the turns still waiting (tests). */
export function resetPacing(): void {
	for (const pacer of pacers.values()) {
		for (const turn of pacer.waiting) turn.resolve(null);
		pacer.waiting = [];
		stopNap(pacer);
	}
	pacers.clear();
}
