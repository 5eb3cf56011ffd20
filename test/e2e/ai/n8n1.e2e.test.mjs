// The AI Agent suites on the n8n 1.x line (N8N_1_VERSION, 1.123.81), on the run's one n8n 1.x
// (test/support/n8n.mjs): the agent 2.2 (1.x has no 3.1) with one Voice AI tool and one Messenger
// tool (toolCalls.e2e.test.mjs), and a call with bad arguments (toolErrors.e2e.test.mjs). The
// suites' other tests show as skipped here.
import { after } from 'node:test';

import { N8N_1_VERSION, importSuite, useN8n } from '../harness.mjs';

// Run on its own, this file keeps the n8n 1.x it starts until both suites are done.
const held = await useN8n({ version: N8N_1_VERSION });
after(() => held.release());

await importSuite('ai/toolCalls.e2e.test.mjs', {
	version: N8N_1_VERSION,
	only: [
		'AI Agent 2.2: Billing → Get Balance: the API is asked, the model gets the balance and answers with it',
		'AI Agent 2.2: Message → Send Media by URL with chat, URL and caption from $fromAI()',
	],
});
await importSuite('ai/toolErrors.e2e.test.mjs', {
	version: N8N_1_VERSION,
	only: [
		'AI Agent 2.2: bad tool arguments come back to the model as errors naming the field, and nothing is sent',
	],
});
