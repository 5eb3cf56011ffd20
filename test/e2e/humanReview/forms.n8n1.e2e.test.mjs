// Send and Wait's forms, free text and the browser (forms.e2e.test.mjs) on the n8n 1.x line
// (N8N_1_VERSION), every test.
import { N8N_1_VERSION, importSuite } from '../harness.mjs';

await importSuite('humanReview/forms.e2e.test.mjs', { version: N8N_1_VERSION });
