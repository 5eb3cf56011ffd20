// shared/pacing.ts: requests kept under the credential's rate at the ceiling, the pace adapted to
// 429 answers, and processes that cannot talk to each other sharing one limit.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';

import * as workflow from 'n8n-workflow';

import {
	abortableSleepOf,
	createPacer,
	evenSpacingMs,
	markAnswered,
	markSent,
	pacingSettings,
	resetPacing,
	sendDelay,
	settleRequestSlot,
	waitForRequestSlot,
} from '../../../nodes/shared/pacing.ts';

afterEach(() => {
	resetPacing();
	pacingSettings.windowMs = 60_000;
	pacingSettings.adaptive = true;
});

/** A seeded random stream, so that the jitter is the same on every run. */
function seeded(seed) {
	let state = seed;
	return () => (state = (state * 16807) % 2147483647) / 2147483647;
}

/** Sends as soon as the pacer allows, `latency` ms per answer; returns the send times. */
function sendAll(pacer, count, { latency = 0, from = 0 } = {}) {
	const sent = [];
	let now = from;
	while (sent.length < count) {
		const delay = sendDelay(pacer, now);
		if (delay > 0) {
			now += delay;
			continue;
		}
		markSent(pacer, now);
		sent.push(now);
		markAnswered(pacer, now, now + latency, { succeeded: true });
	}
	return sent;
}

describe('even spacing (the Messenger Live Trigger reads)', () => {
	it('requests evenSpacingMs apart never wait for a place in the window, their answers taking up to half a second; a window / count apart, nearly every one does', () => {
		pacingSettings.windowMs = 60_000;
		/** How many of 300 requests, `spacing` ms apart, would have to wait for a place. */
		const waits = (spacing) => {
			const pacer = createPacer(60);
			const random = seeded(3);
			let waited = 0;
			for (let index = 0; index < 300; index++) {
				const now = Math.round(index * spacing);
				if (sendDelay(pacer, now) > 0) waited++;
				markSent(pacer, now);
				markAnswered(pacer, now, now + Math.round(random() * 500), { succeeded: true });
			}
			return waited;
		};
		assert.equal(waits(evenSpacingMs(60)), 0);
		assert.ok(evenSpacingMs(60) < 1020, `${evenSpacingMs(60)} ms: 59 a minute at least`);
		assert.ok(waits(60_000 / 60) > 200);
	});
});

describe('pacing at the ceiling (one process alone)', () => {
	it('sends the ceiling within a twentieth of the window, then waits a window after the first answer', () => {
		pacingSettings.windowMs = 1000;
		const sent = sendAll(createPacer(10), 11, { latency: 5 });
		assert.ok(sent[9] <= 1005 / 20, `the tenth went at ${sent[9]}`);
		// The window counts from the first answer (5 ms) plus 0.5 % slack.
		assert.equal(sent[10], 5 + 1005);
	});

	it('never lets more than the ceiling reach the API in any window, whatever the answers take', () => {
		pacingSettings.windowMs = 60_000;
		const pacer = createPacer(100);
		const random = seeded(7);
		const arrivals = [];
		let now = 0;
		const pending = [];
		for (let sentCount = 0; sentCount < 500;) {
			pending.sort((a, b) => a.answerAt - b.answerAt);
			const delay = sendDelay(pacer, now);
			if (delay <= 0) {
				markSent(pacer, now);
				// The API counts the request somewhere between sending and answering.
				const answerAt = now + Math.floor(random() * 3000);
				arrivals.push(now + Math.floor(random() * (answerAt - now)));
				pending.push({ sentAt: now, answerAt });
				sentCount++;
				continue;
			}
			const next = Math.min(now + delay, pending[0]?.answerAt ?? Infinity);
			while (pending.length && pending[0].answerAt <= next) {
				const { sentAt, answerAt } = pending.shift();
				markAnswered(pacer, sentAt, answerAt, { succeeded: true });
			}
			now = next;
		}
		arrivals.sort((a, b) => a - b);
		for (let i = 100; i < arrivals.length; i++) {
			assert.ok(
				arrivals[i] - arrivals[i - 100] > 60_000,
				`requests ${i - 100} and ${i} in one window`,
			);
		}
	});

	it('holds a place for a request still awaiting its answer', () => {
		pacingSettings.windowMs = 1000;
		const pacer = createPacer(2);
		markSent(pacer, 0);
		markSent(pacer, 0);
		assert.equal(sendDelay(pacer, 500), 1005, 'both places taken, no answer yet');
		markAnswered(pacer, 0, 700, { succeeded: true });
		assert.equal(sendDelay(pacer, 700), 1005, 'a window from the answer');
	});

	it('does not delay requests that come slower than the ceiling', () => {
		const pacer = createPacer(100);
		for (let i = 0; i < 50; i++) {
			assert.equal(sendDelay(pacer, i * 700), 0);
			markSent(pacer, i * 700);
			markAnswered(pacer, i * 700, i * 700 + 50, { succeeded: true });
		}
	});
});

