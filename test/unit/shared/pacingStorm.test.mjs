// shared/pacing.ts after a storm of 429s (the API refusing everything for a while, whatever this
// process sent): the rate comes back to what it was before the storm within two windows of its end,
// while a single 429 episode near a shared limit is still met with the usual cut and slow climb. A
// 429 to a few requests (a start's, a quiet trigger's) is a storm for the rate the process allowed
// itself: what it sends is back to what it wants within a window and a half.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';

import {
	ADAPTIVE_RULE,
	createPacer,
	markAnswered,
	markSent,
	pacingSettings,
	sendDelay,
} from '../../../nodes/shared/pacing.ts';

afterEach(() => {
	pacingSettings.windowMs = 60_000;
});

/** A seeded random stream, so that the jitter is the same on every run. */
function seeded(seed) {
	let state = seed;
	return () => (state = (state * 16807) % 2147483647) / 2147483647;
}

/**
 * One process sending as fast as `pacer` allows (or, given `wanted`, at each of those moments, ms
 * ascending, as soon as it allows from then), in simulated time, each answer 200 ms later: a 429
 * (Retry-After: 1 s) while `refused(sentAt)`, else a success. Returns the allowance at each moment
 * of `at`, and when each request went.
 */
function run(pacer, { refused, until = Infinity, at = [], wanted }) {
	const random = seeded(11);
	const seen = new Map();
	const sent = [];
	const marks = [...at].sort((a, b) => a - b);
	const wants = wanted && [...wanted];
	let now = 0;
	while (now < until && wants?.length !== 0) {
		while (marks.length && marks[0] <= now) seen.set(marks.shift(), pacer.allowance);
		if (wants && wants[0] > now) {
			now = wants[0];
			continue;
		}
		const delay = sendDelay(pacer, now);
		if (delay > 0) {
			now += Math.min(delay, 1000);
			continue;
		}
		wants?.shift();
		markSent(pacer, now);
		sent.push(now);
		const limited = refused(now);
		markAnswered(
			pacer,
			now,
			now + 200,
			limited ? { limited: true, pauseMs: 1000 } : { succeeded: true },
			random,
		);
		now += 200;
	}
	return { allowance: at.map((moment) => seen.get(moment)), sent };
}

/** Moments `ms` apart from `from` until before `to`. */
const every = (ms, from, to) =>
	Array.from({ length: Math.ceil((to - from) / ms) }, (_, i) => from + i * ms);

describe('after a 429 to a few requests (a start, a quiet trigger)', () => {
	const WINDOW = 60_000;
	const within = (sent, from, to) => sent.filter((at) => at >= from && at < to).length;

	it('a 429 to the third request of a start (processes that start together may share a limit): a fifth of the ceiling in the next window, and what it wanted all sent within five', () => {
		const pacer = createPacer(60);
		let requests = 0;
		const wanted = [0, 0, 0, ...every(3000, 1000, 5 * WINDOW)];
		const { sent } = run(pacer, { wanted, refused: () => ++requests === 3 });
		const next = within(sent, WINDOW, 2 * WINDOW);
		assert.ok(next >= 60 * ADAPTIVE_RULE.fewShare, `sent from 60 s to 120 s: ${next}`);
		const behind = wanted.length - within(sent, 0, 5 * WINDOW);
		assert.equal(behind, 0, `wanted in the first five windows and sent after them: ${behind}`);
		assert.ok(pacer.allowance > 20, `allowance after five windows: ${pacer.allowance}`);
	});

	// A live trigger's start: eight reads at once, then a 429 once they were answered. The cut to
	// 85–95 % of eight left more than half of a fifth of the ceiling, so it once climbed back by one
	// a window from there: 9 sent in the third window, of the 24 it wanted.
	it("a 429 after a start's burst of eight: back to a fifth of the ceiling at its first answer, then growing as a start does; all it wanted sent in the third window", () => {
		const pacer = createPacer(60);
		let requests = 0;
		const wanted = [...every(1, 0, 8), ...every(2500, 20_000, 5 * WINDOW)];
		const { sent } = run(pacer, { wanted, refused: () => ++requests === 9 });
		const third = within(sent, 2 * WINDOW, 3 * WINDOW);
		assert.ok(
			third >= 24,
			`sent from 120 s to 180 s: ${third} (wanted 24, and those left from before)`,
		);
		const behind = wanted.length - within(sent, 0, 5 * WINDOW);
		assert.equal(behind, 0, `wanted in the first five windows and sent after them: ${behind}`);
	});

	it('a 429 to a trigger that sent 2 a window for minutes: back to one every 3 s from 90 s after it', () => {
		const pacer = createPacer(60);
		const start = 5 * WINDOW;
		const { sent } = run(pacer, {
			wanted: [...every(WINDOW / 2, 0, start), ...every(3000, start, start + 4 * WINDOW)],
			refused: (sentAt) => sentAt === start,
		});
		const late = within(sent, start + 1.5 * WINDOW, start + 2.5 * WINDOW);
		assert.ok(late >= 19, `sent from 90 s to 150 s after the 429: ${late} (wanted 20)`);
	});
});

