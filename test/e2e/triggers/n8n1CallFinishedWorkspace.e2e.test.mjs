// Call Finished in a busy workspace (callFinishedWorkspace.e2e.test.mjs, every test) on the n8n
// 1.x line (N8N_1_VERSION), on the run's one n8n 1.x.
import { N8N_1_VERSION, importSuite } from '../harness.mjs';

await importSuite('triggers/callFinishedWorkspace.e2e.test.mjs', { version: N8N_1_VERSION });
