// Send and Wait's approval answers (answers.e2e.test.mjs) on the n8n 1.x line (N8N_1_VERSION),
// every test. On 1.x n8n checks the link's signature only because the node asks it to
// (setSignatureValidationRequired): the tampered-link test fails without that call.
import { N8N_1_VERSION, importSuite } from '../harness.mjs';

await importSuite('humanReview/answers.e2e.test.mjs', { version: N8N_1_VERSION });
