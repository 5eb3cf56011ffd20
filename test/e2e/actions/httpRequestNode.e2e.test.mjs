// The credential used from n8n's own HTTP Request node (Predefined Credential Type), for
// endpoints the package does not wrap: the token exchange and renewal must work there too.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { DEMO_CLIENTS, TOKEN_PATH } from '../../../sandbox/server.mjs';
import {
	chainWorkflow,
	executionError,
	nodeOutput,
	sandboxCredential,
	useSandboxAndN8n,
} from '../harness.mjs';

const CREDENTIAL = { id: 'e2eHttpCred0001', name: 'Voice sandbox for HTTP Request' };

/** Manual Trigger → HTTP Request (GET `url`) with this package's credential as its authentication. */
const httpRequestWorkflow = (id, url) =>
	chainWorkflow(id, [
		{
			name: 'HTTP Request',
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			parameters: {
				method: 'GET',
				url,
				authentication: 'predefinedCredentialType',
				nodeCredentialType: 'voiceMessagingApi',
				options: {},
			},
			credentials: { voiceMessagingApi: CREDENTIAL },
		},
	]);

describe('the credential in n8n’s HTTP Request node', { timeout: 10 * 60_000 }, () => {
	const e2e = useSandboxAndN8n({
		credentials: (sandbox) => [sandboxCredential(CREDENTIAL, sandbox, DEMO_CLIENTS.full)],
	});

	it('gets a token, sends it, reuses it, and renews it after expiry', async () => {
		await e2e.n8n.importWorkflow(
			httpRequestWorkflow('e2eHttpBalance01', `${e2e.sandbox.url}/api/v1/voice/billing/balance`),
		);
		const first = await e2e.n8n.execute('e2eHttpBalance01');
		assert.equal(executionError(first), undefined, e2e.n8n.log().slice(-3000));
		const [balance] = nodeOutput(first, 'HTTP Request');
		assert.deepEqual(Object.keys(balance).sort(), [
			'credit',
			'currency',
			'minutes',
			'ratePerMinute',
		]);

		await e2e.n8n.execute('e2eHttpBalance01');
		assert.equal(
			e2e.sandbox.tokenRequests().filter((e) => e.status === 200).length,
			1,
			'one token for two executions',
		);

		e2e.sandbox.expireTokens();
		const mark = e2e.sandbox.log.length;
		const renewed = await e2e.n8n.execute('e2eHttpBalance01');
		assert.equal(executionError(renewed), undefined);
		assert.deepEqual(
			e2e.sandbox.log.slice(mark).map((e) => `${e.method} ${e.path} ${e.status}`),
			[
				'GET /api/v1/voice/billing/balance 401',
				`POST ${TOKEN_PATH} 200`,
				'GET /api/v1/voice/billing/balance 200',
			],
		);
	});
});
