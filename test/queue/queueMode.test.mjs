// n8n in queue mode, as users scale it: PostgreSQL, Redis, one main instance and two workers
// (n8n 2.41.1), started once for the whole suite (cluster.mjs), against the sandbox.
//
// What is shown, one file each:
// - fanOut.mjs: 200 operations (voice and messenger, one execution each) spread over both
//   workers: all succeed, each message is sent once, and each worker asks for a token at most once;
// - sharedLimit.mjs: two workers at default settings share the API's limit of 100 per window
//   without seeing each other: at most 5 % of the requests answered 429, no item fails;
// - triggers.mjs: the polling triggers run once, on the main instance: one poll per activation or
//   tick, one change, one execution each;
// - tokenExpiry.mjs: tokens revoked and expiring while both workers are busy: every item
//   succeeds, and the token requests stay within the token endpoint's 10 a minute;
// - callFinished.mjs: Call Finished on a campaign whose calls land while the other parts run:
//   each attempt that ends after activation fires once, retries included;
// - liveTrigger.mjs: the Messenger Live Trigger (trigger(), not polls) runs on the main instance
//   alone, each customer message starts one execution that a worker runs, answered once, within
//   seconds; deactivated, it reads nothing more;
// - chatMemory.mjs: the chatbot example (Live Trigger → AI Agent with Messenger Chat Memory): each
//   answer on a worker, whose memory reads the chat's history there; the second answer remembers
//   the first message.
//
// The parts are modules registered here, in one process, so that they share the one cluster;
// --test-name-pattern runs one of them (the trigger tests need both of theirs).
import { describe } from 'node:test';

import { callsFiredOnceTests, callsLandTests } from './callFinished.mjs';
import { chatMemoryTests } from './chatMemory.mjs';
import { useQueueCluster } from './cluster.mjs';
import { fanOutTests } from './fanOut.mjs';
import { liveTriggerTests } from './liveTrigger.mjs';
import { sharedLimitTests } from './sharedLimit.mjs';
import { tokenExpiryTests } from './tokenExpiry.mjs';
import { triggerBaselineTests, triggersRanOnceTests } from './triggers.mjs';

describe(
	'queue mode: PostgreSQL, Redis, a main instance and two workers (n8n 2.41.1)',
	{ timeout: 25 * 60_000 },
	() => {
		const q = useQueueCluster();
		// In this order: the triggers' next ticks come while the workers fan out, and while the
		// live trigger runs (its sandbox is its own, so its reads count in no other part's window;
		// the ticks' polls and executions it leaves alone: triggers.mjs waits for whatever ticks
		// passed); the trigger tests end before the shared-limit test fills the API's window (see
		// triggers.mjs), and the token test has the token endpoint's minute to itself. The calls
		// land in the background from the baseline on, and are checked last, when they have had
		// the longest.
		triggerBaselineTests(q);
		callsLandTests(q);
		fanOutTests(q);
		liveTriggerTests(q);
		chatMemoryTests(q);
		triggersRanOnceTests(q);
		sharedLimitTests(q);
		tokenExpiryTests(q);
		callsFiredOnceTests(q);
	},
);