describe('adapting to 429 answers', () => {
	it('a 429 cuts the rate to 85–95 % of what was sent in the window, once per event', () => {
		pacingSettings.windowMs = 1000;
		const pacer = createPacer(100);
		const sent = sendAll(pacer, 40);
		markSent(pacer, 60);
		markAnswered(pacer, 60, 61, { limited: true }, () => 0);
		assert.equal(pacer.allowance, 40 * 0.85);
		// An answer to a request sent before the cut belongs to the same event.
		markAnswered(pacer, sent[39], 62, { limited: true }, () => 0);
		assert.equal(pacer.allowance, 40 * 0.85);
		markSent(pacer, 70);
		markAnswered(pacer, 70, 71, { limited: true }, () => 1);
		assert.equal(pacer.allowance, 40 * 0.85 * 0.95);
	});

	it("holds the whole process back for the server's pause, at most a window, with a little spread", () => {
		pacingSettings.windowMs = 1000;
		const pacer = createPacer(100);
		sendAll(pacer, 40);
		markSent(pacer, 100);
		markAnswered(pacer, 100, 110, { limited: true, pauseMs: 200 }, () => 0.5);
		assert.equal(pacer.pausedUntil, 110 + 200 * 1.05);
		markSent(pacer, 400);
		markAnswered(pacer, 400, 410, { limited: true, pauseMs: 30_000 }, () => 0);
		assert.equal(pacer.pausedUntil, 410 + 1000);
	});

	it('climbs back by one request per window for two windows, then twice as fast each window, up to the ceiling', () => {
		pacingSettings.windowMs = 1000;
		const pacer = createPacer(100);
		Object.assign(pacer, { allowance: 20, lastCutAt: 0 });
		const grown = [];
		for (let window = 0; window < 6; window++) {
			const before = pacer.allowance;
			// A window's worth of answers, spread over that window.
			const answers = Math.round(pacer.allowance);
			for (let i = 0; i < answers; i++) {
				markAnswered(pacer, 0, window * 1000 + 1 + (i * 998) / answers, { succeeded: true });
			}
			grown.push(pacer.allowance - before);
		}
		// A window's answers add the step divided by a growing allowance: a little under the step.
		[1, 1, 2, 4, 8, 16].forEach((step, window) =>
			assert.ok(grown[window] > 0.8 * step && grown[window] <= step, `window ${window}: ${grown}`),
		);
		for (let i = 0; i < 300; i++) markAnswered(pacer, 0, 6000 + i, { succeeded: true });
		assert.equal(pacer.allowance, 100);
	});

	it('keeps to the ceiling whatever happens when adapting is off', () => {
		pacingSettings.adaptive = false;
		const pacer = createPacer(100);
		markSent(pacer, 0);
		markAnswered(pacer, 0, 1, { limited: true, pauseMs: 5000 });
		assert.equal(pacer.allowance, 100);
		assert.equal(sendDelay(pacer, 1), 0);
	});
});

/**
 * `processes` pacers (each with `lanes` executions that send one request after another) against
 * one sliding-window limit that also counts refused requests, in simulated time: nothing is
 * shared between the pacers but the API's answers. Work comes from one queue, as in queue mode.
 */
