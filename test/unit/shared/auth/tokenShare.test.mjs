// One token exchange per client and token lifetime in a process, however many executions call
// preAuthentication at once (a queue-mode worker runs ten executions at a time).
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';

import { resetSharedTokens } from '../../../../tools/nodeShared.mjs';

const require = (await import('node:module')).createRequire(import.meta.url);
const {
	sharedAccessToken,
	EXPIRY_MARGIN_MS,
} = require('../../../../nodes/shared/auth/tokenShare.ts');
const { VoiceMessagingApi } = require('../../../../credentials/VoiceMessagingApi.credentials.ts');

const CREDENTIALS = Object.freeze({
	baseUrl: 'https://api.example.com',
	clientId: 'client-a',
	clientSecret: 'secret-a-123',
	accessToken: '',
});

/**
 * A fake token exchange: each call issues `token-N`, valid for `lifetimeSeconds`, after `delayMs`;
 * `fail` makes the next calls reject.
 */
function fakeExchange({ lifetimeSeconds = 3600, delayMs = 5 } = {}) {
	const fake = {
		calls: [],
		fail: undefined,
		exchange: async (_request, credentials) => {
			fake.calls.push({ ...credentials });
			await new Promise((resolve) => setTimeout(resolve, delayMs));
			if (fake.fail) throw fake.fail;
			return { accessToken: `token-${fake.calls.length}`, expiresInSeconds: lifetimeSeconds };
		},
	};
	return fake;
}

const noRequest = async () => {
	throw new Error('the fake exchange sends nothing');
};

