// Own n8n: the tests stop and start n8n 1.x while messages are held or calls land.
// Message Received with Group by Chat and Wait for a Pause across a restart of n8n 1.x (the last
// test of messageReceivedRestart.e2e.test.mjs; its other tests run on 2.41.1), and Call Finished
// across a restart (callFinishedRestart.e2e.test.mjs).
import { N8N_1_VERSION, importSuite } from '../harness.mjs';

await importSuite('triggers/messageReceivedRestart.e2e.test.mjs', {
	version: N8N_1_VERSION,
	only: [
		'Group by Chat + Wait for a Pause: a burst held when n8n stops starts the workflow once after the restart',
	],
});

await importSuite('triggers/callFinishedRestart.e2e.test.mjs', { version: N8N_1_VERSION });
