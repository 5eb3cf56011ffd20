import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { NodeApiError } from '../../tools/nodeShared.mjs';

import { describeFailure } from '../../nodes/shared/errors.ts';
import { apiRequestAllItems, pagePlan, toListPage } from '../../nodes/shared/pagination.ts';
import {
	apiRequest,
	path,
	retryDelayMs,
	retrySettings,
	shouldRetry,
} from '../../nodes/shared/transport.ts';
import {
	createExecuteContext,
	httpError,
	networkError,
	scriptedHttp,
} from '../../tools/context.mjs';

const saved = { ...retrySettings };
before(() => Object.assign(retrySettings, { baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 5 }));
after(() => Object.assign(retrySettings, saved));

/** A context whose authenticated requests are answered by `respond(options, callNumber)`, wrapped as n8n does. */
function scripted(respond) {
	const { http, calls } = scriptedHttp(respond, {
		name: 'Test',
		type: 'test',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	});
	const context = createExecuteContext({
		params: {},
		http,
		// Retries, not pacing, are under test here: a 429 would slow the pacer down for the next test.
		credentials: { baseUrl: 'https://api.example.com/', requestsPerMinute: 0 },
	});
	return { context, calls };
}

describe('path', () => {
	it('encodes every id so that it stays one segment', () => {
		assert.equal(path`/voice/agents/${'agt_1'}`, '/api/v1/voice/agents/agt_1');
		assert.equal(path`/voice/agents/${'../auth/token'}`, '/api/v1/voice/agents/..%2Fauth%2Ftoken');
		assert.equal(
			path`/messenger/contacts/${'a b?c#d'}/attributes/${'k/1'}`,
			'/api/v1/messenger/contacts/a%20b%3Fc%23d/attributes/k%2F1',
		);
		// URL parsing must not resolve the encoded id into another endpoint
		const url = new URL(path`/voice/agents/${'../../auth/token'}`, 'https://api.example.com');
		assert.equal(url.pathname, '/api/v1/voice/agents/..%2F..%2Fauth%2Ftoken');
	});

	it('refuses dot segments and empty ids, which URL parsing would resolve', () => {
		assert.throws(() => path`/voice/agents/${'..'}`, /cannot be used as an ID/);
		assert.throws(() => path`/voice/agents/${'.'}`, /cannot be used as an ID/);
		assert.throws(() => path`/voice/agents/${''}`, /cannot be used as an ID/);
	});
});

describe('describeFailure', () => {
	it('reads status, body and headers from an n8n-wrapped HTTP error', () => {
		const error = new NodeApiError(
			{ name: 'n', type: 't', typeVersion: 1, position: [0, 0], parameters: {} },
			httpError(429, { message: 'slow down' }, { 'retry-after': '3' }),
		);
		const failure = describeFailure(error);
		assert.equal(failure.status, 429);
		assert.deepEqual(failure.body, { message: 'slow down' });
		assert.equal(failure.headers['retry-after'], '3');
	});

	it('reads a network error code', () => {
		assert.deepEqual(describeFailure(networkError('ECONNRESET')), { code: 'ECONNRESET' });
	});
});

