// The AI Agent's tool calls (toolCalls.e2e.test.mjs) on the n8n 1.x line (N8N_1_VERSION,
// 1.123.81): the agent 2.2 (1.x has no 3.1) with one Voice AI tool and one Messenger tool. The
// suite's other tests show as skipped here.
import { N8N_1_VERSION, importSuite } from '../harness.mjs';

await importSuite('ai/toolCalls.e2e.test.mjs', {
	version: N8N_1_VERSION,
	only: [
		'AI Agent 2.2: Billing → Get Balance: the API is asked, the model gets the balance and answers with it',
		'AI Agent 2.2: Message → Send Media by URL with chat, URL and caption from $fromAI()',
	],
});
