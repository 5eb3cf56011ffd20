// Tests of the sandbox API server itself, over real HTTP on 127.0.0.1.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { describe, test } from 'node:test';
import { DEMO_CLIENTS, ENDPOINTS, startSandbox } from '../../sandbox/server.mjs';

/**
 * @typedef {import('../../sandbox/server.mjs').Sandbox} Sandbox
 * @typedef {import('../../sandbox/server.mjs').SandboxOptions} SandboxOptions
 */

/**
 * @param {import('node:test').TestContext} t
 * @param {SandboxOptions} [options]
 */
async function start(t, options) {
	const sandbox = await startSandbox(options);
	t.after(() => sandbox.close());
	return sandbox;
}

/**
 * @param {Sandbox} sandbox @param {{ clientId: string, clientSecret: string }} client
 */
function requestToken(sandbox, client = DEMO_CLIENTS.full) {
	return fetch(`${sandbox.url}/api/v1/auth/token`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ client_id: client.clientId, client_secret: client.clientSecret }),
	});
}

/** @param {Sandbox} sandbox @param {{ clientId: string, clientSecret: string }} [client] */
async function tokenFor(sandbox, client) {
	const response = await requestToken(sandbox, client);
	assert.equal(response.status, 200);
	return /** @type {{ access_token: string, expires_in: number, scope: string }} */ (
		await response.json()
	).access_token;
}

/** @param {string} jwt */
function jwtPayload(jwt) {
	return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
}

/**
 * A tiny JSON client bound to one sandbox and token.
 * @param {Sandbox} sandbox @param {string | undefined} token
 */
function clientOf(sandbox, token) {
	/**
	 * @param {string} method @param {string} path @param {unknown} [body]
	 * @returns {Promise<{ status: number, headers: Headers, body: any }>}
	 */
	async function call(method, path, body) {
		/** @type {Record<string, string>} */
		const headers = {};
		if (token) headers.authorization = `Bearer ${token}`;
		if (body !== undefined) headers['content-type'] = 'application/json';
		const response = await fetch(`${sandbox.url}${path}`, {
			method,
			headers,
			body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
		});
		const text = await response.text();
		return {
			status: response.status,
			headers: response.headers,
			body: text ? JSON.parse(text) : undefined,
		};
	}
	return {
		/** @param {string} path */
		get: (path) => call('GET', path),
		/** @param {string} path @param {unknown} [body] */
		post: (path, body) => call('POST', path, body),
		/** @param {string} path @param {unknown} [body] */
		patch: (path, body) => call('PATCH', path, body),
		/** @param {string} path @param {unknown} [body] */
		put: (path, body) => call('PUT', path, body),
		/** @param {string} path */
		delete: (path) => call('DELETE', path),
	};
}

