// Messenger Live Trigger: the shrunk histories with which the live properties
// (liveHistories.test.mjs) found a defect, each run again through the same host, virtual clock,
// simulated chats and checks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
	checkBadChatNamed,
	checkExactlyOnce,
	checkLiveness,
	checkStops,
	runLive,
} from './liveHistories.mjs';

/** A live world: one chat watched by ID, quiet, activated by n8n, unless `changes` say otherwise. */
const liveWorld = (changes) => ({
	chats: 1,
	before: [0, 0, 0],
	byPhone: false,
	twice: false,
	opensAt: 0,
	unknownChat: false,
	bad: undefined,
	skewMs: 0,
	activation: 'init',
	restarts: [],
	direction: 'both',
	groupByChat: false,
	download: false,
	brokenFiles: [],
	pauseSeconds: 0,
	pageSize: 1,
	arrivals: [],
	orders: ['desc'],
	answers: [{ arrivals: 0, ms: 0 }],
	slowAt: [],
	outages: [],
	restartAfter: [],
	slowFileAt: [],
	...changes,
});

/** An outbound text message in the first chat (Direction: both), `gapMs` after the one before. */
const written = (changes = {}) => ({
	chat: 0,
	inbound: false,
	media: false,
	tick: false,
	bad: false,
	gapMs: 0,
	lateMs: 0,
	...changes,
});

let histories = 0;
const run = async (world) => await runLive(world, { clientId: `defect-${++histories}` });

