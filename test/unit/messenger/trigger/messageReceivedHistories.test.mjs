// Message Received, proven over generated chat histories (chatHistories.mjs): customers write
// while the trigger reads (between the pages of one read too), several messages share a
// createdAt, pages shift as messages arrive newest first, the history comes oldest first, as a
// bare array in any order or with shuffled pages (an order that changes from read to read), Wait
// for a Pause holds messages, Download Media's files are cut off by the poll's time and delivered
// at the next poll, a poll's time ends at any request, the API fails (503, 429) at any request,
// n8n restarts between polls from the state it saved. Every message that arrived after watching
// began is emitted exactly once, none from before, and the state stays within its bounds.
import { after, before, describe, it } from 'node:test';

import fc from 'fast-check';

import { retrySettings } from '../../../../nodes/shared/transport.ts';
import { chatWorldArbitrary, checkChatRun, onTestClock, runChats } from './chatHistories.mjs';

/** Histories tried per property (each a whole run of polls); FC_RUNS sets another number. */
const RUNS = Number(process.env.FC_RUNS ?? 1500);

describe('Message Received over generated chat histories', () => {
	// A 503 or 429 is asked again at once: the histories' time is the test's clock.
	const saved = { ...retrySettings };
	before(() => Object.assign(retrySettings, { baseDelayMs: 0, maxDelayMs: 0 }));
	after(() => Object.assign(retrySettings, saved));

	it(`every message written after watching began is emitted once, none from before (${RUNS} histories)`, async () => {
		await fc.assert(
			fc.asyncProperty(chatWorldArbitrary({ unknown: true }), async (world) =>
				onTestClock(async () => checkChatRun(world, await runChats(world))),
			),
			{ numRuns: RUNS },
		);
	});

	it(`with Wait for a Pause and Download Media: held messages and files cut off by the poll's time come once (${RUNS} histories)`, async () => {
		await fc.assert(
			fc.asyncProperty(chatWorldArbitrary({ download: true, pause: true }), async (world) =>
				onTestClock(async () => checkChatRun(world, await runChats(world))),
			),
			{ numRuns: RUNS },
		);
	});
});
