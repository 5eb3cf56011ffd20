// Own n8n: n8n 2.41's durable scheduler for polls (off by default) is switched on by environment.
// Call Finished in a busy workspace (callFinishedBusy.e2e.test.mjs, every test) on n8n 2.41.1
// under that scheduler: it offers the node getPollBudgetMs(), abandons a poll after 45 s and runs
// one poll at a time on SQLite, the slow timeline's beside the others'.
import { DEFAULT_N8N_VERSION, importSuite } from '../harness.mjs';
import { DURABLE_SCHEDULER_ENV } from './polling.mjs';

await importSuite('triggers/callFinishedBusy.e2e.test.mjs', {
	version: DEFAULT_N8N_VERSION,
	env: { ...DURABLE_SCHEDULER_ENV },
});
