// Own n8n: binary data in filesystem mode, which n8n 1.x (in memory by default) is started with here.
// Message Received with Download Media (messageReceivedMedia.e2e.test.mjs, every test) on the n8n
// 1.x line: the same bytes in the workflow, storage links and redirects fetched without the token,
// failed downloads reported once with mediaError.
import { N8N_1_VERSION, importSuite } from '../harness.mjs';

await importSuite('triggers/messageReceivedMedia.e2e.test.mjs', { version: N8N_1_VERSION });
