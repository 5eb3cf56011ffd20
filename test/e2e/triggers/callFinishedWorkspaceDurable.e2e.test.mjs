// Own n8n: Call Finished in a busy workspace (callFinishedWorkspace.e2e.test.mjs, every test) on
// n8n 2.41.1 under its durable scheduler for polls (switched on by environment), which offers the
// node getPollBudgetMs() and abandons a poll after 45 s.
import { DEFAULT_N8N_VERSION, importSuite } from '../harness.mjs';
import { DURABLE_SCHEDULER_ENV } from './polling.mjs';

await importSuite('triggers/callFinishedWorkspace.e2e.test.mjs', {
	version: DEFAULT_N8N_VERSION,
	env: { ...DURABLE_SCHEDULER_ENV },
});
