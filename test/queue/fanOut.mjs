// Fan-out: 200 operations (voice and messenger, one execution each) spread over both workers: all
// succeed, each message is sent once, and each worker asks for a token at most once.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { WORKERS } from './cluster.mjs';
import { FANOUT, FANOUT_WORKFLOW } from './queueWorkflows.mjs';

/** @param {ReturnType<typeof import('./cluster.mjs').useQueueCluster>} q */
export function fanOutTests(q) {
	it(`fans 200 operations out over both workers: all succeed, each message once, one token per worker`, async () => {
		const startedBefore = q.startedCounts();
		const results = await q.fanOut('fan-out', 200);
		await q.assertAllSucceeded(results, FANOUT_WORKFLOW);

		const started = q.startedCounts().map((count, i) => count - startedBefore[i]);
		assert.ok(
			started.every((count) => count > 0),
			`both workers ran executions: ${started}${q.diagnostics()}`,
		);
		assert.ok(started.reduce((a, b) => a + b, 0) >= 200, `executions started: ${started}`);

		// The messages went out once each: one send request per message call, no resend.
		const sends = q.sandbox.log.filter(
			(entry) =>
				entry.clientId === FANOUT.client.clientId &&
				entry.method === 'POST' &&
				/send\/location$/.test(entry.path),
		);
		assert.equal(sends.length, 100);
		const tokens = q.tokenRequestsOf(FANOUT);
		assert.ok(
			tokens.length >= 1 && tokens.length <= WORKERS,
			`token requests: ${tokens.length}${q.diagnostics()}`,
		);
		assert.ok(tokens.every((entry) => entry.status === 200));
		console.log(
			`# fan-out: executions per worker ${started.join(' / ')}, token requests ${tokens.length}`,
		);
	});
}