describe('sharedAccessToken', () => {
	beforeEach(() => resetSharedTokens());

	it('twenty executions that find no token at once share one exchange', async () => {
		const fake = fakeExchange();
		const tokens = await Promise.all(
			Array.from({ length: 20 }, () =>
				sharedAccessToken(noRequest, { ...CREDENTIALS }, fake.exchange),
			),
		);
		assert.equal(fake.calls.length, 1);
		assert.deepEqual(new Set(tokens), new Set(['token-1']));
	});

	for (const lifetimeSeconds of [3_600_000, 40 * 24 * 3600, 1e300, undefined]) {
		it(`a lifetime of ${lifetimeSeconds} s (milliseconds taken as seconds, beyond any timer, none) reuses one token`, async () => {
			const fake = fakeExchange({ lifetimeSeconds });
			for (let run = 0; run < 5; run++) {
				assert.equal(
					await sharedAccessToken(noRequest, { ...CREDENTIALS }, fake.exchange),
					'token-1',
				);
			}
			// A 401 on it (the API ended it earlier than announced): one exchange, then shared.
			const held = { ...CREDENTIALS, accessToken: 'token-1' };
			assert.equal(await sharedAccessToken(noRequest, held, fake.exchange), 'token-2');
			assert.equal(await sharedAccessToken(noRequest, held, fake.exchange), 'token-2');
			assert.equal(fake.calls.length, 2);
		});
	}

	it('an execution that read no token from the store gets the one this process holds', async () => {
		const fake = fakeExchange();
		assert.equal(await sharedAccessToken(noRequest, { ...CREDENTIALS }, fake.exchange), 'token-1');
		assert.equal(await sharedAccessToken(noRequest, { ...CREDENTIALS }, fake.exchange), 'token-1');
		assert.equal(fake.calls.length, 1);
	});

	it("another worker's token that met a 401 is exchanged once; ours may be just as dead", async () => {
		// This process got token-1; another worker wrote its own token to the store later. The API
		// then revoked both: a 401 with the other worker's token must not be answered with token-1.
		const fake = fakeExchange();
		await sharedAccessToken(noRequest, { ...CREDENTIALS }, fake.exchange);
		const theirs = { ...CREDENTIALS, accessToken: 'token-of-another-worker' };
		const renewed = await Promise.all(
			Array.from({ length: 5 }, () => sharedAccessToken(noRequest, { ...theirs }, fake.exchange)),
		);
		assert.deepEqual(new Set(renewed), new Set(['token-2']));
		// Executions that read either old token before the renewal get token-2, no exchange.
		assert.equal(await sharedAccessToken(noRequest, { ...theirs }, fake.exchange), 'token-2');
		assert.equal(
			await sharedAccessToken(noRequest, { ...CREDENTIALS, accessToken: 'token-1' }, fake.exchange),
			'token-2',
		);
		assert.equal(fake.calls.length, 2);
	});

	it('a rejected token (the caller holds the one this process holds) is exchanged once for all callers', async () => {
		const fake = fakeExchange();
		await sharedAccessToken(noRequest, { ...CREDENTIALS }, fake.exchange);
		// Ten executions met a 401 with token-1 at about the same time.
		const rejected = { ...CREDENTIALS, accessToken: 'token-1' };
		const renewed = await Promise.all(
			Array.from({ length: 10 }, () =>
				sharedAccessToken(noRequest, { ...rejected }, fake.exchange),
			),
		);
		assert.deepEqual(new Set(renewed), new Set(['token-2']));
		// One more 401 with token-1 arrives after the renewal finished: it gets token-2, no exchange.
		assert.equal(await sharedAccessToken(noRequest, { ...rejected }, fake.exchange), 'token-2');
		assert.equal(fake.calls.length, 2);
		// token-2 rejected in turn: a third exchange.
		assert.equal(
			await sharedAccessToken(noRequest, { ...CREDENTIALS, accessToken: 'token-2' }, fake.exchange),
			'token-3',
		);
	});

	it('a token about to expire is not handed out again', async () => {
		const fake = fakeExchange({ lifetimeSeconds: EXPIRY_MARGIN_MS / 1000 });
		assert.equal(await sharedAccessToken(noRequest, { ...CREDENTIALS }, fake.exchange), 'token-1');
		assert.equal(await sharedAccessToken(noRequest, { ...CREDENTIALS }, fake.exchange), 'token-2');
		assert.equal(fake.calls.length, 2);
	});

	it('clients are told apart by base URL, client id and secret', async () => {
		const fake = fakeExchange();
		await sharedAccessToken(noRequest, { ...CREDENTIALS }, fake.exchange);
		await sharedAccessToken(
			noRequest,
			{ ...CREDENTIALS, baseUrl: 'https://api.example.com/api/v1/' },
			fake.exchange,
		);
		assert.equal(fake.calls.length, 1, 'the same address written differently is the same client');
		await sharedAccessToken(
			noRequest,
			{ ...CREDENTIALS, baseUrl: 'https://other.example.com' },
			fake.exchange,
		);
		await sharedAccessToken(noRequest, { ...CREDENTIALS, clientId: 'client-b' }, fake.exchange);
		// A new secret must be checked by the API, not answered from memory.
		await sharedAccessToken(
			noRequest,
			{ ...CREDENTIALS, clientSecret: 'secret-a-456' },
			fake.exchange,
		);
		assert.equal(fake.calls.length, 4);
	});

	it('a failed exchange fails every waiting caller once and is not remembered', async () => {
		const fake = fakeExchange();
		fake.fail = new Error(
			'The token endpoint allows 10 requests a minute and that limit is reached.',
		);
		const results = await Promise.allSettled(
			Array.from({ length: 5 }, () =>
				sharedAccessToken(noRequest, { ...CREDENTIALS }, fake.exchange),
			),
		);
		assert.equal(fake.calls.length, 1);
		assert.ok(
			results.every((result) => result.status === 'rejected' && result.reason === fake.fail),
		);
		fake.fail = undefined;
		assert.equal(await sharedAccessToken(noRequest, { ...CREDENTIALS }, fake.exchange), 'token-2');
	});

	it("the credential's preAuthentication goes through it", async () => {
		const credential = new VoiceMessagingApi();
		let posts = 0;
		const httpRequest = async () => {
			posts++;
			await new Promise((resolve) => setTimeout(resolve, 5));
			return {
				statusCode: 200,
				body: { access_token: `opaque-${posts}`, expires_in: 60 },
				headers: {},
			};
		};
		const outputs = await Promise.all(
			Array.from({ length: 8 }, () =>
				credential.preAuthentication.call({ helpers: { httpRequest } }, { ...CREDENTIALS }),
			),
		);
		assert.equal(posts, 1);
		assert.deepEqual(
			outputs,
			Array.from({ length: 8 }, () => ({ accessToken: 'opaque-1' })),
		);
	});
});
