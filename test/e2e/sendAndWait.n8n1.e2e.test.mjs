// Messenger → Send and Wait for Response on the n8n 1.x line (N8N_1_VERSION): the whole suite of
// sendAndWait.e2e.test.mjs. On 1.x n8n checks the link's signature only because the node asks it
// to (setSignatureValidationRequired): the tampered-link test fails without that call.
import { N8N_1_VERSION, importSuite } from './harness.mjs';

await importSuite('sendAndWait.e2e.test.mjs', { version: N8N_1_VERSION });
