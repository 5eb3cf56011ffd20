// shared/transport.ts, the one request function: paths that keep an ID one segment, the retry
// policy, plain messages for every failure, a 404 asked for as "gone", and answers that are not
// clean JSON.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { toListPage } from '../../../nodes/shared/pagination.ts';
import { pacingSettings, resetPacing, waitForRequestSlot } from '../../../nodes/shared/pacing.ts';
import { PollClock, withPollClock } from '../../../nodes/shared/pollClock.ts';
import {
	apiRequest,
	attemptLimits,
	checkedAnswer,
	path,
	retryDelayMs,
	retrySettings,
	shouldRetry,
} from '../../../nodes/shared/transport.ts';
import { httpError, networkError } from '../../../tools/context.mjs';
import { NodeApiError } from '../../../tools/nodeShared.mjs';
import { API_URL, scriptedContext } from '../../support/unit.mjs';

const saved = { ...retrySettings };
before(() => Object.assign(retrySettings, { baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 5 }));
after(() => Object.assign(retrySettings, saved));

// Retries, not pacing, are under test here: a 429 would slow the pacer down for the next test.
// The base URL ends in a slash, as a user may type it.
const scripted = (respond) =>
	scriptedContext(respond, { baseUrl: `${API_URL}/`, requestsPerMinute: 0 });

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

	// A live trigger's clock carries its stop: deactivation ends a read's every wait at once.
	const stoppedWhile = async (credentials, respond, ms) => {
		const stop = new AbortController();
		const { context, calls } = scriptedContext(respond, { baseUrl: API_URL, ...credentials });
		const clock = new PollClock(20_000, Date.now, stop.signal);
		const read = withPollClock(context, clock, async () => {
			await apiRequest.call(context, 'GET', '/api/v1/voice/billing/balance');
		}).then(
			() => assert.fail('the read went on'),
			(error) => error,
		);
		await new Promise((resolve) => setTimeout(resolve, ms));
		const sent = calls.length;
		const started = Date.now();
		stop.abort();
		assert.equal((await read).name, 'AbortError');
		return { took: Date.now() - started, sent, after: calls.length };
	};

	it('a stopped read leaves a retry wait (503, Retry-After: 10) at once and sends nothing more', async () => {
		Object.assign(retrySettings, { maxRetryAfterMs: 60_000 });
		try {
			const got = await stoppedWhile(
				{ requestsPerMinute: 0 },
				() => {
					throw httpError(503, 'Unavailable', { 'retry-after': '10' });
				},
				50,
			);
			assert.ok(got.took < 100, `the wait went on ${got.took} ms`);
			assert.deepEqual([got.sent, got.after], [1, 1]);
		} finally {
			Object.assign(retrySettings, { maxRetryAfterMs: 5 });
		}
	});

	it("a stopped read leaves its turn in the credential's used-up pacing at once", async () => {
		try {
			// 1 a window of 10 s, taken by another execution: the read's turn would come in 10 s.
			pacingSettings.windowMs = 10_000;
			await waitForRequestSlot(`${API_URL}|`, 1);
			const got = await stoppedWhile({ requestsPerMinute: 1 }, () => ({}), 50);
			assert.ok(got.took < 100, `the turn went on ${got.took} ms`);
			assert.deepEqual([got.sent, got.after], [0, 0]);
		} finally {
			resetPacing();
			pacingSettings.windowMs = 60_000;
		}
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

describe('transport: a 404 asked for as "gone"', () => {
	it('answers undefined with missingAsUndefined and fails without it', async () => {
		const { context, calls } = scripted(() => {
			throw httpError(404, { message: 'Campaign not found' });
		});
		assert.equal(
			await apiRequest.call(context, 'GET', '/api/v1/voice/campaigns/x', {
				missingAsUndefined: true,
			}),
			undefined,
		);
		await assert.rejects(apiRequest.call(context, 'GET', '/api/v1/voice/campaigns/x'), /not found/);
		assert.equal(calls.length, 2, 'a 404 is not retried');
	});
});

describe('answers that are not clean JSON', () => {
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

describe('attemptLimits: how long one attempt may wait', () => {
	it('outside a poll: the request timeout, no abort signal (n8n brings its own for executions)', () => {
		assert.deepEqual(attemptLimits(undefined), { timeout: retrySettings.requestTimeoutMs });
	});
	it("in a poll: what is left of the poll's time, also as a hard limit", () => {
		let now = 1_000_000;
		const clock = new PollClock(10_000, () => now);
		const first = attemptLimits(clock);
		assert.equal(first.timeout, 9_000, 'a tenth of a short budget is kept free');
		assert.ok(first.abortSignal instanceof AbortSignal);
		now += 8_500;
		assert.equal(attemptLimits(clock).timeout, 500);
		now += 5_000;
		assert.equal(attemptLimits(clock).timeout, 1, 'never 0, which axios reads as no timeout');
	});
});