describe('retry policy', () => {
	it('retries 429 for every method, 5xx and network errors only for GET', () => {
		assert.equal(shouldRetry('POST', { status: 429 }, 1), true);
		assert.equal(shouldRetry('GET', { status: 503 }, 1), true);
		assert.equal(shouldRetry('POST', { status: 503 }, 1), false);
		assert.equal(shouldRetry('PATCH', { code: 'ECONNRESET' }, 1), false);
		assert.equal(shouldRetry('GET', { code: 'ECONNRESET' }, 1), true);
		assert.equal(shouldRetry('GET', { status: 404 }, 1), false);
		assert.equal(shouldRetry('GET', { status: 401 }, 1), false);
		assert.equal(shouldRetry('GET', { status: 503 }, saved.transientAttempts), false);
		assert.equal(shouldRetry('GET', { status: 429 }, saved.rateLimitAttempts), false);
	});

	it('waits Retry-After when given, bounded, else backs off with growing jitter', () => {
		const fixed = () => 0.5;
		Object.assign(retrySettings, {
			baseDelayMs: 1000,
			maxDelayMs: 30_000,
			maxRetryAfterMs: 60_000,
		});
		try {
			assert.equal(
				retryDelayMs({ headers: { 'retry-after': '2' } }, 1, () => 0),
				2000,
			);
			assert.equal(
				retryDelayMs({ headers: { 'Retry-After': '7200' } }, 1, () => 0),
				60_000,
			);
			const httpDate = new Date(Date.now() + 5000).toUTCString();
			const fromDate = retryDelayMs({ headers: { 'retry-after': httpDate } }, 1, () => 0);
			assert.ok(fromDate > 3000 && fromDate <= 5000, String(fromDate));
			assert.equal(retryDelayMs({ headers: {} }, 1, fixed), 750);
			assert.equal(retryDelayMs({ headers: {} }, 3, fixed), 3000);
			assert.equal(retryDelayMs({ headers: {} }, 20, fixed), 22_500);
			const low = retryDelayMs({}, 2, () => 0);
			const high = retryDelayMs({}, 2, () => 0.999);
			assert.ok(low >= 1000 && high < 2000 && high > low);
		} finally {
			Object.assign(retrySettings, { baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 5 });
		}
	});
});

