// A virtual clock for long-running triggers: Date (node:test's mock.timers) and setTimeout /
// clearTimeout (a queue of our own, so that the driver knows when the next timer is due) stand in
// for real time while `onVirtualTime` runs. The code under test sleeps through n8n-workflow's
// `sleep`, which calls the global setTimeout at each call: its naps, retry waits and pacing waits
// all land here, and minutes of a trigger's life run in milliseconds. Nothing runs by itself: the
// driver moves time on (`runUntil`, `settle`), firing each timer at its moment, after letting
// every promise that can run, run. AbortSignal.timeout keeps real time (the doubles answer at once).
import { mock } from 'node:test';

/** Lets every promise (and process.nextTick) that can run, run: two turns of the event loop. */
async function drain() {
	for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** The virtual timers: `at` (ms on the virtual clock), in order of `at`, then of creation. */
function timerQueue() {
	const timers = new Map();
	let lastId = 0;
	const handle = (id) => ({
		id,
		ref() {
			return this;
		},
		unref() {
			return this;
		},
		hasRef: () => true,
		[Symbol.toPrimitive]: () => id,
	});
	const setTimeoutVirtual = (callback, ms = 0, ...args) => {
		const id = ++lastId;
		const delay = Math.max(1, Math.floor(Number(ms) || 0));
		timers.set(id, { id, at: Date.now() + delay, run: () => callback(...args) });
		return handle(id);
	};
	const clearTimeoutVirtual = (timer) => {
		timers.delete(typeof timer === 'object' && timer !== null ? timer.id : Number(timer));
	};
	const next = () => {
		let first;
		for (const timer of timers.values()) if (!first || timer.at < first.at) first = timer;
		return first;
	};
	return { timers, setTimeoutVirtual, clearTimeoutVirtual, next };
}

/**
 * Runs `work(clock)` with the virtual clock starting at `startMs`. `clock.advance(ms)` moves Date on
 * without firing timers (a request that takes time); `clock.runUntil(ms, stop?)` fires every timer
 * due up to the virtual moment `ms` (or until `stop()` holds); `clock.settle(promise, limitMs)`
 * runs the timers until the promise settles, and fails if it has not within `limitMs` of virtual
 * time; `clock.pending()` counts the timers set.
 */
export async function onVirtualTime(startMs, work) {
	const queue = timerQueue();
	const real = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
	mock.timers.enable({ apis: ['Date'], now: startMs });
	globalThis.setTimeout = queue.setTimeoutVirtual;
	globalThis.clearTimeout = queue.clearTimeoutVirtual;
	const advance = (ms) => {
		if (ms > 0) mock.timers.tick(ms);
	};
	const runUntil = async (until, stop = () => false) => {
		for (;;) {
			await drain();
			if (stop()) return true;
			const timer = queue.next();
			if (!timer || timer.at > until) {
				advance(until - Date.now());
				await drain();
				return stop();
			}
			advance(timer.at - Date.now());
			queue.timers.delete(timer.id);
			timer.run();
		}
	};
	const settle = async (promise, limitMs) => {
		const outcome = { done: false };
		const watched = promise.then(
			(value) => Object.assign(outcome, { done: true, value }),
			(error) => Object.assign(outcome, { done: true, error }),
		);
		await runUntil(Date.now() + limitMs, () => outcome.done);
		if (!outcome.done) throw new Error(`not settled within ${limitMs} ms of virtual time`);
		await watched;
		if ('error' in outcome) throw outcome.error;
		return outcome.value;
	};
	const clock = { advance, runUntil, settle, pending: () => queue.timers.size };
	try {
		return await work(clock);
	} finally {
		globalThis.setTimeout = real.setTimeout;
		globalThis.clearTimeout = real.clearTimeout;
		mock.timers.reset();
	}
}
