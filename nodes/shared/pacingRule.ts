// The adaptive rate rule of one process for one credential: what it may send now, and how 429
// answers cut its rate and quiet windows bring it back. pacing.ts queues the requests on it.

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
	 * A storm: a run of cuts that left less than this share of the allowance that had held a
	 * window (the API refused everything for a while, whatever was sent). Once a request sent
	 * after its last cut succeeds, the rate doubles with each answer back to that allowance.
	 */
	stormShare: 0.5,
	/**
	 * In a storm, a request goes at least this share of a window after the one before, whatever
	 * the cut rate's spacing (half a window at one request a window): its end is found that soon.
	 */
	stormProbeShare: 0.1,
	/**
	 * A run of cuts that begins with fewer requests sent in the last window than this share of
	 * Requests per Minute (a start's few reads, a quiet trigger's) says little of the rate this
	 * process may send: the rate before it is what it allowed itself (up to this share of Requests
	 * per Minute at a start, when processes that start together meet their shared limit with a
	 * few each). It climbs back to that rate as after a storm when it is the process's first run
	 * of cuts (a start's burst of reads, cut to a share of itself, would otherwise creep back by
	 * one a window), or when it left less than `stormShare` of it; a later run near a shared limit
	 * keeps its cut, or processes whose fair share is under this one would each climb back over it.
	 */
	fewShare: 0.2,
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
	/**
	 * The rate to come back to after the run of cuts under way: the allowance that held a window
	 * before it, or at most `fewShare` of the ceiling (none: no cut since the last success after one).
	 */
	cutsFrom?: number;
	/**
	 * The run of cuts under way (or the climb back after it) is this process's first and began with
	 * few requests sent (`fewShare`): the rate it climbs back to is a guess, not one that held.
	 */
	startRun?: boolean;
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
		let spacing = (span * spread) / spacedAs;
		if (inStorm(pacer)) spacing = Math.min(spacing, span * ADAPTIVE_RULE.stormProbeShare);
		at = Math.max(at, pacer.lastSentAt + Math.floor(spacing));
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

/** A run of cuts under way has left less than `stormShare` of the rate before it. */
function inStorm(pacer: PacerState): boolean {
	return (
		pacer.cutsFrom !== undefined && pacer.allowance < pacer.cutsFrom * ADAPTIVE_RULE.stormShare
	);
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
	// The rate to come back to is an allowance that held a whole window without a 429 (the API let
	// it pass, whether this process sent that much or less): not the first window's, when
	// processes that start together find their shares, unless few were sent (then at most a fifth).
	const heldSince = Math.max(pacer.lastCutAt, pacer.firstSentAt ?? now);
	if (pacer.cutsFrom === undefined) {
		const few = pacer.ceiling * ADAPTIVE_RULE.fewShare;
		const held = now - heldSince >= pacingSettings.windowMs;
		pacer.startRun = rate < few && pacer.lastCutAt === -Infinity;
		if (held) pacer.cutsFrom = pacer.allowance;
		else if (rate < few) pacer.cutsFrom = Math.min(pacer.allowance, few);
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
	if (pacer.startRun || inStorm(pacer)) pacer.regrowTo = cutsFrom;
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
		// Back at a start's guess (no rate held yet): the step starts at half the rate, so the rate
		// grows by half in the next window and faster after, until a 429 says where the limit is.
		const doublings = pacer.startRun ? Math.max(1, Math.ceil(Math.log2(pacer.allowance)) - 1) : 1;
		pacer.regrowTo = undefined;
		pacer.startRun = undefined;
		pacer.lastCutAt = Math.min(
			pacer.lastCutAt,
			now - (ADAPTIVE_RULE.steadyWindows - 1 + doublings) * pacingSettings.windowMs,
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