describe('apiRequest', () => {
	it('joins the base URL, sends JSON and returns the body', async () => {
		const { context, calls } = scripted(() => ({ id: 'agt_1' }));
		const result = await apiRequest.call(context, 'GET', '/api/v1/voice/agents/agt_1', {
			qs: { a: 1 },
		});
		assert.deepEqual(result, { id: 'agt_1' });
		assert.equal(calls[0].baseURL, 'https://api.example.com');
		assert.equal(calls[0].url, '/api/v1/voice/agents/agt_1');
		assert.deepEqual(calls[0].qs, { a: 1 });
		assert.equal(calls[0].json, true);
	});

	it('a GET that meets 503 twice is sent again and succeeds', async () => {
		const { context, calls } = scripted((options, n) => {
			if (n < 3) throw httpError(503, 'Service Unavailable');
			return { ok: true };
		});
		assert.deepEqual(await apiRequest.call(context, 'GET', '/api/v1/voice/billing/balance'), {
			ok: true,
		});
		assert.equal(calls.length, 3);
	});

	it('a POST that meets 502 is not sent again: nothing is done twice', async () => {
		const { context, calls } = scripted(() => {
			throw httpError(502, { message: 'upstream died' });
		});
		await assert.rejects(
			apiRequest.call(context, 'POST', '/api/v1/voice/campaigns/c1/cancel'),
			(error) => {
				assert.ok(error instanceof NodeApiError);
				assert.match(error.message, /HTTP 502/);
				assert.match(error.description, /upstream died/);
				return true;
			},
		);
		assert.equal(calls.length, 1);
	});

	it('a POST that meets a network reset is not sent again', async () => {
		const { context, calls } = scripted(() => {
			throw networkError('ECONNRESET');
		});
		await assert.rejects(
			apiRequest.call(context, 'POST', '/api/v1/messenger/broadcast/messages', { body: {} }),
			(error) => {
				assert.equal(
					error.message,
					"Could not reach the API at https://api.example.com: the connection was closed. Check the credential's Base URL and that the server is up.",
				);
				assert.match(error.description, /Network error code: ECONNRESET/);
				return true;
			},
		);
		assert.equal(calls.length, 1);
	});

	it('a POST that meets 429 waits and is sent again (a 429 did nothing)', async () => {
		const { context, calls } = scripted((options, n) => {
			if (n === 1) throw httpError(429, { message: 'Too Many Requests' }, { 'retry-after': '0' });
			return { id: 'msg_1' };
		});
		assert.deepEqual(
			await apiRequest.call(context, 'POST', '/api/v1/messenger/messages/send/media', {
				body: { a: 1 },
			}),
			{ id: 'msg_1' },
		);
		assert.equal(calls.length, 2);
	});

	it('gives up on 429 after the bounded number of attempts with a plain message', async () => {
		const { context, calls } = scripted(() => {
			throw httpError(429, '');
		});
		await assert.rejects(
			apiRequest.call(context, 'GET', '/api/v1/voice/agents'),
			/too many requests.*100 per minute/,
		);
		assert.equal(calls.length, retrySettings.rateLimitAttempts);
	});

	it('every request gets its own headers object (n8n writes the token into it)', async () => {
		const { context, calls } = scripted((options, n) => {
			options.headers.Authorization = `Bearer t${n}`;
			if (n === 1) throw httpError(503, '');
			return {};
		});
		await apiRequest.call(context, 'GET', '/api/v1/voice/agents');
		assert.notEqual(calls[0].headers, calls[1].headers);
	});

	const cases = [
		[
			400,
			{ message: ['chatId must be a string', 'url must be a URL'] },
			{},
			/rejected the request as invalid/,
			/chatId must be a string; url must be a URL/,
		],
		[
			401,
			{ message: 'Invalid or expired token' },
			{},
			/did not accept the access token/,
			/Invalid or expired token/,
		],
		[403, { message: 'Missing role: voicebot' }, {}, /"voicebot" role/, /Missing role/],
		[
			404,
			{ statusCode: 404, message: 'Agent not found', error: 'Not Found' },
			{ resource: 'Agent', id: 'agt_x' },
			/Agent not found: "agt_x"/,
			/Agent not found/,
		],
		[
			409,
			{ message: 'Campaign already completed' },
			{ conflictMessage: 'Already finished.' },
			/Already finished\./,
			/Campaign already completed/,
		],
		[
			500,
			'<html>oops</html>',
			{},
			/failed to process the request \(HTTP 500\)/,
			/<html>oops<\/html>/,
		],
		[418, '', {}, /answered HTTP 418/, /GET \/api\/v1\/voice\/agents answered HTTP 418/],
	];
	for (const [status, body, errorContext, message, description] of cases) {
		it(`a ${status} reads plainly and shows what the server said`, async () => {
			const { context } = scripted(() => {
				throw httpError(status, body);
			});
			Object.assign(retrySettings, { transientAttempts: 1 });
			try {
				await assert.rejects(
					apiRequest.call(context, 'GET', '/api/v1/voice/agents', { errorContext }),
					(error) => {
						assert.ok(error instanceof NodeApiError);
						assert.match(error.message, message);
						assert.match(error.description, description);
						assert.equal(error.httpCode, String(status));
						const serialized =
							JSON.stringify(error) + String(error.stack) + JSON.stringify(error.context);
						assert.ok(
							!serialized.includes('must-never-leak'),
							'the request headers must not travel in the error',
						);
						return true;
					},
				);
			} finally {
				retrySettings.transientAttempts = saved.transientAttempts;
			}
		});
	}

	it('a 403 on a messenger path names the messenger role', async () => {
		const { context } = scripted(() => {
			throw httpError(403, { message: 'Forbidden' });
		});
		await assert.rejects(
			apiRequest.call(context, 'GET', '/api/v1/messenger/contacts/c1'),
			/"messenger" role/,
		);
	});
});

