// The same end-to-end suites on the n8n 1.x line (N8N_1_VERSION, 1.123.81), so that `npm test`
// proves the package on both lines, on the run's one n8n 1.x (test/support/n8n.mjs). The other
// e2e files run on DEFAULT_N8N_VERSION (2.41.1).
//
// What runs on 1.x:
//   Voice AI    actions/voiceAi.e2e.test.mjs, the tests in VOICE_AI_SUBSET: Return All over two
//               pages, Get, Cancel, one token shared across executions, renewal after the token
//               expired (401, token, resend) and the renewed token stored. Its other tests show as
//               skipped here.
//   Messenger   actions/messenger.e2e.test.mjs and actions/messengerBinaryData.e2e.test.mjs, every
//               test: Send Media File in n8n 1.x's default binary mode (in memory), in-memory and
//               filesystem modes, contacts, broadcasts, one token, and the upload right after the
//               token expired (401, token, 200, exactly one upload), also for a 30 MiB file
//               streamed from the filesystem store (read again for the resend).
//   Credential  actions/credentialTest.e2e.test.mjs, every test of the Test button (the owner is
//               set up through the REST API on 1.x).
// Every test of these suite files also passes on 1.x when run directly, e.g.
//   N8N_VERSION=1.123.81 node --import tsx --test test/e2e/actions/voiceAi.e2e.test.mjs
import { after } from 'node:test';

import { N8N_1_VERSION, importSuite, useN8n } from '../harness.mjs';

const VOICE_AI_SUBSET = [
	'Agent → Get Many with Return All returns every agent, in pages of 100',
	'Campaign → Get returns the campaign as the API holds it',
	'Campaign → Cancel cancels a running campaign',
	'all executions so far shared ONE token, stored in the credential',
	'an expired token is renewed once and the request resent',
	'the renewed token is stored too: the next execution asks for no token',
];

// Run on its own, this file keeps the n8n 1.x it starts until all its suites are done (one n8n
// for all of them, not one per suite).
const held = await useN8n({ version: N8N_1_VERSION });
after(() => held.release());

await importSuite('actions/voiceAi.e2e.test.mjs', {
	version: N8N_1_VERSION,
	only: VOICE_AI_SUBSET,
});
await importSuite('actions/messenger.e2e.test.mjs', { version: N8N_1_VERSION });
await importSuite('actions/messengerBinaryData.e2e.test.mjs', { version: N8N_1_VERSION });
await importSuite('actions/credentialTest.e2e.test.mjs', { version: N8N_1_VERSION });
