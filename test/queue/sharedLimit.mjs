// The shared limit: two workers at default settings (Requests per Minute 100 each, the API's
// limit) share the API's limit of 100 per window without seeing each other: 200 sends, at most
// 5 % of the requests answered 429 although refused requests count against the window; no item
// fails.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { CALLERS, inPool } from './cluster.mjs';
import { RATE, RATE_WORKFLOW } from './queueWorkflows.mjs';

/** The goal for the share of requests answered 429 when processes share the limit. */
const MAX_REFUSED_SHARE = 0.05;

/** @param {ReturnType<typeof import('./cluster.mjs').useQueueCluster>} q */
export function sharedLimitTests(q) {
	it(`two workers at default settings share the API's limit: 200 sends, at most ${MAX_REFUSED_SHARE * 100} % answered 429`, async () => {
		const { sandbox } = q;
		// The API allows 100 requests a minute and counts refused ones too; each worker alone
		// would send 100 a minute. The window stays a minute: the workers pace to the real one.
		sandbox.setOptions({ rateLimitPerMinute: 100, countRefusedRequests: true });
		sandbox.resetRateLimits();
		const logBefore = sandbox.log.length;
		const startedBefore = q.startedCounts();
		const chats = sandbox.state.chats.filter((chat) => chat.status === 'open');
		const calls = Array.from({ length: 200 }, (_, i) => ({
			kind: 'message',
			path: 'queue-rate',
			body: { chatId: chats[i % chats.length].id, name: `rate ${i}` },
		}));
		const startedAt = Date.now();
		let slowest = 0;
		const answers = await inPool(calls, CALLERS, async (call) => {
			const sentAt = Date.now();
			const answer = await q.callWebhook(call.path, call.body);
			slowest = Math.max(slowest, Date.now() - sentAt);
			return answer;
		});
		const seconds = (Date.now() - startedAt) / 1000;
		sandbox.setOptions({
			rateLimitPerMinute: 0,
			rateWindowMs: 60_000,
			countRefusedRequests: false,
		});
		await q.assertAllSucceeded(
			calls.map((call, i) => ({ ...call, answer: answers[i] })),
			RATE_WORKFLOW,
		);
		const started = q.startedCounts().map((count, i) => count - startedBefore[i]);
		assert.ok(
			started.every((count) => count > 0),
			`both workers sent: ${started}`,
		);

		// Only this workflow sends messages now. A 429 is answered before the token is read, so
		// its log entry names no client.
		const sends = sandbox.log
			.slice(logBefore)
			.filter((entry) => /send\/location$/.test(entry.path));
		const limited = sends.filter((entry) => entry.status === 429);
		assert.ok(
			sends.every((entry) => entry.status === 429 || entry.clientId === RATE.client.clientId),
			'every accepted send came from the rate-limit workflow',
		);
		assert.equal(sends.filter((entry) => entry.status === 200).length, calls.length);
		assert.equal(
			sends.length,
			calls.length + limited.length,
			'nothing but the 429s was sent again',
		);
		assert.ok(
			limited.length <= MAX_REFUSED_SHARE * sends.length,
			`${limited.length} of ${sends.length} requests answered 429${q.diagnostics()}`,
		);
		console.log(
			`# shared limit: ${calls.length} sends over workers ${started.join(' / ')} in ${seconds.toFixed(1)} s ` +
				`(limit 100 a minute), ${limited.length} of ${sends.length} requests answered 429, ` +
				`slowest answer ${(slowest / 1000).toFixed(1)} s`,
		);
	});
}
