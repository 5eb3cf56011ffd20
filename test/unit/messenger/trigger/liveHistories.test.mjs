// Messenger Live Trigger, proven over generated histories (liveHistories.mjs): its own trigger()
// and loop with the schedule's real times on a virtual clock, hosted as n8n hosts it (static data
// saved at the end of each activation and at each emit, reloaded through n8n's proxies at restarts
// at any moment), against simulated chats whose customers write over minutes, pages that shift,
// repeat and come in any order, messages sharing a createdAt, outages (503, answers that never
// come). Each property adds one of the faults the trigger must keep to its place: 429s, late
// messages, the API's clock up to an hour from n8n's, a chat listed by ID and by phone, one bad
// chat, files that never download; the last has them all and deactivates at any moment.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import fc from 'fast-check';

import {
	checkBadChatNamed,
	checkExactlyOnce,
	checkLiveness,
	checkStops,
	liveWorldArbitrary,
	runLive,
} from './liveHistories.mjs';

/** Histories tried per property (each minutes of a trigger's life); FC_RUNS and FC_SEED set others. */
const RUNS = Number(process.env.FC_RUNS ?? 300);
const SEED = process.env.FC_SEED === undefined ? {} : { seed: Number(process.env.FC_SEED) };

let histories = 0;
/** Checks `check(world, run)` over `RUNS` worlds of `arbitrary`; fast-check prints the seed and the shrunk world. */
const holds = async (arbitrary, check) =>
	await fc.assert(
		fc.asyncProperty(arbitrary, async (world) => {
			check(world, await runLive(world, { clientId: `client-${++histories}` }));
		}),
		{ numRuns: RUNS, ...SEED },
	);

describe('Messenger Live Trigger over generated histories', () => {
	it(`restarts at any moment, as n8n saves and reloads: every message written after watching began is handed over once, none from before (${RUNS} histories)`, async () => {
		await holds(liveWorldArbitrary(), checkExactlyOnce);
	});

	it(`outages with 429s: the same (${RUNS} histories)`, async () => {
		await holds(liveWorldArbitrary({ limits: true }), checkExactlyOnce);
	});

	// A 429 to a few requests (a start's, a quiet trigger's) once cut the pacing to one or two a
	// window, climbing back by one a window: 151.9 s at seed 881357 (FC_SEED=881357).
	it(`outages with 429s: each message comes within 150 s of the API's last outage (${RUNS} histories)`, async () => {
		await holds(liveWorldArbitrary({ limits: true }), (world, run) => {
			checkExactlyOnce(world, run);
			checkLiveness(world, run);
		});
	});

	it(`late messages (a createdAt older than the API's time when they appear): none from before watching began, none twice (${RUNS} histories)`, async () => {
		await holds(liveWorldArbitrary({ late: true }), checkExactlyOnce);
	});

	it(`the API's clock up to an hour before or after n8n's: the same (${RUNS} histories)`, async () => {
		await holds(liveWorldArbitrary({ skew: true }), checkExactlyOnce);
	});

	it(`a chat listed by ID and by phone is one chat: each of its messages once, across restarts (${RUNS} histories)`, async () => {
		await holds(liveWorldArbitrary({ twice: true }), checkExactlyOnce);
	});

	it(`one bad chat (5xx or 403 on every read, unknown for a while) holds up no other chat's messages, and its own messages come once it can be read (${RUNS} histories)`, async () => {
		await holds(liveWorldArbitrary({ bad: true }), (world, run) => {
			checkLiveness(world, run);
			checkExactlyOnce(world, run);
		});
	});

	it(`one bad chat is named in a failed execution, even just after an outage was (${RUNS} histories)`, async () => {
		await holds(liveWorldArbitrary({ bad: true }), (world, run) => {
			checkLiveness(world, run);
			checkExactlyOnce(world, run);
			checkBadChatNamed(world, run);
		});
	});

	it(`a file that never downloads: its message is handed over saying so, and blocks none after it (${RUNS} histories)`, async () => {
		await holds(liveWorldArbitrary({ files: true }), checkExactlyOnce);
	});

	it(`deactivated at any moment, whatever the loop waits for: closeFunction returns within 1 s, and nothing is asked or handed over after it (${RUNS} histories)`, async () => {
		const all = { skew: true, bad: true, twice: true, files: true, limits: true, late: true };
		await holds(liveWorldArbitrary(all), (world, run) => {
			checkStops(run);
			for (const ms of run.host.closeMs) assert.ok(ms <= 1000, `closeFunction took ${ms} ms`);
		});
	});
});
