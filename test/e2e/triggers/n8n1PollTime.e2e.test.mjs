// The poll-time suite (pollTime.e2e.test.mjs, every test) on the n8n 1.x line (N8N_1_VERSION), on
// the run's one n8n 1.x: n8n 1.x offers no time budget, so every poll keeps to the trigger's own
// (40 s, below the minute between polls).
import { N8N_1_VERSION, importSuite } from '../harness.mjs';

await importSuite('triggers/pollTime.e2e.test.mjs', { version: N8N_1_VERSION });
