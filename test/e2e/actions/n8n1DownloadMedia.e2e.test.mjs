// Own n8n: binary data in filesystem mode, which n8n 1.x (in memory by default) is started with here.
// Message → Download Media (downloadMedia.e2e.test.mjs, every test) on the n8n 1.x line: n8n 1.x
// runs the credential's `authenticate` function for each hop and hands a redirect back to the node
// (disableFollowRedirect), as 2.x does.
import { N8N_1_VERSION, importSuite } from '../harness.mjs';

await importSuite('actions/downloadMedia.e2e.test.mjs', { version: N8N_1_VERSION });