function simulateSharedLimit({
	processes,
	lanes = 10,
	requests = 1000,
	limit = 100,
	windowMs = 3000,
}) {
	pacingSettings.windowMs = windowMs;
	const random = seeded(processes);
	const events = [];
	const at = (time, run) => events.push({ time, order: events.length, run });
	const window = [];
	const accepted = [];
	const perProcess = new Array(processes).fill(0);
	let refused = 0;
	let lost = 0;
	let left = requests;
	const second = windowMs / 60;
	const take = (now) => {
		while (window.length && window[0] <= now - windowMs) window.shift();
		window.push(now);
		if (window.length <= limit) return { ok: true };
		const freesAt = window[window.length - limit] + windowMs;
		return { ok: false, pauseMs: Math.max(1, Math.ceil((freesAt - now) / second)) * second };
	};
	for (let p = 0; p < processes; p++) {
		const pacer = createPacer(limit);
		const waiting = [];
		let pumping = false;
		const send = (item, sentAt) => {
			markSent(pacer, sentAt);
			at(sentAt + 1, (arrival) => {
				const answer = take(arrival);
				at(arrival + 1, (answeredAt) => {
					const outcome = answer.ok
						? { succeeded: true }
						: { limited: true, pauseMs: answer.pauseMs };
					markAnswered(pacer, sentAt, answeredAt, outcome, random);
					if (answer.ok) {
						accepted.push(arrival);
						perProcess[p]++;
						return next(answeredAt);
					}
					refused++;
					// The transport's own retries: Retry-After plus a little spread, 6 attempts in all.
					if (++item.attempts < 6)
						return at(answeredAt + answer.pauseMs + random() * 250, (t) => queue(t, item));
					lost++;
					next(answeredAt);
				});
			});
		};
		const pump = (now) => {
			pumping = false;
			while (waiting.length) {
				const delay = sendDelay(pacer, now);
				if (delay > 0) {
					pumping = true;
					return at(now + delay, pump);
				}
				send(waiting.shift(), now);
			}
		};
		const queue = (now, item) => {
			waiting.push(item);
			if (!pumping) at(now, pump);
			pumping = true;
		};
		const next = (now) => {
			if (left-- > 0) queue(now, { attempts: 0 });
		};
		for (let lane = 0; lane < lanes; lane++) at(0, next);
	}
	while (events.length) {
		let first = 0;
		for (let i = 1; i < events.length; i++) {
			const [a, b] = [events[i], events[first]];
			if (a.time < b.time || (a.time === b.time && a.order < b.order)) first = i;
		}
		const [event] = events.splice(first, 1);
		event.run(event.time);
	}
	const windows = Math.floor((accepted.at(-1) - accepted[0]) / windowMs);
	const inFullWindows = accepted.filter((t) => t < accepted[0] + windows * windowMs).length;
	return {
		perWindow: inFullWindows / windows / limit,
		refusedShare: refused / (accepted.length + refused),
		lost,
		perProcess,
	};
}

describe('processes that cannot talk to each other share one limit', () => {
	// Six: processes that start together each meet the limit with fewer than a fifth of it (fewShare).
	for (const processes of [2, 4, 6]) {
		it(`${processes} processes: at least 0.9 of the limit used, at most 5 % answered 429`, () => {
			const { perWindow, refusedShare, lost, perProcess } = simulateSharedLimit({ processes });
			assert.equal(lost, 0);
			assert.ok(perWindow >= 0.9, `completed per window / limit: ${perWindow}`);
			assert.ok(refusedShare <= 0.05, `share answered 429: ${refusedShare}`);
			const fair = 1000 / processes;
			assert.ok(
				perProcess.every((count) => count > fair / 2),
				`requests per process: ${perProcess}`,
			);
		});
	}

	it('with adapting off, the same processes spend most requests on refusals and lose items', () => {
		pacingSettings.adaptive = false;
		const { refusedShare, lost } = simulateSharedLimit({ processes: 4 });
		assert.ok(refusedShare > 0.5, `share answered 429: ${refusedShare}`);
		assert.ok(lost > 0);
	});
});

