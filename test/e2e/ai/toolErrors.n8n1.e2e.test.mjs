// The AI Agent's tool errors (toolErrors.e2e.test.mjs) on the n8n 1.x line (N8N_1_VERSION,
// 1.123.81): a 2.2 agent's call with bad arguments. The suite's other tests show as skipped here.
import { N8N_1_VERSION, importSuite } from '../harness.mjs';

await importSuite('ai/toolErrors.e2e.test.mjs', {
	version: N8N_1_VERSION,
	only: [
		'AI Agent 2.2: bad tool arguments come back to the model as errors naming the field, and nothing is sent',
	],
});
