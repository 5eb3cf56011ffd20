// The same end-to-end suites on the n8n 1.x line (N8N_1_VERSION, 1.123.81), so that `npm test`
// proves the package on both lines. The other e2e files run on DEFAULT_N8N_VERSION (2.41.1).
//
// What runs on 1.x:
//   Voice AI    voiceAi.e2e.test.mjs, the tests in VOICE_AI_SUBSET: Return All over two pages, Get,
//               Cancel, one token shared across executions, renewal after the token expired (401,
//               token, resend) and the renewed token stored. Its other tests show as skipped here.
//   Messenger   messenger.e2e.test.mjs, every test: Send Media File in n8n 1.x's default binary
//               mode (in memory), in-memory and filesystem modes, contacts, broadcasts, one token,
//               and the upload right after the token expired (401, token, 200, exactly one upload).
//   Credential  the Test button for the full client and for a wrong secret (below; 1.x has no owner
//               by environment, so credentialTest.e2e.test.mjs cannot run on it unchanged).
// Every test of both suite files also passes on 1.x when run directly, e.g.
//   N8N_VERSION=1.123.81 node --import tsx --test test/e2e/voiceAi.e2e.test.mjs
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { DEMO_CLIENTS, TOKEN_PATH, startSandbox } from '../../sandbox/server.mjs';
import {
	N8N_1_VERSION,
	cleanupPack,
	createN8nInstance,
	importSuite,
	packPackage,
	setUpOwner,
} from './harness.mjs';

const VOICE_AI_SUBSET = [
	'Agent → Get Many with Return All returns every agent, in pages of 100',
	'Campaign → Get returns the campaign as the API holds it',
	'Campaign → Cancel cancels a running campaign',
	'all executions so far shared ONE token, stored in the credential',
	'an expired token is renewed once and the request resent',
	'the renewed token is stored too: the next execution asks for no token',
];

await importSuite('voiceAi.e2e.test.mjs', { version: N8N_1_VERSION, only: VOICE_AI_SUBSET });
await importSuite('messenger.e2e.test.mjs', { version: N8N_1_VERSION });

describe(
	`credential Test button in a running n8n (n8n ${N8N_1_VERSION})`,
	{ timeout: 10 * 60_000 },
	() => {
		const OWNER = { email: 'owner@e2e.example', password: 'E2e-owner-Passw0rd' };
		const BROWSER_ID = 'e2e-browser';
		const FULL = { id: 'e2eCredTestFull', name: 'Full client (e2e)' };
		const WRONG = { id: 'e2eCredTestBad1', name: 'Wrong secret (e2e)' };
		/** @type {Awaited<ReturnType<typeof startSandbox>>} */ let sandbox;
		/** @type {Awaited<ReturnType<typeof createN8nInstance>>} */ let n8n;
		/** @type {Awaited<ReturnType<Awaited<ReturnType<typeof createN8nInstance>>['start']>>} */
		let server;
		let cookie = '';

		const dataFor = (secret = DEMO_CLIENTS.full.clientSecret) => ({
			baseUrl: sandbox.url,
			clientId: DEMO_CLIENTS.full.clientId,
			clientSecret: secret,
		});

		/** What the editor sends when Test is pressed: the credential with the data in the form. */
		async function testCredential(credential, data) {
			const response = await fetch(`${server.baseUrl}/rest/credentials/test`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'browser-id': BROWSER_ID, cookie },
				body: JSON.stringify({
					credentials: {
						id: credential.id,
						name: credential.name,
						type: 'voiceMessagingApi',
						data,
					},
				}),
			});
			const text = await response.text();
			assert.equal(
				response.status,
				200,
				`POST /rest/credentials/test → ${response.status}: ${text}`,
			);
			const body = JSON.parse(text);
			return body.data ?? body;
		}

		before(async () => {
			sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
			const tarball = await packPackage();
			n8n = await createN8nInstance({ tarball, version: N8N_1_VERSION });
			await n8n.importCredentials([
				{ ...FULL, type: 'voiceMessagingApi', data: dataFor() },
				{ ...WRONG, type: 'voiceMessagingApi', data: dataFor('not-the-secret') },
			]);
			server = await n8n.start();
			// n8n 1.x: no N8N_INSTANCE_OWNER_*; set the owner up as the editor's first screen does.
			cookie = await setUpOwner(server.baseUrl, OWNER, BROWSER_ID);
		});

		after(async () => {
			await server?.stop();
			await n8n?.cleanup();
			await sandbox?.close();
			cleanupPack();
		});

		it('succeeds for the full client', async () => {
			sandbox.clearLog();
			const result = await testCredential(FULL, dataFor());
			assert.equal(result.status, 'OK', JSON.stringify(result));
			const tokens = sandbox.tokenRequests();
			assert.ok(tokens.length >= 1, 'the test reached the token endpoint');
			assert.ok(
				tokens.every(
					(entry) => entry.clientId === DEMO_CLIENTS.full.clientId && entry.status === 200,
				),
				JSON.stringify(tokens),
			);
		});

		it('fails with a clear message for a wrong secret', async () => {
			sandbox.clearLog();
			const result = await testCredential(WRONG, dataFor('not-the-secret'));
			assert.equal(result.status, 'Error', JSON.stringify(result));
			assert.match(
				result.message,
				/rejected the Client ID or Client Secret \(HTTP 401\)/,
				result.message,
			);
			assert.doesNotMatch(result.message, /not-the-secret/);
			const tokens = sandbox.tokenRequests();
			assert.ok(tokens.length >= 1);
			assert.ok(
				tokens.every((entry) => entry.status === 401),
				JSON.stringify(tokens),
			);
			assert.equal(
				sandbox.log.filter((entry) => entry.path !== TOKEN_PATH).length,
				0,
				'nothing but the token endpoint was called',
			);
		});
	},
);