describe('after a storm of 429s', () => {
	const WINDOW = 60_000;
	for (const stormWindows of [1, 3, 6]) {
		it(`a storm of ${stormWindows} window(s): back to the rate sent before it within two windows of its end`, () => {
			const pacer = createPacer(60);
			const start = 3 * WINDOW;
			const end = start + stormWindows * WINDOW;
			const { allowance, sent } = run(pacer, {
				refused: (sentAt) => sentAt >= start && sentAt < end,
				until: end + 3 * WINDOW,
				at: [end - 1, end + 2 * WINDOW],
			});
			const [during, after] = allowance;
			const before = sent.filter((at) => at >= start - WINDOW && at < start).length;
			assert.ok(before >= 58, `${before} sent in the window before the storm`);
			assert.ok(during < 10, `the storm cut the rate to ${during}`);
			assert.ok(
				after >= before,
				`two windows after the storm: ${after} (sent before it: ${before})`,
			);
		});
	}

	// Coming back to the 40 sent, not to the 60 allowed, it once crept up by a few a window from
	// there while what the storm held back waited.
	it('a storm after windows of 40 sent of the 60 allowed: back to the 60 that held within a window of its end', () => {
		const pacer = createPacer(60);
		const start = 3 * WINDOW;
		const end = start + 2 * WINDOW;
		const {
			allowance: [after],
		} = run(pacer, {
			wanted: every(1500, 0, end + 2 * WINDOW),
			refused: (sentAt) => sentAt >= start && sentAt < end,
			at: [end + WINDOW],
		});
		assert.ok(after >= 60, `a window after the storm: ${after}`);
	});

	// At one request a window its spacing is half a window: the storm's end was found up to 30 s late.
	it('in a storm, a request at least every tenth of a window: its end is found within that', () => {
		const pacer = createPacer(60);
		const start = 3 * WINDOW;
		const end = start + 3 * WINDOW;
		const { sent } = run(pacer, {
			refused: (sentAt) => sentAt >= start && sentAt < end,
			until: end + WINDOW,
		});
		const during = sent.filter((at) => at >= start + WINDOW && at < end);
		const gaps = during.slice(1).map((at, index) => at - during[index]);
		// The spacing, the server's pause of 1 s with its spread, the answer's 200 ms.
		const most = WINDOW * ADAPTIVE_RULE.stormProbeShare + 1100 + 200 + 1000;
		assert.ok(Math.max(...gaps) <= most, `gaps in the storm: ${gaps}`);
		const found = sent.find((at) => at >= end) - end;
		assert.ok(found <= most, `the first request after the storm went ${found} ms after its end`);
	});

	it('a 429 episode near a shared limit (a cut or two) is no storm: the rate climbs by one a window, as before', () => {
		const pacer = createPacer(60);
		// 60 a window for three windows, then two 429s (the second for a request after the cut), then answers.
		const start = 3 * WINDOW;
		let refusals = 0;
		const {
			allowance: [after],
		} = run(pacer, {
			refused: (sentAt) => sentAt >= start && refusals++ < 2,
			until: start + 3 * WINDOW,
			at: [start + 2 * WINDOW - 1],
		});
		assert.ok(after <= 60 * 0.95 * 0.95 + 2, `two windows after the episode: ${after}`);
	});
});
