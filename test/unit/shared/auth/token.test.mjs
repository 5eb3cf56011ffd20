// shared/auth/token.ts: the client-credentials exchange the credential's preAuthentication makes,
// the token's lifetime, and every failure in words n8n shows as written, without the secret.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { VoiceMessagingApi } from '../../../../credentials/VoiceMessagingApi.credentials.ts';
import {
	exchangeClientCredentials,
	tokenLifetimeSeconds,
} from '../../../../nodes/shared/auth/token.ts';
import { NodeApiError } from '../../../../tools/nodeShared.mjs';

const SECRET = 'super-secret-value-123';

function jwt(payload) {
	const part = (object) => Buffer.from(JSON.stringify(object)).toString('base64url');
	return `${part({ alg: 'HS256', typ: 'JWT' })}.${part(payload)}.signature`;
}

function answer(statusCode, body, headers = {}) {
	const calls = [];
	const request = async (options) => {
		calls.push(options);
		return { statusCode, body, headers };
	};
	return { request, calls };
}

describe('exchangeClientCredentials', () => {
	const credentials = {
		baseUrl: 'https://api.example.com/',
		clientId: ' my-client ',
		clientSecret: SECRET,
	};

	it('posts client_id and client_secret as JSON to /api/v1/auth/token', async () => {
		const token = jwt({ sub: 'my-client', exp: Math.floor(Date.now() / 1000) + 600 });
		const { request, calls } = answer(200, {
			access_token: token,
			expires_in: 3600,
			token_type: 'Bearer',
			scope: 'voicebot messenger',
		});
		const result = await exchangeClientCredentials(request, credentials);
		assert.equal(calls.length, 1);
		assert.equal(calls[0].method, 'POST');
		assert.equal(calls[0].url, 'https://api.example.com/api/v1/auth/token');
		assert.deepEqual(calls[0].body, { client_id: 'my-client', client_secret: SECRET });
		assert.equal(calls[0].json, true);
		assert.equal(result.accessToken, token);
		assert.equal(result.scope, 'voicebot messenger');
		// exp (10 minutes) wins over expires_in (an hour)
		assert.ok(
			result.expiresInSeconds <= 600 && result.expiresInSeconds >= 598,
			String(result.expiresInSeconds),
		);
	});

	it('the credential stores the token in its expirable field', async () => {
		const credential = new VoiceMessagingApi();
		const expirable = credential.properties.find((p) => p.typeOptions?.expirable);
		assert.equal(expirable?.type, 'hidden');
		const { request } = answer(200, { access_token: 'opaque-token', expires_in: 60 });
		const output = await credential.preAuthentication.call(
			{ helpers: { httpRequest: request } },
			credentials,
		);
		assert.deepEqual(output, { [expirable.name]: 'opaque-token' });
		const stored = { ...credentials, [expirable.name]: output[expirable.name] };
		const sent = await credential.authenticate(stored, {
			url: '/api/v1/voice/agents',
			baseURL: credentials.baseUrl,
		});
		assert.equal(sent.headers.Authorization, 'Bearer opaque-token');
	});

	for (const status of [400, 401, 403]) {
		it(`a ${status} says the client id or secret is wrong, without the secret`, async () => {
			const { request } = answer(status, {
				statusCode: status,
				message: 'Invalid client credentials',
			});
			await assert.rejects(exchangeClientCredentials(request, credentials), (error) => {
				assert.match(error.message, /Client ID or Client Secret/);
				// The server's words in the description: n8n rewrites messages with system codes.
				assert.equal(error.description, 'The server said: Invalid client credentials');
				assert.ok(!error.message.includes(SECRET));
				return true;
			});
		});
	}

	it('a 429 explains the token endpoint limit and the wait', async () => {
		const { request } = answer(429, { message: 'Too Many Requests' }, { 'retry-after': '42' });
		await assert.rejects(
			exchangeClientCredentials(request, credentials),
			/10 requests a minute.*42 s/,
		);
	});

	it('an unreachable URL names the address and the network error only', async () => {
		const request = async (options) => {
			const error = new Error(`connect ECONNREFUSED; body was ${JSON.stringify(options.body)}`);
			error.code = 'ECONNREFUSED';
			error.config = { data: JSON.stringify(options.body) };
			throw error;
		};
		await assert.rejects(exchangeClientCredentials(request, credentials), (error) => {
			assert.match(
				error.message,
				/Could not reach the API at https:\/\/api\.example\.com to get an access token \(the connection was refused\)/,
			);
			assert.ok(
				!/ECONNREFUSED/.test(error.message),
				'n8n would replace a message that holds the bare code',
			);
			assert.equal(error.httpStatus, undefined);
			assert.ok(!error.message.includes(SECRET));
			assert.equal(error.cause, undefined);
			return true;
		});
	});

	it('an answer without access_token is an error, not an empty token', async () => {
		const { request } = answer(200, '<html>login page</html>');
		await assert.rejects(
			exchangeClientCredentials(request, credentials),
			/without an access_token/,
		);
	});

	it('refuses a base URL that is not http(s), and empty fields, before any request', async () => {
		const { request, calls } = answer(200, { access_token: 'x' });
		await assert.rejects(
			exchangeClientCredentials(request, { ...credentials, baseUrl: 'api.example.com' }),
			/Base URL/,
		);
		await assert.rejects(
			exchangeClientCredentials(request, { ...credentials, clientId: '  ' }),
			/Client ID is empty/,
		);
		await assert.rejects(
			exchangeClientCredentials(request, { ...credentials, clientSecret: '' }),
			/Client Secret is empty/,
		);
		assert.equal(calls.length, 0);
	});
});

describe('tokenLifetimeSeconds', () => {
	it('reads exp from a JWT and falls back to expires_in for opaque tokens', () => {
		const now = Date.UTC(2026, 0, 1);
		const token = jwt({ exp: now / 1000 + 120 });
		assert.equal(tokenLifetimeSeconds(token, 3600, now), 120);
		assert.equal(tokenLifetimeSeconds('opaque', 3600, now), 3600);
		assert.equal(tokenLifetimeSeconds('a.!!!.c', '900', now), 900);
		assert.equal(tokenLifetimeSeconds('opaque', undefined, now), undefined);
	});
});

describe('what n8n makes of a failed token exchange', () => {
	it('keeps our message when it wraps the error in a NodeApiError (as preAuthentication failures are)', async () => {
		const node = {
			name: 'Temp-Node',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		};
		const cases = [
			answer(401, { message: 'Invalid client credentials' }).request,
			answer(429, { message: 'Too Many Requests' }, { 'retry-after': '5' }).request,
			async () => {
				throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
					code: 'ECONNREFUSED',
				});
			},
		];
		for (const request of cases) {
			const ours = await exchangeClientCredentials(request, {
				baseUrl: 'http://127.0.0.1:1',
				clientId: 'c',
				clientSecret: 's',
			}).catch((e) => e);
			const wrapped = new NodeApiError(node, ours);
			assert.equal(wrapped.message, ours.message);
		}
	});
});
