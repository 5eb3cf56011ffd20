// Own n8n: n8n 2.41's durable scheduler for polls switched on by environment. The Messenger Live
// Trigger suite (messageLive.e2e.test.mjs, every test) under it: the scheduler takes over polls,
// not a node's trigger(), which runs and stops as under the default one.
import { DEFAULT_N8N_VERSION, importSuite } from '../harness.mjs';
import { DURABLE_SCHEDULER_ENV } from './polling.mjs';

await importSuite('triggers/messageLive.e2e.test.mjs', {
	version: DEFAULT_N8N_VERSION,
	env: { ...DURABLE_SCHEDULER_ENV },
});