describe('pagination', () => {
	it('plans the fewest pages that fetch exactly the limit', () => {
		assert.deepEqual(pagePlan(10), { pageSize: 10, pages: 1 });
		assert.deepEqual(pagePlan(100), { pageSize: 100, pages: 1 });
		assert.deepEqual(pagePlan(150), { pageSize: 75, pages: 2 });
		assert.deepEqual(pagePlan(250), { pageSize: 84, pages: 3 });
		assert.deepEqual(pagePlan(1), { pageSize: 1, pages: 1 });
	});

	it('accepts a bare array or an envelope', () => {
		assert.deepEqual(toListPage([{ a: 1 }]), { items: [{ a: 1 }] });
		assert.deepEqual(toListPage({ items: [{ a: 1 }], total: 1, page: 1, totalPages: 1 }), {
			items: [{ a: 1 }],
			total: 1,
			totalPages: 1,
		});
		assert.deepEqual(toListPage(''), { items: [] });
	});

	function pagedApi(total) {
		return scripted((options) => {
			const page = Number(options.qs.page);
			const limit = Number(options.qs.limit);
			const all = Array.from({ length: total }, (_, i) => ({ id: `r${i + 1}` }));
			return {
				items: all.slice((page - 1) * limit, page * limit),
				total,
				page,
				totalPages: Math.ceil(total / limit),
			};
		});
	}

	it('Return All follows totalPages to the end with pages of 100', async () => {
		const { context, calls } = pagedApi(250);
		const items = await apiRequestAllItems.call(context, '/api/v1/voice/agents', {
			returnAll: true,
			qs: { sort: 'asc' },
		});
		assert.equal(items.length, 250);
		assert.equal(new Set(items.map((i) => i.id)).size, 250);
		assert.deepEqual(
			calls.map((c) => [c.qs.page, c.qs.limit, c.qs.sort]),
			[
				[1, 100, 'asc'],
				[2, 100, 'asc'],
				[3, 100, 'asc'],
			],
		);
	});

	it('Limit stops early and never fetches more than it needs', async () => {
		const { context, calls } = pagedApi(1000);
		const items = await apiRequestAllItems.call(context, '/api/v1/voice/agents', {
			returnAll: false,
			limit: 150,
		});
		assert.deepEqual(
			items.map((i) => i.id),
			Array.from({ length: 150 }, (_, i) => `r${i + 1}`),
		);
		assert.deepEqual(
			calls.map((c) => [c.qs.page, c.qs.limit]),
			[
				[1, 75],
				[2, 75],
			],
		);
	});

	it('Limit larger than the list stops at the last page', async () => {
		const { context, calls } = pagedApi(30);
		const items = await apiRequestAllItems.call(context, '/api/v1/voice/agents', {
			returnAll: false,
			limit: 500,
		});
		assert.equal(items.length, 30);
		assert.equal(calls.length, 1);
	});

	it('a short bare-array list is taken whole, and cut to the limit', async () => {
		const { context, calls } = scripted(() => [{ id: 1 }, { id: 2 }, { id: 3 }]);
		assert.equal((await apiRequestAllItems.call(context, '/x', { returnAll: true })).length, 3);
		assert.equal(
			(await apiRequestAllItems.call(context, '/x', { returnAll: false, limit: 2 })).length,
			2,
		);
		assert.equal(calls.length, 2, 'fewer records than asked and than 10: the end of the list');
	});
});

describe('answers that are not clean JSON', async () => {
	const { checkedAnswer } = await import('../../nodes/shared/transport.ts');

	it('parses JSON text, wraps plain text, and flags JSON that is cut off', () => {
		assert.deepEqual(checkedAnswer({ a: 1 }), { answer: { a: 1 } });
		assert.deepEqual(checkedAnswer('{"a":1}'), { answer: { a: 1 } });
		assert.deepEqual(checkedAnswer('OK'), { answer: { data: 'OK' } });
		assert.deepEqual(checkedAnswer(''), { answer: {} });
		assert.deepEqual(checkedAnswer('{"id":"msg_1","sta'), { malformed: true });
		assert.deepEqual(toListPage(checkedAnswer('').answer), { items: [] });
	});

	it('a GET with a broken answer is asked again; a POST is not, and says it may have been carried out', async () => {
		const get = scripted((options, n) => (n === 1 ? '{"credit": 1' : { credit: 1 }));
		assert.deepEqual(await apiRequest.call(get.context, 'GET', '/api/v1/voice/billing/balance'), {
			credit: 1,
		});
		assert.equal(get.calls.length, 2);
		const post = scripted(() => '{"id":"msg_1","sta');
		await assert.rejects(
			apiRequest.call(post.context, 'POST', '/api/v1/messenger/messages/send/location', {
				body: {},
			}),
			/broken JSON \(HTTP 200\), so it is not known whether the request was carried out/,
		);
		assert.equal(post.calls.length, 1);
	});
});
