// Call Finished in a busy workspace (callFinishedBusy.e2e.test.mjs, every test) on the n8n 1.x
// line (N8N_1_VERSION), on the run's one n8n 1.x: no poll budget offered (the trigger's own 40 s).
import { N8N_1_VERSION, importSuite } from '../harness.mjs';

await importSuite('triggers/callFinishedBusy.e2e.test.mjs', { version: N8N_1_VERSION });
