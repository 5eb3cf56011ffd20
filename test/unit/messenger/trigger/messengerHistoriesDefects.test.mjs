// Messenger Trigger: the shrunk histories with which the property tests (messageReceivedHistories,
// broadcastStatusHistories) found a defect, each run again through the same simulated API and
// checks. Each failed before its fix.
import { after, before, describe, it } from 'node:test';

import { retrySettings } from '../../../../nodes/shared/transport.ts';
import { checkBroadcastRun, runBroadcast } from './broadcastHistories.mjs';
import { checkChatRun, onTestClock, runChats } from './chatHistories.mjs';

/** A Message Received world: one chat watched by ID, quiet unless `changes` say otherwise. */
const chatWorld = (changes) => ({
	chats: 1,
	before: [0, 0, 0],
	byPhone: false,
	opensAt: 0,
	unknownChat: false,
	activation: 'activate',
	direction: 'both',
	groupByChat: false,
	download: false,
	pauseSeconds: 0,
	pageSize: 1,
	budgetMs: 3000,
	arrivals: [],
	orders: ['desc'],
	answers: [{ arrivals: 0, ms: 0 }],
	slowAt: [],
	slowFileAt: [],
	outages: [],
	restartAfter: [],
	...changes,
});

/** `count` outbound text messages written at one time (Direction: both). */
const written = (count, last = {}) =>
	Array.from({ length: count }, (_, i) => ({
		chat: 0,
		inbound: false,
		media: false,
		tick: false,
		...(i === count - 1 ? last : {}),
	}));

const holds = async (world) => onTestClock(async () => checkChatRun(world, await runChats(world)));

describe('Message Received: the histories that found a defect', () => {
	const saved = { ...retrySettings };
	before(() => Object.assign(retrySettings, { baseDelayMs: 0, maxDelayMs: 0 }));
	after(() => Object.assign(retrySettings, saved));

	it('a budget of 3,001 ms: each request got a fractional time limit and every poll failed', async () => {
		await holds(chatWorld({ budgetMs: 3001 }));
	});

	it("the first read cut off by the poll's time: a failed poll with no cause", async () => {
		await holds(chatWorld({ slowAt: [1] }));
	});

	it('two messages written between two pages read newest first: a page of repeats failed the poll', async () => {
		await holds(chatWorld({ arrivals: written(3), answers: [{ arrivals: 2, ms: 2500 }] }));
	});

	it('pages oldest first of one message each: the new messages never came', async () => {
		await holds(chatWorld({ arrivals: written(3), orders: ['asc'] }));
	});

	it('oldest first, a message written during the read with the time of messages read and an ID before theirs: lost', async () => {
		await holds(
			chatWorld({
				before: [1, 0, 0],
				pageSize: 2,
				arrivals: written(4, { tick: true }),
				orders: ['desc', 'asc', 'desc'],
				answers: [
					{ arrivals: 0, ms: 0 },
					{ arrivals: 0, ms: 0 },
					{ arrivals: 1, ms: 0 },
					{ arrivals: 2, ms: 0 },
					{ arrivals: 0, ms: 0 },
				],
			}),
		);
	});

	it("a 503 from a file's host: the message came with mediaError, its file never", async () => {
		const arrivals = written(4);
		arrivals[2] = { ...arrivals[2], media: true };
		await holds(
			chatWorld({
				download: true,
				arrivals,
				orders: ['bare'],
				answers: [
					{ arrivals: 0, ms: 0 },
					{ arrivals: 1, ms: 0 },
				],
				outages: [{ at: 4, length: 3, status: 503 }],
			}),
		);
	});

	it('an unknown chat at a leadership change: the workflow never got going', async () => {
		await holds(chatWorld({ unknownChat: true, activation: 'leadershipChange' }));
	});
});

describe('Broadcast Message Status Changed: the histories that found a defect', () => {
	const world = (changes) => ({
		messages: [{ startAt: 0, failsAt: undefined, expires: false }],
		unknownId: false,
		unknownFirst: false,
		activation: 'activate',
		statuses: [],
		budgetMs: 2000,
		steps: [],
		answers: [{ steps: 0, ms: 0 }],
		slowAt: [],
		outages: [],
		restartAfter: [],
		...changes,
	});
	const holdsBroadcast = async (w) =>
		onTestClock(async (clock) => checkBroadcastRun(w, await runBroadcast(w, clock)));

	it('a budget of 2,001 ms: every poll failed', async () => {
		await holdsBroadcast(world({ budgetMs: 2001 }));
	});

	it("an unknown ID at n8n's start-up: the known message was never watched", async () => {
		await holdsBroadcast(world({ unknownId: true, activation: 'init' }));
	});
});
