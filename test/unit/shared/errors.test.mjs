// shared/errors.ts: what a failure is made of (status, body, network code), the server's own words
// in any body shape, and the n8n error each failure becomes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
	asNodeError,
	describeFailure,
	failureCause,
	InputError,
	serverMessage,
	TokenExchangeError,
} from '../../../nodes/shared/errors.ts';
import { TEST_NODE, httpError, networkError } from '../../../tools/context.mjs';
import { NodeApiError, NodeOperationError } from '../../../tools/nodeShared.mjs';

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

describe('asNodeError: what n8n shows for an error', () => {
	it("keeps n8n's own errors as they are and adds only a missing item index", () => {
		const apiError = new NodeApiError(
			TEST_NODE,
			{ message: 'x', httpCode: '503' },
			{ httpCode: '503' },
		);
		assert.equal(asNodeError(TEST_NODE, apiError, 2), apiError);
		assert.equal(apiError.context.itemIndex, 2);
		assert.equal(apiError.httpCode, '503');
		const indexed = new NodeOperationError(TEST_NODE, 'y', { itemIndex: 1 });
		assert.equal(asNodeError(TEST_NODE, indexed, 4).context.itemIndex, 1);
	});

	it('turns input errors into a NodeOperationError with the field, description and item', () => {
		const error = asNodeError(
			TEST_NODE,
			new InputError('Chat ID is empty', 'Enter the Chat ID.'),
			3,
		);
		assert.ok(error instanceof NodeOperationError);
		assert.equal(error.message, 'Chat ID is empty');
		assert.equal(error.description, 'Enter the Chat ID.');
		assert.equal(error.context.itemIndex, 3);
	});

	it('recognises a token exchange failure by its class, not by its name', () => {
		// n8n wraps it; the wrapper may carry a network-looking code of its own.
		const real = new TokenExchangeError("The credential's Client ID is empty.", undefined, 'more');
		assert.deepEqual(describeFailure({ message: 'wrapped', code: 'ECONNRESET', cause: real }), {
			otherMessage: "The credential's Client ID is empty.",
			detail: 'more',
			token: { status: undefined, unreachable: false },
		});
		const lookalike = Object.assign(new Error('look-alike'), {
			name: 'TokenExchangeError',
			code: 'ECONNRESET',
		});
		assert.deepEqual(describeFailure(lookalike), { code: 'ECONNRESET' });
	});
});

describe('serverMessage', () => {
	it('finds the message in any body shape', () => {
		assert.equal(
			serverMessage({ statusCode: 404, message: 'Agent not found', error: 'Not Found' }),
			'Agent not found',
		);
		assert.equal(
			serverMessage({ message: ['phone must be E.164', 'type is invalid'] }),
			'phone must be E.164; type is invalid',
		);
		assert.equal(serverMessage('{"message":"from text"}'), 'from text');
		assert.equal(serverMessage('Bad Gateway'), 'Bad Gateway');
		assert.equal(serverMessage(''), '');
		assert.equal(serverMessage(undefined), '');
		assert.equal(serverMessage({ error: { message: 'nested' } }), 'nested');
		assert.equal(serverMessage(Buffer.from('buffered')), 'buffered');
		assert.equal(serverMessage('x'.repeat(400)).length, 301);
	});
});

describe('failureCause: why a request failed, as n8n 2.41 scheduler reads it', () => {
	const NOW = Date.parse('2026-11-27T12:00:00Z');
	const cases = [
		[
			'429 with Retry-After in seconds',
			{ status: 429, headers: { 'retry-after': '30' } },
			{ cause: 'rate-limited', retryAfterMs: 30_000 },
		],
		['429 without Retry-After', { status: 429, headers: {} }, { cause: 'rate-limited' }],
		['503', { status: 503 }, { cause: 'temporarily-unavailable' }],
		['a network error', { code: 'ECONNRESET' }, { cause: 'temporarily-unavailable' }],
		[
			'no answer in time',
			{ timedOutMs: 1000, code: 'ECONNABORTED' },
			{ cause: 'temporarily-unavailable' },
		],
		['broken JSON', { malformed: true, status: 200 }, { cause: 'temporarily-unavailable' }],
		[
			'401 (n8n renewed the token and was refused again)',
			{ status: 401 },
			{ cause: 'credential-invalid' },
		],
		['403: a role missing', { status: 403 }, { cause: 'configuration-invalid' }],
		['404: what the node points at is gone', { status: 404 }, { cause: 'configuration-invalid' }],
		[
			'the token endpoint refused the client',
			{ token: { status: 401, unreachable: false } },
			{ cause: 'credential-invalid' },
		],
		[
			'the token endpoint unreachable',
			{ token: { unreachable: true } },
			{ cause: 'temporarily-unavailable' },
		],
		['the token endpoint limited', { token: { status: 429 } }, { cause: 'rate-limited' }],
		['an empty client ID', { token: { unreachable: false } }, { cause: 'credential-invalid' }],
	];
	for (const [name, failure, expected] of cases) {
		it(name, () => assert.deepEqual(failureCause(failure, NOW), expected));
	}
	it('400 and 409 are left to n8n to judge', () => {
		assert.equal(failureCause({ status: 400 }), undefined);
		assert.equal(failureCause({ status: 409 }), undefined);
	});
	it('a network failure of the token exchange says so', () => {
		const error = new TokenExchangeError(
			'Could not reach',
			undefined,
			'Network error code: ECONNREFUSED',
			true,
		);
		assert.deepEqual(failureCause(describeFailure({ message: 'wrapped', cause: error })), {
			cause: 'temporarily-unavailable',
		});
	});
});
