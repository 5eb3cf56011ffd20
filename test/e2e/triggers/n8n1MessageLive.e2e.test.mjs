// The Messenger Live Trigger suite (messageLive.e2e.test.mjs, every test) on the n8n 1.x line
// (N8N_1_VERSION), on the run's one n8n 1.x: n8n 1.x runs a node's trigger() the same way, has no
// deduplication key for its executions and no failed execution without deactivation (a failed read
// is logged there).
import { N8N_1_VERSION, importSuite } from '../harness.mjs';

await importSuite('triggers/messageLive.e2e.test.mjs', { version: N8N_1_VERSION });
