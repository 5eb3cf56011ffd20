// The sandbox's rate limit on the API: 429 with Retry-After, and refused requests in the window.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { sleep } from '../../tools/processes.mjs';
import { requestToken, sandboxWithClient } from '../support/sandboxApi.mjs';

describe('rate limit', () => {
	test('answers 429 with Retry-After once the per-minute budget is spent', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t, { rateLimitPerMinute: 5 });
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
		const { sandbox, api } = await sandboxWithClient(t, {
			rateLimitPerMinute: 1,
			rateWindowMs: 400,
		});
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
