// Own n8n: n8n 2.41's durable scheduler for polls (off by default) is switched on by environment.
// The poll-time suite (pollTime.e2e.test.mjs, every test) on n8n 2.41.1 under that scheduler: it
// abandons a poll after N8N_SCHEDULER_POLL_TIMEOUT (45 s) and offers the node getPollBudgetMs()
// (36 s here), keeps the trigger's state as durable cursors, and backs off after a failed poll.
import { DEFAULT_N8N_VERSION, importSuite } from '../harness.mjs';
import { DURABLE_SCHEDULER_ENV } from './polling.mjs';

await importSuite('triggers/pollTime.e2e.test.mjs', {
	version: DEFAULT_N8N_VERSION,
	env: { ...DURABLE_SCHEDULER_ENV },
});
