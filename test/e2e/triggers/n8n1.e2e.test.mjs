// Call Finished on the n8n 1.x line (every test of callFinished.e2e.test.mjs), and
// Messenger Trigger, Message Received, on the n8n 1.x line (N8N_1_VERSION), on the run's one n8n
// 1.x (test/support/n8n.mjs): activation records a baseline, and a message written between two
// polls starts one execution with it. The other tests of messageReceived.e2e.test.mjs (chat and
// phone, several, burst), the restarts (messageReceivedRestart.e2e.test.mjs) and the Voice AI
// Trigger's campaign events run on 2.41.1.
import { N8N_1_VERSION, importSuite } from '../harness.mjs';

await importSuite('triggers/messageReceived.e2e.test.mjs', {
	version: N8N_1_VERSION,
	only: [
		'activation records a baseline and starts no execution, although the chat has history',
		'a message written between two polls starts one execution with it',
	],
});

await importSuite('triggers/callFinished.e2e.test.mjs', { version: N8N_1_VERSION });