/** @param {import('node:test').TestContext} t @param {SandboxOptions} [options] */
async function startWithClient(t, options) {
	const sandbox = await start(t, options);
	return { sandbox, api: clientOf(sandbox, await tokenFor(sandbox)) };
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

describe('token endpoint', () => {
	test('issues a signed JWT whose exp matches the configured lifetime', async (t) => {
		const sandbox = await start(t, { tokenLifetimeSeconds: 1234 });
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
		const sandbox = await start(t);
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
		const sandbox = await start(t);
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
		const sandbox = await start(t, { tokenRateLimitPerMinute: 3 });
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
		const sandbox = await start(t);
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
		const sandbox = await start(t, { tokenLifetimeSeconds: 1 });
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
		const sandbox = await start(t);
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

describe('rate limit', () => {
	test('answers 429 with Retry-After once the per-minute budget is spent', async (t) => {
		const { sandbox, api } = await startWithClient(t, { rateLimitPerMinute: 5 });
		for (let i = 0; i < 5; i++) {
			const response = await api.get('/api/v1/voice/billing/balance');
			assert.equal(response.status, 200);
			assert.equal(response.headers.get('x-ratelimit-remaining'), String(4 - i));
		}
		const limited = await api.get('/api/v1/voice/billing/balance');
		assert.equal(limited.status, 429);
		assert.equal(limited.body.statusCode, 429);
		assert.equal(limited.body.message, 'Too Many Requests');
		const retryAfter = Number(limited.headers.get('retry-after'));
		assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60);
		// The token endpoint has its own budget.
		assert.equal((await requestToken(sandbox)).status, 200);
		sandbox.setOptions({ rateLimitPerMinute: 0 });
		assert.equal((await api.get('/api/v1/voice/billing/balance')).status, 200);
		sandbox.setOptions({ rateLimitPerMinute: 5 });
		sandbox.resetRateLimits();
		assert.equal((await api.get('/api/v1/voice/billing/balance')).status, 200);
		// A shorter window (for suites that must meet the limit quickly): Retry-After follows it.
		sandbox.setOptions({ rateLimitPerMinute: 1, rateWindowMs: 2_000 });
		sandbox.resetRateLimits();
		assert.equal((await api.get('/api/v1/voice/billing/balance')).status, 200);
		const short = await api.get('/api/v1/voice/billing/balance');
		assert.equal(short.status, 429);
		assert.ok(Number(short.headers.get('retry-after')) <= 2, short.headers.get('retry-after'));
	});

	test('countRefusedRequests: a refused request takes a place in the window too', async (t) => {
		const { sandbox, api } = await startWithClient(t, { rateLimitPerMinute: 1, rateWindowMs: 400 });
		const balance = async () => (await api.get('/api/v1/voice/billing/balance')).status;
		for (const counted of [false, true]) {
			sandbox.setOptions({ countRefusedRequests: counted });
			sandbox.resetRateLimits();
			assert.equal(await balance(), 200);
			await sleep(200);
			assert.equal(await balance(), 429);
			// The accepted request has left the window; the refused one (200 ms later) has not.
			await sleep(250);
			assert.equal(await balance(), counted ? 429 : 200, `counted: ${counted}`);
		}
	});
});

describe('voice: agents and campaigns', () => {
	test('pages agents by page, limit and sort', async (t) => {
		const { sandbox, api } = await startWithClient(t);
		const first = await api.get('/api/v1/voice/agents');
		assert.equal(first.status, 200);
		assert.deepEqual(Object.keys(first.body).sort(), ['items', 'page', 'total', 'totalPages']);
		assert.equal(first.body.total, 25);
		assert.equal(first.body.page, 1);
		assert.equal(first.body.totalPages, 3);
		assert.equal(first.body.items.length, 10);
		const newest = sandbox.state.agents.at(-1);
		assert.deepEqual(first.body.items[0], newest);
		const ids = new Set();
		for (let page = 1; page <= 3; page++) {
			const response = await api.get(`/api/v1/voice/agents?page=${page}&limit=10&sort=desc`);
			for (const agent of response.body.items) ids.add(agent.id);
			if (page === 3) assert.equal(response.body.items.length, 5);
		}
		assert.equal(ids.size, 25);
		const asc = await api.get('/api/v1/voice/agents?sort=asc&limit=25');
		const times = asc.body.items.map((/** @type {{ createdAt: string }} */ a) => a.createdAt);
		assert.deepEqual(times, [...times].sort());
		assert.equal(asc.body.items[0].id, sandbox.state.agents[0].id);
		const beyond = await api.get('/api/v1/voice/agents?page=9');
		assert.deepEqual(beyond.body, { items: [], total: 25, page: 9, totalPages: 3 });
		for (const agent of asc.body.items) {
			assert.ok(['active', 'inactive'].includes(agent.status));
			assert.ok(['inbound', 'outbound'].includes(agent.call_type));
			assert.match(agent.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
		}
	});

	test('rejects bad paging parameters with 400 message arrays', async (t) => {
		const { api } = await startWithClient(t);
		const tooMany = await api.get('/api/v1/voice/agents?limit=101');
		assert.equal(tooMany.status, 400);
		assert.deepEqual(tooMany.body, {
			statusCode: 400,
			message: ['limit must not be greater than 100'],
			error: 'Bad Request',
		});
		assert.equal((await api.get('/api/v1/voice/agents?limit=100')).status, 200);
		const several = await api.get('/api/v1/voice/campaigns?page=0&limit=abc&sort=up&status=done');
		assert.equal(several.status, 400);
		assert.equal(several.body.message.length, 4);
		assert.ok(several.body.message.every((/** @type {unknown} */ m) => typeof m === 'string'));
		assert.ok(
			several.body.message.some((/** @type {string} */ m) => m.startsWith('status must be one of')),
		);
	});

	test('filters campaigns by status; an empty result has totalPages 0', async (t) => {
		const { sandbox, api } = await startWithClient(t, { activeCampaignCount: 0 });
		const pending = await api.get('/api/v1/voice/campaigns?status=pending');
		assert.deepEqual(pending.body, { items: [], total: 0, page: 1, totalPages: 0 });
		const completed = await api.get('/api/v1/voice/campaigns?status=completed&limit=100');
		const expected = sandbox.state.campaigns.filter((c) => c.status === 'completed').length;
		assert.ok(expected > 0);
		assert.equal(completed.body.total, expected);
		assert.ok(
			completed.body.items.every((/** @type {{ status: string }} */ c) => c.status === 'completed'),
		);
		const all = await api.get('/api/v1/voice/campaigns?limit=100');
		assert.equal(all.body.total, 30);
		const statuses = new Set(all.body.items.map((/** @type {{ status: string }} */ c) => c.status));
		assert.deepEqual([...statuses].sort(), ['cancelled', 'completed', 'failed']);
	});

	test('answers 404 for unknown ids on every resource and for unknown routes', async (t) => {
		const { api } = await startWithClient(t);
		/** @type {[string, string, string][]} */
		const cases = [
			['GET', '/api/v1/voice/agents/agt_missing', 'Agent not found'],
			['GET', '/api/v1/voice/campaigns/cmp_missing', 'Campaign not found'],
			['POST', '/api/v1/voice/campaigns/cmp_missing/cancel', 'Campaign not found'],
			['GET', '/api/v1/voice/campaigns/cmp_missing/data', 'Campaign not found'],
			['GET', '/api/v1/messenger/contacts/ctc_missing', 'Contact not found'],
			['PATCH', '/api/v1/messenger/chats/cht_missing/reopen', 'Chat not found'],
			['PATCH', '/api/v1/messenger/chats/cht_missing/mark-important', 'Chat not found'],
			['GET', '/api/v1/messenger/messages/chat/cht_missing', 'Chat not found'],
			['GET', '/api/v1/messenger/messages/msg_missing', 'Message not found'],
			['DELETE', '/api/v1/messenger/messages/msg_missing/react', 'Message not found'],
			['GET', '/api/v1/messenger/broadcast/messages/bcm_missing', 'Broadcast message not found'],
			['GET', '/api/v1/voice/nothing-here', 'Cannot GET /api/v1/voice/nothing-here'],
			['DELETE', '/api/v1/voice/agents', 'Cannot DELETE /api/v1/voice/agents'],
		];
		for (const [method, path, message] of cases) {
			const response =
				method === 'GET'
					? await api.get(path)
					: method === 'DELETE'
						? await api.delete(path)
						: method === 'POST'
							? await api.post(path)
							: await api.patch(path);
			assert.equal(response.status, 404, `${method} ${path}`);
			assert.deepEqual(response.body, { statusCode: 404, message, error: 'Not Found' });
		}
	});

	test('cancels a pending campaign, then refuses with 409', async (t) => {
		const { sandbox, api } = await startWithClient(t);
		const campaign = sandbox.state.campaigns.find((c) => c.status === 'pending');
		assert.ok(campaign);
		const before = campaign.updatedAt;
		const cancelled = await api.post(`/api/v1/voice/campaigns/${campaign.id}/cancel`);
		assert.equal(cancelled.status, 200);
		assert.equal(cancelled.body.id, campaign.id);
		assert.equal(cancelled.body.status, 'cancelled');
		assert.ok(cancelled.body.updatedAt > before);
		const again = await api.post(`/api/v1/voice/campaigns/${campaign.id}/cancel`);
		assert.equal(again.status, 409);
		assert.deepEqual(again.body, {
			statusCode: 409,
			message: 'Campaign is already cancelled',
			error: 'Conflict',
		});
		const completed = sandbox.state.campaigns.find((c) => c.status === 'completed');
		const refused = await api.post(`/api/v1/voice/campaigns/${completed?.id}/cancel`);
		assert.equal(refused.status, 409);
		assert.equal(refused.body.message, 'Campaign is already completed');
		assert.equal(
			(await api.get(`/api/v1/voice/campaigns/${campaign.id}`)).body.status,
			'cancelled',
		);
	});

	test('advance() moves campaigns pending → in_progress → completed|failed', async (t) => {
		const { sandbox, api } = await startWithClient(t);
		const added = sandbox.addCampaign({ name: 'Launch [fail]' });
		const plain = sandbox.addCampaign();
		assert.equal(added.status, 'pending');
		assert.ok(plain.createdAt > added.createdAt);
		const list = await api.get('/api/v1/voice/campaigns?limit=2');
		assert.deepEqual(
			list.body.items.map((/** @type {{ id: string }} */ c) => c.id),
			[plain.id, added.id],
		);
		sandbox.advance();
		assert.equal((await api.get(`/api/v1/voice/campaigns/${plain.id}`)).body.status, 'in_progress');
		sandbox.advance();
		const finished = (await api.get(`/api/v1/voice/campaigns/${plain.id}`)).body;
		assert.ok(['completed', 'failed'].includes(finished.status));
		assert.equal((await api.get(`/api/v1/voice/campaigns/${added.id}`)).body.status, 'failed');
		const active = await api.get('/api/v1/voice/campaigns?status=in_progress');
		assert.equal(active.body.total, 0);
		const statuses = sandbox.state.campaigns.map((c) => c.status);
		assert.ok(!statuses.includes('pending') && !statuses.includes('in_progress'));
		// Most runs complete, so a fresh seed's active campaigns do not all fail.
		assert.ok(
			statuses.filter((s) => s === 'completed').length >
				statuses.filter((s) => s === 'failed').length,
		);
	});

	test('progresses on its own with progressIntervalMs', async (t) => {
		const sandbox = await start(t, { progressIntervalMs: 10 });
		const campaign = sandbox.addCampaign();
		const deadline = Date.now() + 2000;
		while (['pending', 'in_progress'].includes(campaign.status) && Date.now() < deadline)
			await sleep(10);
		assert.ok(['completed', 'failed'].includes(campaign.status));
		sandbox.setOptions({ progressIntervalMs: 0 });
		const idle = sandbox.addCampaign();
		await sleep(40);
		assert.equal(idle.status, 'pending');
	});

	test('serves campaign data consistent with the campaign status', async (t) => {
		const { sandbox, api } = await startWithClient(t);
		const completed = sandbox.state.campaigns.find((c) => c.status === 'completed');
		const data = await api.get(`/api/v1/voice/campaigns/${completed?.id}/data?limit=100`);
		assert.equal(data.status, 200);
		assert.ok(data.body.total >= 5 && data.body.total <= 40);
		assert.equal(data.body.items.length, data.body.total);
		for (const record of data.body.items) {
			assert.deepEqual(Object.keys(record), [
				'phoneNumber',
				'status',
				'attempts',
				'durationSeconds',
				'result',
				'calledAt',
			]);
			assert.ok(['answered', 'no_answer', 'busy', 'failed'].includes(record.status));
			assert.match(record.phoneNumber, /^\+\d{8,15}$/);
		}
		const page = await api.get(`/api/v1/voice/campaigns/${completed?.id}/data?limit=3&page=2`);
		assert.deepEqual(page.body.items, data.body.items.slice(3, 6));
		assert.equal(page.body.totalPages, Math.ceil(data.body.total / 3));
		const pending = sandbox.state.campaigns.find((c) => c.status === 'pending');
		const pendingData = await api.get(`/api/v1/voice/campaigns/${pending?.id}/data?limit=100`);
		assert.ok(
			pendingData.body.items.every((/** @type {{ status: string }} */ r) => r.status === 'pending'),
		);
		sandbox.advance(2);
		const after = sandbox.state.campaignData.get(/** @type {string} */ (pending?.id)) ?? [];
		assert.ok(after.every((r) => r.status !== 'pending' && r.status !== 'calling'));
	});

	test('reports balance and deterministic trends', async (t) => {
		const { sandbox, api } = await startWithClient(t, { rateLimitPerMinute: 0 });
		const balance = await api.get('/api/v1/voice/billing/balance');
		assert.deepEqual(Object.keys(balance.body).sort(), [
			'credit',
			'currency',
			'minutes',
			'ratePerMinute',
		]);
		sandbox.state.balance.credit = 9;
		sandbox.state.balance.ratePerMinute = 0.09;
		assert.deepEqual((await api.get('/api/v1/voice/billing/balance')).body, {
			credit: 9,
			currency: balance.body.currency,
			minutes: 100,
			ratePerMinute: 0.09,
		});
		const recent = await api.get('/api/v1/voice/reports/trends');
		assert.equal(recent.status, 200);
		assert.equal(recent.body.items.length, 30);
		const month = await api.get(
			'/api/v1/voice/reports/trends?from=2025-03-01&to=2025-03-31&granularity=month',
		);
		assert.equal(month.body.items.length, 1);
		assert.equal(month.body.items[0].period, '2025-03-01');
		const days = await api.get(
			'/api/v1/voice/reports/trends?from=2025-03-01&to=2025-03-31&granularity=day',
		);
		assert.equal(days.body.items.length, 31);
		const sum = days.body.items.reduce(
			(/** @type {number} */ total, /** @type {{ calls: number }} */ d) => total + d.calls,
			0,
		);
		assert.equal(month.body.items[0].calls, sum);
		for (const item of days.body.items) {
			assert.ok(item.answered <= item.calls);
			assert.equal(item.cost, Math.round(item.minutes * 0.09 * 100) / 100);
		}
		const weeks = await api.get(
			'/api/v1/voice/reports/trends?from=2025-03-05T10:00:00Z&to=2025-03-20&granularity=week',
		);
		assert.deepEqual(
			weeks.body.items.map((/** @type {{ period: string }} */ w) => w.period),
			['2025-03-03', '2025-03-10', '2025-03-17'],
		);
		const again = await api.get(
			'/api/v1/voice/reports/trends?from=2025-03-01&to=2025-03-31&granularity=day',
		);
		assert.deepEqual(again.body, days.body);
		const bad = await api.get('/api/v1/voice/reports/trends?granularity=year&from=yesterday');
		assert.equal(bad.status, 400);
		assert.deepEqual(bad.body.message, [
			'granularity must be one of the following values: day, week, month',
			'from must be a valid ISO 8601 date string',
		]);
		assert.equal(
			(await api.get('/api/v1/voice/reports/trends?from=2025-04-01&to=2025-03-01')).status,
			400,
		);
	});

	test('same seed gives the same data; large counts start quickly and page from the newest', async (t) => {
		const a = await start(t, { seed: 7 });
		const b = await start(t, { seed: 7 });
		const c = await start(t, { seed: 8 });
		assert.deepEqual(a.state.agents, b.state.agents);
		assert.deepEqual(a.state.campaigns, b.state.campaigns);
		assert.deepEqual(
			a.state.campaignData.get(a.state.campaigns[3].id),
			b.state.campaignData.get(b.state.campaigns[3].id),
		);
		assert.notDeepEqual(a.state.agents, c.state.agents);
		const started = performance.now();
		const big = await start(t, { agentCount: 10000, campaignCount: 10000, rateLimitPerMinute: 0 });
		assert.ok(performance.now() - started < 3000);
		const api = clientOf(big, await tokenFor(big));
		const page = await api.get('/api/v1/voice/campaigns?limit=100&page=100');
		assert.equal(page.body.total, 10000);
		assert.equal(page.body.totalPages, 100);
		assert.equal(page.body.items.at(-1).id, big.state.campaigns[0].id);
		const agent = big.state.agents[4321];
		assert.deepEqual((await api.get(`/api/v1/voice/agents/${agent.id}`)).body, agent);
		assert.equal(
			big.state.campaigns.filter((x) => x.status === 'pending' || x.status === 'in_progress')
				.length,
			5,
		);
	});
});

describe('routing', () => {
	test('decodes path segments but never lets an encoded slash reach another route', async (t) => {
		const { sandbox, api } = await startWithClient(t);
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
		const { sandbox, api } = await startWithClient(t);
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
		const sandbox = await start(t);
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

describe('messenger', () => {
	test('uploads a media file by multipart and records its sha256', async (t) => {
		const { sandbox } = await startWithClient(t);
		const token = await tokenFor(sandbox);
		const chat = sandbox.state.chats[0];
		const bytes = randomBytes(300_000);
		const form = new FormData();
		form.append('chatId', chat.id);
		form.append('caption', 'Quarterly report');
		form.append('file', new Blob([bytes], { type: 'image/png' }), 'chart.png');
		const messagesBefore = sandbox.state.messages.length;
		const response = await fetch(`${sandbox.url}/api/v1/messenger/messages/send/media-file`, {
			method: 'POST',
			headers: { authorization: `Bearer ${token}` },
			body: form,
		});
		assert.equal(response.status, 200);
		const message = await response.json();
		assert.equal(message.chatId, chat.id);
		assert.equal(message.type, 'image');
		assert.equal(message.direction, 'outbound');
		assert.equal(sandbox.state.messages.length, messagesBefore + 1);
		assert.equal(sandbox.state.uploads.length, 1);
		const upload = sandbox.state.uploads[0];
		assert.equal(upload.sha256, createHash('sha256').update(bytes).digest('hex'));
		assert.equal(upload.size, bytes.length);
		assert.equal(upload.fileName, 'chart.png');
		assert.equal(upload.mimeType, 'image/png');
		assert.equal(upload.chatId, chat.id);
		assert.equal(upload.caption, 'Quarterly report');
		assert.equal(upload.messageId, message.id);

		const noChat = new FormData();
		noChat.append('file', new Blob(['x'], { type: 'text/plain' }), 'a.txt');
		const missing = await fetch(`${sandbox.url}/api/v1/messenger/messages/send/media-file`, {
			method: 'POST',
			headers: { authorization: `Bearer ${token}` },
			body: noChat,
		});
		assert.equal(missing.status, 400);
		assert.ok((await missing.json()).message.includes('chatId should not be empty'));
		const unknownChat = new FormData();
		unknownChat.append('chatId', 'cht_missing');
		unknownChat.append('file', new Blob(['x']), 'a.bin');
		const notFound = await fetch(`${sandbox.url}/api/v1/messenger/messages/send/media-file`, {
			method: 'POST',
			headers: { authorization: `Bearer ${token}` },
			body: unknownChat,
		});
		assert.equal(notFound.status, 404);
		const json = await clientOf(sandbox, token).post('/api/v1/messenger/messages/send/media-file', {
			chatId: chat.id,
		});
		assert.equal(json.status, 400);
		assert.equal(sandbox.state.uploads.length, 1);
	});

	test('refuses files over 25 MB with 413', async (t) => {
		const { sandbox } = await startWithClient(t);
		const token = await tokenFor(sandbox);
		const form = new FormData();
		form.append('chatId', sandbox.state.chats[0].id);
		form.append(
			'file',
			new Blob([new Uint8Array(25 * 1024 * 1024 + 1)], { type: 'video/mp4' }),
			'big.mp4',
		);
		const response = await fetch(`${sandbox.url}/api/v1/messenger/messages/send/media-file`, {
			method: 'POST',
			headers: { authorization: `Bearer ${token}` },
			body: form,
		});
		assert.equal(response.status, 413);
		assert.equal((await response.json()).statusCode, 413);
		assert.equal(sandbox.state.uploads.length, 0);
	});

	test('maxUploadBytes: a file of exactly that size is taken, one byte more is refused', async (t) => {
		const { sandbox } = await startWithClient(t, { maxUploadBytes: 1000 });
		const token = await tokenFor(sandbox);
		const statuses = [];
		for (const size of [1000, 1001]) {
			const form = new FormData();
			form.append('chatId', sandbox.state.chats[0].id);
			form.append('file', new Blob([new Uint8Array(size)], { type: 'video/mp4' }), 'a.mp4');
			const response = await fetch(`${sandbox.url}/api/v1/messenger/messages/send/media-file`, {
				method: 'POST',
				headers: { authorization: `Bearer ${token}` },
				body: form,
			});
			statuses.push([response.status, (await response.json()).message]);
		}
		assert.equal(statuses[0][0], 200);
		assert.deepEqual(statuses[1], [413, 'file must not be larger than 1000 bytes (0 MB)']);
		assert.deepEqual(
			sandbox.state.uploads.map((upload) => upload.size),
			[1000],
		);
	});

	test('validates send payloads with 400 message arrays', async (t) => {
		const { sandbox, api } = await startWithClient(t);
		const chatId = sandbox.state.chats[0].id;
		const messagesBefore = sandbox.state.messages.length;
		const broadcastsBefore = sandbox.state.broadcastMessages.length;
		const media = await api.post('/api/v1/messenger/messages/send/media', {
			chatId,
			url: 'ftp://x/y.png',
			type: 'gif',
		});
		assert.equal(media.status, 400);
		assert.deepEqual(media.body.message, [
			'url must be a valid http(s) URL',
			'type must be one of the following values: image, video, audio, document',
		]);
		const location = await api.post('/api/v1/messenger/messages/send/location', {
			chatId,
			latitude: 91,
			longitude: -181,
		});
		assert.deepEqual(location.body.message, [
			'latitude must be a number between -90 and 90',
			'longitude must be a number between -180 and 180',
		]);
		const toPhone = await api.post('/api/v1/messenger/messages/send/media-to-phone', {
			phone: '600123456',
			url: 'https://example.com/a.pdf',
			type: 'document',
		});
		assert.deepEqual(toPhone.body.message, [
			'phone must be a valid E.164 phone number (+ and 8 to 15 digits)',
		]);
		const noChat = await api.post('/api/v1/messenger/messages/send/media', {
			url: 'https://example.com/a.png',
			type: 'image',
		});
		assert.deepEqual(noChat.body.message, [
			'chatId must be a string',
			'chatId should not be empty',
		]);
		const broadcast = await api.post('/api/v1/messenger/broadcast/messages', {
			channel: 'sms',
			recipients: [{ email: 'a@example.com' }, { phone: '+34600111222', variables: 'x' }],
		});
		assert.deepEqual(broadcast.body.message, [
			'recipients.0.phone must be a valid E.164 phone number (+ and 8 to 15 digits)',
			'recipients.1.variables must be an object',
			'templateId or text must be provided',
		]);
		const channel = await api.post('/api/v1/messenger/broadcast/messages', {
			channel: 'fax',
			recipients: [],
			text: 'x',
		});
		assert.equal(channel.body.message.length, 2);
		const contact = await api.post('/api/v1/messenger/contacts', {
			name: '',
			phone: '+34',
			email: 'nope',
			attributes: [],
		});
		assert.deepEqual(contact.body.message, [
			'name should not be empty',
			'phone must be a valid E.164 phone number (+ and 8 to 15 digits)',
			'email must be an email',
			'attributes must be an object',
		]);
		assert.equal((await api.get('/api/v1/messenger/chats/check-existing')).status, 400);
		const important = await api.patch(`/api/v1/messenger/chats/${chatId}/mark-important`, {
			important: 'yes',
		});
		assert.deepEqual(important.body.message, ['important must be a boolean value']);
		const attributes = await api.put(
			`/api/v1/messenger/contacts/${sandbox.state.contacts[0].id}/attributes`,
			{ attributes: 'x' },
		);
		assert.deepEqual(attributes.body.message, ['attributes must be an object']);
		assert.equal(sandbox.state.messages.length, messagesBefore);
		assert.equal(sandbox.state.contacts.length, 12);
		assert.equal(sandbox.state.broadcastMessages.length, broadcastsBefore);
	});

	test('sends media and locations, each recorded as a Message', async (t) => {
		const { sandbox, api } = await startWithClient(t);
		const chat = sandbox.state.chats[0];
		const before = sandbox.state.messages.length;
		const media = await api.post('/api/v1/messenger/messages/send/media', {
			chatId: chat.id,
			url: 'https://example.com/a.pdf',
			type: 'document',
			fileName: 'a.pdf',
		});
		assert.equal(media.status, 200);
		assert.deepEqual(
			{ ...media.body, id: undefined, createdAt: undefined },
			{
				id: undefined,
				chatId: chat.id,
				direction: 'outbound',
				type: 'document',
				content: { url: 'https://example.com/a.pdf', fileName: 'a.pdf' },
				status: 'sent',
				reaction: null,
				createdAt: undefined,
			},
		);
		assert.match(media.body.id, /^msg_/);
		const location = await api.post('/api/v1/messenger/messages/send/location', {
			chatId: chat.id,
			latitude: 40.4,
			longitude: -3.7,
			name: 'HQ',
		});
		assert.equal(location.body.type, 'location');
		assert.deepEqual(location.body.content, { latitude: 40.4, longitude: -3.7, name: 'HQ' });
		const phone = '+34699000111';
		const toPhone = await api.post('/api/v1/messenger/messages/send/media-to-phone', {
			phone,
			url: 'https://example.com/v.mp4',
			type: 'video',
			whatsappNumberId: sandbox.state.whatsappNumbers[0].id,
		});
		assert.equal(toPhone.status, 200);
		const newChat = sandbox.state.chats.find((c) => c.id === toPhone.body.chatId);
		assert.equal(newChat?.phone, phone);
		assert.equal(newChat?.status, 'open');
		const unknownNumber = await api.post('/api/v1/messenger/messages/send/media-to-phone', {
			phone,
			url: 'https://example.com/v.mp4',
			type: 'video',
			whatsappNumberId: 'wan_missing',
		});
		assert.equal(unknownNumber.status, 404);
		assert.equal(sandbox.state.messages.length, before + 3);
		const detail = await api.get(`/api/v1/messenger/messages/${media.body.id}`);
		assert.deepEqual(detail.body, media.body);
		const history = await api.get(`/api/v1/messenger/messages/chat/${chat.id}?limit=1`);
		assert.equal(history.body.items[0].id, location.body.id);
	});

	test('pages chat history, newest first', async (t) => {
		const { sandbox, api } = await startWithClient(t);
		const chat = sandbox.state.chats[0];
		const first = await api.get(`/api/v1/messenger/messages/chat/${chat.id}`);
		assert.equal(first.body.total, 25);
		assert.equal(first.body.totalPages, 3);
		assert.equal(first.body.items.length, 10);
		const all = [];
		for (let page = 1; page <= first.body.totalPages; page++) {
			all.push(
				...(await api.get(`/api/v1/messenger/messages/chat/${chat.id}?page=${page}`)).body.items,
			);
		}
		assert.equal(all.length, 25);
		const times = all.map((m) => m.createdAt);
		assert.deepEqual(times, [...times].sort().reverse());
		assert.ok(all.every((m) => m.chatId === chat.id));
		const asc = await api.get(`/api/v1/messenger/messages/chat/${chat.id}?sort=asc&limit=1`);
		assert.equal(asc.body.items[0].createdAt, times.at(-1));
	});

	test('manages contacts: create, duplicate, get, search and attributes', async (t) => {
		const { sandbox, api } = await startWithClient(t);
		const created = await api.post('/api/v1/messenger/contacts', {
			name: 'Zoe Quintana',
			phone: '+34611222333',
			attributes: { plan: 'pro' },
		});
		assert.equal(created.status, 201);
		assert.match(created.body.id, /^ctc_/);
		assert.equal(created.body.email, null);
		assert.deepEqual(created.body.attributes, { plan: 'pro' });
		const duplicate = await api.post('/api/v1/messenger/contacts', {
			name: 'Other',
			phone: '+34611222333',
		});
		assert.equal(duplicate.status, 409);
		assert.deepEqual(
			(await api.get(`/api/v1/messenger/contacts/${created.body.id}`)).body,
			created.body,
		);
		const search = await api.get('/api/v1/messenger/contacts/search/QUINTANA');
		assert.ok(Array.isArray(search.body));
		assert.deepEqual(
			search.body.map((/** @type {{ id: string }} */ c) => c.id),
			[created.body.id],
		);
		const byPhone = await api.get(
			`/api/v1/messenger/contacts/search/${encodeURIComponent('+34611222')}`,
		);
		assert.deepEqual(
			byPhone.body.map((/** @type {{ id: string }} */ c) => c.id),
			[created.body.id],
		);
		const seeded = sandbox.state.contacts[0];
		const byEmail = await api.get(
			`/api/v1/messenger/contacts/search/${seeded.email?.toUpperCase()}`,
		);
		assert.ok(byEmail.body.some((/** @type {{ id: string }} */ c) => c.id === seeded.id));
		assert.deepEqual((await api.get('/api/v1/messenger/contacts/search/zzzz-nobody')).body, []);
		const patched = await api.patch(
			`/api/v1/messenger/contacts/${created.body.id}/attributes/city`,
			{ value: 'Bilbao' },
		);
		assert.equal(patched.status, 200);
		assert.deepEqual(patched.body.attributes, { plan: 'pro', city: 'Bilbao' });
		const proto = await api.patch(
			`/api/v1/messenger/contacts/${created.body.id}/attributes/__proto__`,
			{ value: 1 },
		);
		assert.equal(proto.body.attributes.__proto__, 1);
		assert.equal(
			(await api.patch(`/api/v1/messenger/contacts/${created.body.id}/attributes/city`, {})).status,
			400,
		);
		const replaced = await api.put(`/api/v1/messenger/contacts/${created.body.id}/attributes`, {
			attributes: { tier: 'gold' },
		});
		assert.deepEqual(replaced.body.attributes, { tier: 'gold' });
		assert.deepEqual(sandbox.state.contacts.at(-1)?.attributes, { tier: 'gold' });
	});

	test('checks, marks and reopens chats', async (t) => {
		const { sandbox, api } = await startWithClient(t);
		const open = sandbox.state.chats.find((c) => c.status === 'open' && !c.important);
		const closed = sandbox.state.chats.find((c) => c.status === 'closed');
		assert.ok(open && closed);
		const exists = await api.get(
			`/api/v1/messenger/chats/check-existing?phone=${encodeURIComponent(open.phone)}`,
		);
		assert.deepEqual(exists.body, { exists: true, chatId: open.id });
		const none = await api.get(
			`/api/v1/messenger/chats/check-existing?phone=${encodeURIComponent('+15550001111')}`,
		);
		assert.deepEqual(none.body, { exists: false, chatId: null });
		const marked = await api.patch(`/api/v1/messenger/chats/${open.id}/mark-important`);
		assert.equal(marked.status, 200);
		assert.equal(marked.body.important, true);
		const unmarked = await api.patch(`/api/v1/messenger/chats/${open.id}/mark-important`, {
			important: false,
		});
		assert.equal(unmarked.body.important, false);
		assert.deepEqual(Object.keys(unmarked.body), [
			'id',
			'contactId',
			'phone',
			'status',
			'important',
			'updatedAt',
		]);
		const reopened = await api.patch(`/api/v1/messenger/chats/${closed.id}/reopen`);
		assert.equal(reopened.status, 200);
		assert.equal(reopened.body.status, 'open');
		const conflict = await api.patch(`/api/v1/messenger/chats/${closed.id}/reopen`);
		assert.deepEqual(conflict.body, {
			statusCode: 409,
			message: 'Chat is already open',
			error: 'Conflict',
		});
	});

	test('lists WhatsApp numbers and removes reactions', async (t) => {
		const { sandbox, api } = await startWithClient(t);
		const numbers = await api.get('/api/v1/messenger/messages/whatsapp-numbers');
		assert.ok(Array.isArray(numbers.body));
		assert.ok(numbers.body.length >= 2);
		for (const number of numbers.body) {
			assert.deepEqual(Object.keys(number), ['id', 'phone', 'name', 'status']);
			assert.match(number.id, /^wan_/);
		}
		const message = sandbox.state.messages.find((m) => m.reaction !== null);
		assert.ok(message);
		const removed = await api.delete(`/api/v1/messenger/messages/${message.id}/react`);
		assert.deepEqual(removed.body, { success: true });
		assert.equal(message.reaction, null);
	});

	test('broadcasts one queued message per recipient and progresses them', async (t) => {
		const { sandbox, api } = await startWithClient(t);
		const sent = await api.post('/api/v1/messenger/broadcast/messages', {
			channel: 'whatsapp',
			templateId: 'order_update',
			recipients: [
				{ phone: '+34600111222', variables: { name: 'Ana' } },
				{ phone: '+34600110000' },
			],
		});
		assert.equal(sent.status, 200);
		assert.equal(sent.body.items.length, 2);
		for (const item of sent.body.items) {
			assert.match(item.id, /^bcm_/);
			assert.equal(item.status, 'queued');
			assert.equal(item.channel, 'whatsapp');
		}
		const [ok, doomed] = sent.body.items;
		assert.equal(ok.recipient, '+34600111222');
		/** @param {string} id */
		const statusOf = async (id) =>
			(await api.get(`/api/v1/messenger/broadcast/messages/${id}`)).body;
		sandbox.advance();
		const failed = await statusOf(doomed.id);
		assert.equal(failed.status, 'failed');
		assert.equal(typeof failed.error, 'string');
		const seen = [(await statusOf(ok.id)).status];
		sandbox.advance();
		seen.push((await statusOf(ok.id)).status);
		sandbox.advance();
		seen.push((await statusOf(ok.id)).status);
		assert.equal(seen[0], 'sent');
		assert.ok(
			JSON.stringify(seen) === JSON.stringify(['sent', 'delivered', 'read']) ||
				JSON.stringify(seen) === JSON.stringify(['sent', 'failed', 'failed']),
			seen.join(' → '),
		);
		const latest = await statusOf(ok.id);
		assert.ok(latest.updatedAt >= latest.createdAt);
		const email = await api.post('/api/v1/messenger/broadcast/messages', {
			channel: 'email',
			text: 'Hello',
			recipients: [{ email: 'ana@example.com' }],
		});
		assert.equal(email.body.items[0].recipient, 'ana@example.com');
	});
});
