// Call Finished at scale (callFinishedScale.e2e.test.mjs, every test) on the n8n 1.x line
// (N8N_1_VERSION), on the run's one n8n 1.x: a broken campaign beside healthy ones, a first read
// longer than a poll, numbers listed twice, and calls still on a line when their campaign ends.
import { N8N_1_VERSION, importSuite } from '../harness.mjs';

await importSuite('triggers/callFinishedScale.e2e.test.mjs', { version: N8N_1_VERSION });
