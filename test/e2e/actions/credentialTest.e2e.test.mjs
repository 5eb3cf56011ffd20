// The credential's Test button, through n8n's own credential-test endpoint in a running n8n.
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';

import { DEMO_CLIENTS, TOKEN_PATH, startSandbox } from '../../../sandbox/server.mjs';
import { useN8n } from '../../support/n8n.mjs';
import { sandboxCredential, suiteOptions } from '../harness.mjs';

// test/e2e/actions/n8n1.e2e.test.mjs imports this file to run it on n8n 1.x (harness importSuite).
const { version: N8N_VERSION, title, it } = suiteOptions('credential Test button in a running n8n');

const CREDENTIALS = {
	full: { id: 'e2eCredTestFull', name: 'Full client (e2e)' },
	messengerOnly: { id: 'e2eCredTestMsgr', name: 'Messenger-only client (e2e)' },
	wrongSecret: { id: 'e2eCredTestBad1', name: 'Wrong secret (e2e)' },
};

describe(title, { timeout: 10 * 60_000 }, () => {
	/** @type {Awaited<ReturnType<typeof startSandbox>>} */
	let sandbox;
	/** @type {Awaited<ReturnType<typeof useN8n>>} */
	let n8n;

	const dataFor = (client, secret = client.clientSecret) => ({
		baseUrl: sandbox.url,
		clientId: client.clientId,
		clientSecret: secret,
	});

	/** What the editor sends when Test is pressed: the credential with the data in the form. */
	async function testCredential(credential, data) {
		// n8n.rest fails the test, with the body, on any answer but 200.
		return n8n.rest('POST', '/rest/credentials/test', {
			credentials: {
				id: n8n.credentialId(credential.id),
				name: credential.name,
				type: 'voiceMessagingApi',
				data,
			},
		});
	}

	before(async () => {
		sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
		n8n = await useN8n({ version: N8N_VERSION });
		await n8n.importCredentials([
			sandboxCredential(CREDENTIALS.full, sandbox, DEMO_CLIENTS.full),
			sandboxCredential(CREDENTIALS.messengerOnly, sandbox, DEMO_CLIENTS.messengerOnly),
			sandboxCredential(CREDENTIALS.wrongSecret, sandbox, DEMO_CLIENTS.full, {
				clientSecret: 'not-the-secret',
			}),
		]);
		assert.match(n8n.cookie, /n8n-auth=/);
	});

	after(async () => {
		await n8n?.release();
		await sandbox?.close();
	});

	it('succeeds for the full client and asks the token endpoint once', async () => {
		sandbox.clearLog();
		const result = await testCredential(CREDENTIALS.full, dataFor(DEMO_CLIENTS.full));
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

	it('succeeds for a messenger-only client (no voicebot scope)', async () => {
		sandbox.clearLog();
		const result = await testCredential(
			CREDENTIALS.messengerOnly,
			dataFor(DEMO_CLIENTS.messengerOnly),
		);
		assert.equal(result.status, 'OK', JSON.stringify(result));
		assert.ok(
			sandbox
				.tokenRequests()
				.some(
					(entry) => entry.clientId === DEMO_CLIENTS.messengerOnly.clientId && entry.status === 200,
				),
		);
	});

	it('fails with a clear message for a wrong secret', async () => {
		sandbox.clearLog();
		const result = await testCredential(
			CREDENTIALS.wrongSecret,
			dataFor(DEMO_CLIENTS.full, 'not-the-secret'),
		);
		assert.equal(result.status, 'Error', JSON.stringify(result));
		// The failure happens in preAuthentication, which n8n wraps in a NodeApiError; the
		// credential's own words must survive that wrapping.
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

	it('fails with a clear message when the Base URL points at nothing', async () => {
		const result = await testCredential(CREDENTIALS.full, {
			...dataFor(DEMO_CLIENTS.full),
			baseUrl: 'http://127.0.0.1:9',
		});
		assert.equal(result.status, 'Error', JSON.stringify(result));
		assert.match(
			result.message,
			/Could not reach the API at http:\/\/127\.0\.0\.1:9 .*connection was refused.*Base URL/,
			result.message,
		);
	});
});
