// How the sandbox routes a request: path decoding, malformed bodies, the endpoint list, the log.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, test } from 'node:test';

import { DEMO_CLIENTS, ENDPOINTS } from '../../sandbox/server.mjs';
import {
	clientOf,
	requestToken,
	sandboxFor,
	sandboxWithClient,
	token as tokenFor,
} from '../support/sandboxApi.mjs';

describe('routing', () => {
	test('decodes path segments but never lets an encoded slash reach another route', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t);
		const campaign = sandbox.state.campaigns[0];
		const data = await api.get(
			`/api/v1/voice/campaigns/${encodeURIComponent(`${campaign.id}/data`)}`,
		);
		assert.equal(data.status, 404);
		assert.equal(data.body.message, 'Campaign not found');
		const escape = await api.get('/api/v1/voice/agents/..%2Fcampaigns');
		assert.deepEqual(escape.body, {
			statusCode: 404,
			message: 'Agent not found',
			error: 'Not Found',
		});
		const cancel = await api.post(`/api/v1/voice/campaigns/${campaign.id}%2Fcancel`);
		assert.equal(cancel.status, 404);
		assert.equal(campaign.status, sandbox.state.campaigns[0].status);
		const agent = sandbox.state.agents[0];
		const encoded = agent.id.replace('agt_', '%61gt%5F');
		const found = await api.get(`/api/v1/voice/agents/${encoded}`);
		assert.equal(found.status, 200);
		assert.equal(found.body.id, agent.id);
		assert.equal(sandbox.log.at(-1)?.path, `/api/v1/voice/agents/${encoded}`);
		assert.equal((await api.get('/api/v1/voice/agents/%E0%A4%A')).status, 400);
		const token = await tokenFor(sandbox);
		// fetch normalises `..`; send the raw path with node:http.
		const raw = await new Promise((resolve, reject) => {
			const req = httpRequest(
				{
					host: '127.0.0.1',
					port: sandbox.port,
					path: '/api/v1/voice/agents/../campaigns',
					headers: { authorization: `Bearer ${token}` },
				},
				(res) => {
					let text = '';
					res.on('data', (chunk) => (text += chunk));
					res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text) }));
				},
			);
			req.on('error', reject);
			req.end();
		});
		assert.equal(/** @type {{ status: number }} */ (raw).status, 404);
		assert.equal(sandbox.log.at(-1)?.path, '/api/v1/voice/agents/../campaigns');
	});

	test('answers 400 for malformed JSON bodies', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t);
		const response = await api.post('/api/v1/messenger/contacts', '{"name": "x",');
		assert.equal(response.status, 400);
		assert.equal(response.body.statusCode, 400);
		assert.equal(response.body.error, 'Bad Request');
		assert.equal(sandbox.state.contacts.length, 12);
	});

	test('lists every endpoint of the API description', () => {
		assert.equal(ENDPOINTS.length, 27);
		assert.equal(new Set(ENDPOINTS.map((e) => `${e.method} ${e.path}`)).size, 27);
	});

	test('logs every request with method, path, query, status and client', async (t) => {
		const sandbox = await sandboxFor(t);
		await requestToken(sandbox, DEMO_CLIENTS.voiceOnly);
		const api = clientOf(sandbox, await tokenFor(sandbox, DEMO_CLIENTS.messengerOnly));
		await api.get('/api/v1/voice/campaigns?status=pending&page=2');
		await clientOf(sandbox, undefined).get('/api/v1/messenger/contacts/ctc_x');
		assert.equal(sandbox.log.length, 4);
		const [voiceToken, messengerToken, forbidden, anonymous] = sandbox.log;
		assert.deepEqual(
			{ ...voiceToken, at: undefined },
			{
				method: 'POST',
				path: '/api/v1/auth/token',
				query: {},
				status: 200,
				clientId: DEMO_CLIENTS.voiceOnly.clientId,
				at: undefined,
			},
		);
		assert.equal(messengerToken.clientId, DEMO_CLIENTS.messengerOnly.clientId);
		assert.deepEqual(
			{ ...forbidden, at: undefined },
			{
				method: 'GET',
				path: '/api/v1/voice/campaigns',
				query: { status: 'pending', page: '2' },
				status: 403,
				clientId: DEMO_CLIENTS.messengerOnly.clientId,
				at: undefined,
			},
		);
		assert.equal(anonymous.status, 401);
		assert.equal(anonymous.clientId, undefined);
		assert.ok(Math.abs(Date.parse(anonymous.at) - Date.now()) < 5000);
		assert.equal(sandbox.tokenRequests().length, 2);
		assert.equal(sandbox.tokensIssued, 2);
		sandbox.clearLog();
		assert.equal(sandbox.log.length, 0);
	});
});
