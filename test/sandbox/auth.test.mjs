// The sandbox's token endpoint and its token and role checks, over real HTTP on 127.0.0.1.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { DEMO_CLIENTS } from '../../sandbox/server.mjs';
import { sleep } from '../../tools/processes.mjs';
import {
	clientOf,
	jwtPayload,
	requestToken,
	sandboxFor,
	token as tokenFor,
} from '../support/sandboxApi.mjs';

describe('token endpoint', () => {
	test('issues a signed JWT whose exp matches the configured lifetime', async (t) => {
		const sandbox = await sandboxFor(t, { tokenLifetimeSeconds: 1234 });
		const response = await requestToken(sandbox);
		assert.equal(response.status, 200);
		assert.match(String(response.headers.get('content-type')), /^application\/json; charset=utf-8/);
		const body = await response.json();
		assert.equal(body.token_type, 'Bearer');
		assert.equal(body.expires_in, 1234);
		assert.equal(body.scope, 'voicebot messenger');
		const parts = body.access_token.split('.');
		assert.equal(parts.length, 3);
		assert.deepEqual(JSON.parse(Buffer.from(parts[0], 'base64url').toString()), {
			alg: 'HS256',
			typ: 'JWT',
		});
		const payload = jwtPayload(body.access_token);
		assert.equal(payload.sub, DEMO_CLIENTS.full.clientId);
		assert.equal(payload.scope, 'voicebot messenger');
		assert.equal(payload.exp - payload.iat, 1234);
		assert.ok(Math.abs(payload.iat - Date.now() / 1000) < 5);
		const second = jwtPayload(await tokenFor(sandbox));
		assert.notEqual(second.jti, payload.jti);
		assert.equal(sandbox.tokensIssued, 2);
	});

	test('accepts form-encoded credentials and grants only the client scopes', async (t) => {
		const sandbox = await sandboxFor(t);
		const response = await fetch(`${sandbox.url}/api/v1/auth/token`, {
			method: 'POST',
			body: new URLSearchParams({
				grant_type: 'client_credentials',
				client_id: DEMO_CLIENTS.messengerOnly.clientId,
				client_secret: DEMO_CLIENTS.messengerOnly.clientSecret,
			}),
		});
		assert.equal(response.status, 200);
		const body = await response.json();
		assert.equal(body.scope, 'messenger');
		assert.equal(jwtPayload(body.access_token).scope, 'messenger');
	});

	test('rejects a wrong secret, missing credentials and malformed JSON', async (t) => {
		const sandbox = await sandboxFor(t);
		const wrong = await requestToken(sandbox, {
			clientId: DEMO_CLIENTS.full.clientId,
			clientSecret: 'nope',
		});
		assert.equal(wrong.status, 401);
		assert.deepEqual(await wrong.json(), {
			statusCode: 401,
			message: 'Invalid client credentials',
			error: 'Unauthorized',
		});
		const missing = await fetch(`${sandbox.url}/api/v1/auth/token`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: '{}',
		});
		assert.equal(missing.status, 401);
		const malformed = await fetch(`${sandbox.url}/api/v1/auth/token`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: '{"client_id":',
		});
		assert.equal(malformed.status, 400);
		assert.equal((await malformed.json()).statusCode, 400);
		assert.equal(sandbox.tokensIssued, 0);
		assert.deepEqual(
			sandbox.tokenRequests().map((e) => [e.status, e.clientId]),
			[
				[401, DEMO_CLIENTS.full.clientId],
				[401, undefined],
				[400, undefined],
			],
		);
	});

	test('rate-limits the token endpoint with 429 and Retry-After', async (t) => {
		const sandbox = await sandboxFor(t, { tokenRateLimitPerMinute: 3 });
		const token = await tokenFor(sandbox);
		for (let i = 0; i < 2; i++) assert.equal((await requestToken(sandbox)).status, 200);
		const limited = await requestToken(sandbox);
		assert.equal(limited.status, 429);
		const retryAfter = Number(limited.headers.get('retry-after'));
		assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
		const body = await limited.json();
		assert.equal(body.statusCode, 429);
		assert.equal(body.message, 'Too Many Requests');
		assert.equal(sandbox.tokensIssued, 3);
		// The API itself is limited separately.
		assert.equal((await clientOf(sandbox, token).get('/api/v1/voice/agents')).status, 200);
		sandbox.setOptions({ tokenRateLimitPerMinute: 0 });
		assert.equal((await requestToken(sandbox)).status, 200);
	});
});

describe('authentication and authorisation', () => {
	test('rejects missing, forged and expired tokens with 401', async (t) => {
		const sandbox = await sandboxFor(t);
		const expected = {
			statusCode: 401,
			message: 'Invalid or expired token',
			error: 'Unauthorized',
		};
		const none = await clientOf(sandbox, undefined).get('/api/v1/voice/agents');
		assert.equal(none.status, 401);
		assert.deepEqual(none.body, expected);
		const token = await tokenFor(sandbox);
		const [head, , signature] = token.split('.');
		const forgedPayload = Buffer.from(
			JSON.stringify({ ...jwtPayload(token), exp: 9999999999 }),
		).toString('base64url');
		const forged = await clientOf(sandbox, `${head}.${forgedPayload}.${signature}`).get(
			'/api/v1/voice/agents',
		);
		assert.equal(forged.status, 401);
		const api = clientOf(sandbox, token);
		assert.equal((await api.get('/api/v1/voice/agents')).status, 200);
		sandbox.expireTokens();
		const expired = await api.get('/api/v1/voice/agents');
		assert.equal(expired.status, 401);
		assert.deepEqual(expired.body, expected);
		assert.equal(
			(await clientOf(sandbox, await tokenFor(sandbox)).get('/api/v1/voice/agents')).status,
			200,
		);
	});

	test('a token stops working once its lifetime has passed', async (t) => {
		const sandbox = await sandboxFor(t, { tokenLifetimeSeconds: 1 });
		const token = await tokenFor(sandbox);
		const api = clientOf(sandbox, token);
		const { exp } = jwtPayload(token);
		// Right after issue it may already sit in its last second; only check after exp.
		await sleep(Math.max(0, exp * 1000 - Date.now()) + 20);
		const response = await api.get('/api/v1/messenger/messages/whatsapp-numbers');
		assert.equal(response.status, 401);
		assert.equal(sandbox.log.at(-1)?.clientId, DEMO_CLIENTS.full.clientId);
	});

	test('enforces the voicebot and messenger roles with 403', async (t) => {
		const sandbox = await sandboxFor(t);
		const messengerOnly = clientOf(sandbox, await tokenFor(sandbox, DEMO_CLIENTS.messengerOnly));
		const voice = await messengerOnly.get('/api/v1/voice/agents');
		assert.equal(voice.status, 403);
		assert.deepEqual(voice.body, {
			statusCode: 403,
			message: 'Missing role: voicebot',
			error: 'Forbidden',
		});
		assert.equal(
			(await messengerOnly.post(`/api/v1/voice/campaigns/${sandbox.state.campaigns[0].id}/cancel`))
				.status,
			403,
		);
		assert.equal(
			(await messengerOnly.get('/api/v1/messenger/messages/whatsapp-numbers')).status,
			200,
		);
		const voiceOnly = clientOf(sandbox, await tokenFor(sandbox, DEMO_CLIENTS.voiceOnly));
		const messenger = await voiceOnly.get('/api/v1/messenger/messages/whatsapp-numbers');
		assert.equal(messenger.status, 403);
		assert.match(messenger.body.message, /messenger/);
		assert.equal((await voiceOnly.get('/api/v1/voice/billing/balance')).status, 200);
	});
});
