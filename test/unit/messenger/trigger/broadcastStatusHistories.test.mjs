// Broadcast Message Status Changed, proven over generated histories (broadcastHistories.mjs):
// statuses move on while the trigger asks, IDs the API does not know from the start or that
// expire later, a poll's time ending at any request, outages (503, 429) at any request, n8n
// restarting between polls from the state it saved, activation by a person or by n8n itself.
// Each change seen between two reads of the kept state is emitted once; an unknown ID stops no
// other; every message's last status is seen.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import fc from 'fast-check';

import { retrySettings } from '../../../../nodes/shared/transport.ts';
import {
	UNKNOWN_MESSAGE,
	broadcastWorldArbitrary,
	expectedChanges,
	runBroadcast,
} from './broadcastHistories.mjs';
import { onTestClock } from './chatHistories.mjs';

/** Histories tried (each a whole run of polls); FC_RUNS sets another number. */
const RUNS = Number(process.env.FC_RUNS ?? 2500);

function checkRun(world, run) {
	const changes = run.emitted.map((c) => `${c.messageId}:${c.previousStatus}>${c.status}`);
	assert.deepEqual([...changes].sort(), expectedChanges(world, run));
	assert.equal(new Set(changes).size, changes.length, `emitted twice: ${changes}`);
	const gone = new Set([
		UNKNOWN_MESSAGE,
		...run.api.messages.filter((m) => m.gone).map((m) => m.id),
	]);
	for (const failure of run.failures) {
		const id = /broadcast message "([^"]+)" was not found/.exec(failure.message)?.[1];
		assert.ok(id && gone.has(id), `a failed execution of its own: ${failure.message}`);
	}
	for (const error of run.thrown) {
		const id = /broadcast message "([^"]+)" was not found/.exec(error.message)?.[1];
		const named = run.refusable && gone.has(id);
		assert.ok(
			named || ['temporarily-unavailable', 'rate-limited'].includes(error.failure?.cause),
			`a poll failed with ${JSON.stringify(error.failure)}: ${error.message}`,
		);
	}
	if (run.refusedAtActivation) {
		assert.deepEqual(run.emitted, []);
		return;
	}
	// Every message that does not expire is seen to its last status, whatever else is watched.
	for (const message of run.api.messages.filter((m) => !m.expires)) {
		const served = run.lineage[message.id] ?? [];
		assert.equal(served.at(-1), message.path.at(-1), `${message.id}: ${served}`);
	}
	if (world.unknownId) {
		const named = run.failures.filter((f) => f.message.includes(UNKNOWN_MESSAGE)).length;
		assert.ok(named >= 1 && named <= 1 + world.restartAfter.length, `named ${named} times`);
	}
}

describe('Broadcast Message Status Changed over generated histories', () => {
	const saved = { ...retrySettings };
	before(() => Object.assign(retrySettings, { baseDelayMs: 0, maxDelayMs: 0 }));
	after(() => Object.assign(retrySettings, saved));

	it(`each change seen between two reads is emitted once; an unknown ID stops no other (${RUNS} histories)`, async () => {
		await fc.assert(
			fc.asyncProperty(broadcastWorldArbitrary(), async (world) =>
				onTestClock(async (clock) => checkRun(world, await runBroadcast(world, clock))),
			),
			{ numRuns: RUNS },
		);
	});
});
