import * as workflow from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { RequestFailure } from './errors';
import type { PacerState } from './pacingRule';
import { createPacer, markAnswered, markSent, sendDelay } from './pacingRule';
import { serverPauseMs } from './rateLimitHints';

// The rate rule lives in pacingRule.ts; its settings and helpers are imported from here too.
export type { AttemptOutcome, PacerState } from './pacingRule';
export {
	ADAPTIVE_RULE,
	createPacer,
	evenSpacingMs,
	markAnswered,
	markSent,
	pacingSettings,
	sendDelay,
} from './pacingRule';

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
