// Broadcast Message Status Changed, proven over generated histories (broadcastHistories.mjs):
// statuses move on while the trigger asks, IDs the API does not know from the start or that
// expire later, a poll's time ending at any request, outages (503, 429) at any request, n8n
// restarting between polls from the state it saved, activation by a person or by n8n itself.
// Each change seen between two reads of the kept state is emitted once; an unknown ID stops no
// other; every message's last status is seen.
import { after, before, describe, it } from 'node:test';

import fc from 'fast-check';

import { retrySettings } from '../../../../nodes/shared/transport.ts';
import { broadcastWorldArbitrary, checkBroadcastRun, runBroadcast } from './broadcastHistories.mjs';
import { onTestClock } from './chatHistories.mjs';

/** Histories tried (each a whole run of polls); FC_RUNS sets another number. */
const RUNS = Number(process.env.FC_RUNS ?? 2500);

describe('Broadcast Message Status Changed over generated histories', () => {
	const saved = { ...retrySettings };
	before(() => Object.assign(retrySettings, { baseDelayMs: 0, maxDelayMs: 0 }));
	after(() => Object.assign(retrySettings, saved));

	it(`each change seen between two reads is emitted once; an unknown ID stops no other (${RUNS} histories)`, async () => {
		await fc.assert(
			fc.asyncProperty(broadcastWorldArbitrary(), async (world) =>
				onTestClock(async (clock) => checkBroadcastRun(world, await runBroadcast(world, clock))),
			),
			{ numRuns: RUNS },
		);
	});
});
