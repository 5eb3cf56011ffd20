// Send and Wait for Response on the n8n 1.x line (N8N_1_VERSION, 1.123.81), on the run's one
// n8n 1.x (test/support/n8n.mjs): every test of answers.e2e.test.mjs and forms.e2e.test.mjs. On
// 1.x n8n checks the link's signature only because the node asks it to
// (setSignatureValidationRequired): the tampered-link test fails without that call. The agent
// review step (agentReview.e2e.test.mjs) does not exist on 1.x.
import { after } from 'node:test';

import { N8N_1_VERSION, importSuite, useN8n } from '../harness.mjs';

// Run on its own, this file keeps the n8n 1.x it starts until both suites are done.
const held = await useN8n({ version: N8N_1_VERSION });
after(() => held.release());

await importSuite('humanReview/answers.e2e.test.mjs', { version: N8N_1_VERSION });
await importSuite('humanReview/forms.e2e.test.mjs', { version: N8N_1_VERSION });