describe('Messenger Live Trigger: the histories that found a defect', () => {
	it('one chat answering 503 on every read at an n8n start: every activation failed, the other chat was never watched', async () => {
		const world = liveWorld({ bad: { kind: '5xx', at: 0, healsAfterMs: 0, failsFromMs: 0 } });
		checkExactlyOnce(world, await run(world));
	});

	it("an outage at an n8n start named with the chat it failed, another chat answering 503 from 30 s on: only logged in the activation's quiet minute, never named", async () => {
		const world = liveWorld({
			bad: { kind: '5xx', at: 1, healsAfterMs: 20_000, failsFromMs: 30_000 },
			outages: [{ at: 1, length: 3, status: 503 }],
		});
		const history = await run(world);
		checkExactlyOnce(world, history);
		checkBadChatNamed(world, history);
	});

	it('one chat answering 503 on every read from 30 s on: it stayed first in line, the other chat was never read again', async () => {
		const world = liveWorld({
			bad: { kind: '5xx', at: 1, healsAfterMs: 0, failsFromMs: 30_000 },
			arrivals: [written({ inbound: true, gapMs: 40_000 })],
		});
		const history = await run(world);
		checkLiveness(world, history);
		checkExactlyOnce(world, history);
	});

	it('a chat unknown (404) for the first 20 s: stored as missing, never read again, its later message never came', async () => {
		const world = liveWorld({
			bad: { kind: '404', at: 0, healsAfterMs: 20_000, failsFromMs: 0 },
			arrivals: [written({ gapMs: 40_000 }), written({ bad: true })],
		});
		checkExactlyOnce(world, await run(world));
	});

	it("the API's clock an hour behind n8n's: a phone whose chat opened after activation counted from n8n's time, its message never came", async () => {
		const world = liveWorld({
			byPhone: true,
			opensAt: 1,
			skewMs: -3_600_000,
			activation: 'activate',
			arrivals: [written({ tick: true })],
		});
		checkExactlyOnce(world, await run(world));
	});

	it("the API's clock an hour ahead of n8n's: a chat the activation had no time to read counted from n8n's time, a message from before watching began came", async () => {
		const world = liveWorld({
			chats: 2,
			before: [0, 1, 0],
			skewMs: 3_600_000,
			activation: 'activate',
			slowAt: [2],
		});
		checkExactlyOnce(world, await run(world));
	});

	it('a chat listed by ID and by phone, n8n restarting 50 ms after activation: its message came twice', async () => {
		const world = liveWorld({
			byPhone: true,
			twice: true,
			activation: 'activate',
			restarts: [{ atMs: 50, mode: 'init' }],
			arrivals: [written()],
		});
		checkExactlyOnce(world, await run(world));
	});

	it('oldest first, three late messages (createdAt 2 s and 30 s old) written between the pages of the activation: a message from before watching began came as new', async () => {
		const world = liveWorld({
			before: [1, 0, 0],
			activation: 'activate',
			arrivals: [
				written({ lateMs: 2_000 }),
				written({ lateMs: 30_000 }),
				written({ lateMs: 30_000 }),
			],
			orders: ['asc', 'desc'],
			answers: [
				{ arrivals: 0, ms: 0 },
				{ arrivals: 1, ms: 0 },
				{ arrivals: 2, ms: 0 },
				{ arrivals: 0, ms: 0 },
			],
		});
		checkExactlyOnce(world, await run(world));
	});

	it('oldest first, a chat the activation had no time to read (its answer never came): its message written after activation never came', async () => {
		const world = liveWorld({
			chats: 2,
			before: [0, 1, 0],
			activation: 'activate',
			arrivals: [written({ chat: 1, tick: true })],
			orders: ['asc'],
			slowAt: [2],
		});
		checkExactlyOnce(world, await run(world));
	});

	it("oldest first, a message and then one late by 30 s in a phone's chat opened after activation: the message never came", async () => {
		const world = liveWorld({
			byPhone: true,
			opensAt: 1,
			activation: 'activate',
			arrivals: [written({ gapMs: 400 }), written({ lateMs: 30_000 })],
			orders: ['asc'],
		});
		checkExactlyOnce(world, await run(world));
	});

	it('a file whose host answers 503: its message never came, reported as an outage', async () => {
		const world = liveWorld({
			activation: 'activate',
			download: true,
			brokenFiles: [1],
			arrivals: [written({ media: true, gapMs: 3_000 })],
		});
		checkExactlyOnce(world, await run(world));
	});

	it('a file whose host answers 503, n8n restarting while the download waited to try again: closeFunction took 1.3 s', async () => {
		const world = liveWorld({
			activation: 'activate',
			download: true,
			brokenFiles: [1],
			arrivals: [written({ media: true, gapMs: 3_000 })],
			restarts: [{ atMs: 10_880, mode: 'init' }],
		});
		const history = await run(world);
		checkExactlyOnce(world, history);
		for (const ms of history.host.closeMs) assert.ok(ms <= 1000, `closeFunction took ${ms} ms`);
	});

	it('one 429 at the first read after activation: the pacing cut to a request a minute, a message written 15 s later came 177 s after the 429', async () => {
		const world = liveWorld({
			activation: 'activate',
			arrivals: [written(), written({ gapMs: 15_000 }), written()],
			outages: [{ at: 2, length: 1, status: 429 }],
		});
		const history = await run(world);
		checkExactlyOnce(world, history);
		checkLiveness(world, history);
	});

	it("one 429 at a phone's first read, its chat opened after activation, served one message a page: each read cut off by the slow pacing asked for the phone's chat again, the message came 187 s after the 429", async () => {
		const world = liveWorld({
			byPhone: true,
			opensAt: 1,
			activation: 'activate',
			arrivals: [written(), written(), written(), written({ gapMs: 40_000 })],
			answers: [
				{ arrivals: 0, ms: 0 },
				{ arrivals: 0, ms: 0 },
				{ arrivals: 1, ms: 0 },
			],
			outages: [{ at: 2, length: 1, status: 429 }],
		});
		const history = await run(world);
		checkExactlyOnce(world, history);
		checkLiveness(world, history);
	});

	it('four 429s at activation, deactivated while the loop waited for a request slot of the cut pacing: closeFunction took 1.4 s', async () => {
		const world = liveWorld({
			activation: 'activate',
			arrivals: [
				written(),
				written({ gapMs: 40_000 }),
				written(),
				written(),
				written({ gapMs: 40_000 }),
			],
			orders: ['asc', 'desc'],
			outages: [{ at: 1, length: 4, status: 429 }],
		});
		const history = await run(world);
		checkStops(history);
		for (const ms of history.host.closeMs) assert.ok(ms <= 1000, `closeFunction took ${ms} ms`);
	});

	// A start's 429 brought the pacing back to a fifth of the budget only when the cut left less
	// than half of that; after it, one more a window for two windows, then doubling. A chat served
	// one message a page needs several reads (20,000 histories, seed 1050227867, the 17,402nd).
	it('a 429 at the fourth read after a start, a chat served one message a page: a message came 167.7 s after the 429', async () => {
		const world = liveWorld({
			chats: 3,
			before: [0, 0, 1],
			activation: 'activate',
			arrivals: [
				written({ chat: 2, gapMs: 15_000 }),
				written({ chat: 2 }),
				written({ chat: 2 }),
				written({ chat: 2, gapMs: 15_000 }),
				written({ chat: 2 }),
			],
			orders: ['desc', 'asc', 'bare', 'desc', 'desc'],
			answers: [
				{ arrivals: 0, ms: 0 },
				{ arrivals: 0, ms: 0 },
				{ arrivals: 1, ms: 0 },
			],
			slowAt: [7],
			outages: [{ at: 8, length: 1, status: 429 }],
		});
		const history = await run(world);
		checkExactlyOnce(world, history);
		checkLiveness(world, history);
	});
});