describe('waitForRequestSlot and settleRequestSlot', () => {
	it('no pacing at 0 requests per minute', async () => {
		assert.equal(await waitForRequestSlot('off', 0), undefined);
		settleRequestSlot(undefined, { status: 429 });
	});

	it('keeps one pacer per credential, and a 429 slows only that one', async () => {
		const a = await waitForRequestSlot('a', 100);
		const b = await waitForRequestSlot('b', 100);
		settleRequestSlot(a, { status: 429, headers: {} });
		settleRequestSlot(b);
		assert.ok(a.pacer.allowance < 100);
		assert.equal(b.pacer.allowance, 100);
		// Settling twice changes nothing.
		const cut = a.pacer.allowance;
		settleRequestSlot(a, { status: 429, headers: {} });
		assert.equal(a.pacer.allowance, cut);
		assert.equal(a.pacer.inFlight, 0);
	});

	it('a turn that would come after latestStart is not taken, and the queue goes on', async () => {
		// 1 a minute: the first request takes the window's only place, the next must wait a window.
		const first = await waitForRequestSlot('late', 1);
		assert.ok(first);
		const started = Date.now();
		assert.equal(await waitForRequestSlot('late', 1, Date.now() + 50), null);
		assert.ok(Date.now() - started < 50, 'it did not wait for the turn');
		assert.equal(first.pacer.inFlight, 1, 'no place taken');
		// The refused turn left the queue usable: the next caller is answered, not stuck behind it.
		settleRequestSlot(first);
		assert.equal(await waitForRequestSlot('late', 1, Date.now() + 10), null);
		assert.equal(first.pacer.inFlight, 0);
	});
});

