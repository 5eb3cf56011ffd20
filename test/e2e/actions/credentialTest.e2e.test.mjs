// The credential's Test button, through n8n's own credential-test endpoint in a running n8n.
import assert from 'node:assert/strict';
import { before, describe } from 'node:test';

import { DEMO_CLIENTS, TOKEN_PATH } from '../../../sandbox/server.mjs';
import { sandboxCredential, suiteOptions, useSandboxAndN8n } from '../harness.mjs';

// test/e2e/actions/n8n1.e2e.test.mjs imports this file to run it on n8n 1.x (harness importSuite).
const { version: N8N_VERSION, title, it } = suiteOptions('credential Test button in a running n8n');

const CREDENTIALS = {
	full: { id: 'e2eCredTestFull', name: 'Full client (e2e)' },
	messengerOnly: { id: 'e2eCredTestMsgr', name: 'Messenger-only client (e2e)' },
	wrongSecret: { id: 'e2eCredTestBad1', name: 'Wrong secret (e2e)' },
};

describe(title, { timeout: 10 * 60_000 }, () => {
	const e2e = useSandboxAndN8n({
		version: N8N_VERSION,
		credentials: (sandbox) => [
			sandboxCredential(CREDENTIALS.full, sandbox, DEMO_CLIENTS.full),
			sandboxCredential(CREDENTIALS.messengerOnly, sandbox, DEMO_CLIENTS.messengerOnly),
			sandboxCredential(CREDENTIALS.wrongSecret, sandbox, DEMO_CLIENTS.full, {
				clientSecret: 'not-the-secret',
			}),
		],
	});

	const dataFor = (client, secret = client.clientSecret) => ({
		baseUrl: e2e.sandbox.url,
		clientId: client.clientId,
		clientSecret: secret,
	});

	/** What the editor sends when Test is pressed: the credential with the data in the form. */
	async function testCredential(credential, data) {
		// rest() fails the test, with the body, on any answer but 200.
		return e2e.n8n.rest('POST', '/rest/credentials/test', {
			credentials: {
				id: e2e.n8n.credentialId(credential.id),
				name: credential.name,
				type: 'voiceMessagingApi',
				data,
			},
		});
	}

	before(() => assert.match(e2e.n8n.cookie, /n8n-auth=/));

	it('succeeds for the full client and asks the token endpoint once', async () => {
		e2e.sandbox.clearLog();
		const result = await testCredential(CREDENTIALS.full, dataFor(DEMO_CLIENTS.full));
		assert.equal(result.status, 'OK', JSON.stringify(result));
		const tokens = e2e.sandbox.tokenRequests();
		assert.ok(tokens.length >= 1, 'the test reached the token endpoint');
		assert.ok(
			tokens.every(
				(entry) => entry.clientId === DEMO_CLIENTS.full.clientId && entry.status === 200,
			),
			JSON.stringify(tokens),
		);
	});

	it('succeeds for a messenger-only client (no voicebot scope)', async () => {
		e2e.sandbox.clearLog();
		const result = await testCredential(
			CREDENTIALS.messengerOnly,
			dataFor(DEMO_CLIENTS.messengerOnly),
		);
		assert.equal(result.status, 'OK', JSON.stringify(result));
		assert.ok(
			e2e.sandbox
				.tokenRequests()
				.some(
					(entry) => entry.clientId === DEMO_CLIENTS.messengerOnly.clientId && entry.status === 200,
				),
		);
	});

	it('fails with a clear message for a wrong secret', async () => {
		e2e.sandbox.clearLog();
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
		const tokens = e2e.sandbox.tokenRequests();
		assert.ok(tokens.length >= 1);
		assert.ok(
			tokens.every((entry) => entry.status === 401),
			JSON.stringify(tokens),
		);
		assert.equal(
			e2e.sandbox.log.filter((entry) => entry.path !== TOKEN_PATH).length,
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