/** Timers the process holds (node's own test runner holds none between tests). */
const runningTimers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe("a poll's latest start bounds its wait in the credential's queue", () => {
	it('a poll queued behind a busy workflow is refused at its latest start, not once the turns ahead have gone', async () => {
		// 100 a window of 20 s: at the ceiling, one request every 10 ms. 30 turns of a busy workflow
		// are served over some 300 ms; a poll queued behind them may start no later than 60 ms on.
		pacingSettings.windowMs = 20_000;
		const started = Date.now();
		const busy = Array.from({ length: 30 }, () => waitForRequestSlot('busy', 100));
		const poll = waitForRequestSlot('busy', 100, started + 60).then((slot) => ({
			slot,
			ms: Date.now() - started,
		}));
		const after = waitForRequestSlot('busy', 100).then((slot) => ({
			slot,
			ms: Date.now() - started,
		}));
		const refused = await poll;
		assert.equal(refused.slot, null);
		// Given up once the turns ahead leave it less than the pace's 10 ms, by its latest start.
		assert.ok(refused.ms >= 50, `refused after ${refused.ms} ms, while it could still start`);
		// Slack for a loaded machine's timers; before the fix it waited for the 30 turns, some 300 ms.
		assert.ok(refused.ms < 60 + 100, `refused after ${refused.ms} ms, its latest start was 60 ms`);
		const slots = await Promise.all(busy);
		const next = await after;
		assert.ok(next.slot, 'the turn after the poll is served');
		assert.ok(
			next.slot.sentAt >= Math.max(...slots.map((s) => s.sentAt)),
			'in its place, after the busy workflow',
		);
		assert.equal(next.slot.pacer.inFlight, 31, 'the poll took no place');
		for (const slot of [...slots, next.slot]) settleRequestSlot(slot);
		assert.equal(runningTimers(), 0);
	});

	it('a poll behind a turn that waits for a free place is refused at once when the pace alone starts it too late', async () => {
		// 1 a window of 300 ms: the next place frees a window after the last answer.
		pacingSettings.windowMs = 300;
		settleRequestSlot(await waitForRequestSlot('full', 1));
		const started = Date.now();
		const ahead = waitForRequestSlot('full', 1).then((slot) => {
			settleRequestSlot(slot);
			return slot;
		});
		const refused = await waitForRequestSlot('full', 1, started + 100);
		assert.equal(refused, null);
		assert.ok(Date.now() - started < 150, `refused after ${Date.now() - started} ms`);
		const slot = await ahead;
		assert.ok(slot.sentAt - started >= 290, 'the turn ahead kept its own pace');
		assert.equal(slot.pacer.inFlight, 0, 'the refused turn took no place');
		assert.equal(runningTimers(), 0);
	});

	it('a turn given up takes no place later, and one served before its latest start leaves no timer behind', async () => {
		pacingSettings.windowMs = 20_000;
		const started = Date.now();
		const busy = Array.from({ length: 10 }, () => waitForRequestSlot('kept', 100));
		const givenUp = waitForRequestSlot('kept', 100, started + 20);
		const served = waitForRequestSlot('kept', 100, started + 60_000);
		assert.equal(await givenUp, null);
		const slots = await Promise.all([...busy, served]);
		assert.ok(slots.every(Boolean));
		assert.equal(slots[0].pacer.inFlight, 11, 'ten busy turns and the poll served, nothing more');
		for (const slot of slots) settleRequestSlot(slot);
		// The served poll's latest start is a minute away: nothing may still wait for it.
		assert.equal(runningTimers(), 0);
		assert.equal(slots[0].pacer.inFlight, 0);
	});

	it('a turn whose stop fires leaves the queue at once: it takes no place, the turns behind it keep theirs, no timer is left', async () => {
		pacingSettings.windowMs = 20_000;
		const first = await waitForRequestSlot('stopped', 1);
		const stop = new AbortController();
		const stopped = waitForRequestSlot('stopped', 1, Infinity, stop.signal);
		const behind = waitForRequestSlot('stopped', 1, Date.now() + 30_000);
		const started = Date.now();
		stop.abort();
		assert.equal(await stopped, null);
		assert.ok(Date.now() - started < 50, `left after ${Date.now() - started} ms`);
		assert.equal(first.pacer.waiting.length, 1, 'only the turn behind it waits');
		assert.equal(first.pacer.inFlight, 1, 'no place taken');
		assert.equal(await waitForRequestSlot('stopped', 1, Infinity, stop.signal), null);
		resetPacing();
		assert.equal(await behind, null);
		assert.equal(runningTimers(), 0);
	});

	it('a turn ahead (a budget’s request) is served before the turns without it, in order among its own', async () => {
		pacingSettings.windowMs = 200;
		settleRequestSlot(await waitForRequestSlot('ahead', 1));
		const order = [];
		const turn = (name, ahead) =>
			waitForRequestSlot('ahead', 1, Infinity, undefined, ahead).then((slot) => {
				order.push(name);
				settleRequestSlot(slot);
			});
		await Promise.all([
			turn('reply 1'),
			turn('read 1', true),
			turn('reply 2'),
			turn('read 2', true),
		]);
		assert.deepEqual(order, ['read 1', 'read 2', 'reply 1', 'reply 2']);
	});

	it("a server's pause gives up at once the waiting turns it puts past their latest start", async () => {
		pacingSettings.windowMs = 20_000;
		const sent = await waitForRequestSlot('paused', 100);
		const started = Date.now();
		const poll = waitForRequestSlot('paused', 100, started + 5_000);
		settleRequestSlot(sent, { status: 429, headers: { 'retry-after': '10' } });
		assert.equal(await poll, null);
		assert.ok(Date.now() - started < 150, `refused after ${Date.now() - started} ms`);
		assert.equal(runningTimers(), 0);
	});
});

describe('the sleep the pacer cuts short', () => {
	it("is n8n-workflow 2.x's sleep, which takes the signal", async () => {
		const nap = abortableSleepOf(workflow);
		const stop = new AbortController();
		const started = Date.now();
		const slept = nap(60_000, stop.signal);
		stop.abort();
		await assert.rejects(slept);
		assert.ok(Date.now() - started < 1_000);
		assert.equal(runningTimers(), 0);
	});

	it("is 1.x's sleepWithAbort where n8n-workflow has it (its sleep ignores the signal)", () => {
		const sleepWithAbort = async () => {};
		assert.equal(abortableSleepOf({ sleep: async () => {}, sleepWithAbort }), sleepWithAbort);
	});
});
