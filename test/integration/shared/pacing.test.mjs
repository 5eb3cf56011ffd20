import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { VoiceAi } from '../../../nodes/VoiceAi/VoiceAi.node.ts';
import { VoiceAiTrigger } from '../../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { pacingSettings, resetPacing } from '../../../tools/nodeShared.mjs';
import { sandboxRunner } from '../../../tools/sandboxRun.mjs';
import { sandboxSuite, watcher } from '../../support/integration.mjs';

// The API's minute scaled down to 1.5 s on both sides, so the run takes seconds.
const WINDOW_MS = 1500;
const LIMIT = 20;

describe('pacing keeps a long run under the rate limit on its own', () => {
	before(() => {
		pacingSettings.windowMs = WINDOW_MS;
	});
	after(() => {
		pacingSettings.windowMs = 60_000;
		resetPacing();
	});
	const env = sandboxSuite({ rateLimitPerMinute: LIMIT, rateWindowMs: WINDOW_MS });

	it('70 items at a budget equal to the limit: no 429, every item answered once', async () => {
		const { sandbox } = env;
		const voice = sandboxRunner(VoiceAi, sandbox, DEMO_CLIENTS.full, { requestsPerMinute: LIMIT });
		const items = Array.from({ length: 70 }, () => ({ json: {} }));
		const started = Date.now();
		const output = await voice.run({ resource: 'billing', operation: 'getBalance' }, { items });
		const elapsed = Date.now() - started;
		assert.equal(output.length, 70);
		assert.deepEqual(
			output.map((o) => o.pairedItem.item),
			items.map((_, i) => i),
		);
		const calls = sandbox.log.filter((e) => e.path === '/api/v1/voice/billing/balance');
		assert.deepEqual([...new Set(calls.map((e) => e.status))], [200], 'no request was refused');
		assert.equal(calls.length, 70);
		// 70 requests at 20 per 1.5 s cannot take less than three full windows.
		assert.ok(elapsed >= 3 * WINDOW_MS - 100, `took ${elapsed} ms`);
	});
});

describe("a poll behind a busy workflow on the same credential keeps to the poll's time", () => {
	// n8n's minute and a poll's 30 s scaled down 30 times, as the sandbox's window is.
	const WINDOW = 2000;
	const POLL_BUDGET_MS = 1000;
	before(() => {
		pacingSettings.windowMs = WINDOW;
	});
	after(() => {
		pacingSettings.windowMs = 60_000;
		resetPacing();
	});
	const env = sandboxSuite({ rateLimitPerMinute: LIMIT, rateWindowMs: WINDOW });

	it('the poll ends at once, rate-limited, while the workflow waits for a free place; both go on', async () => {
		const { sandbox } = env;
		const paced = { requestsPerMinute: LIMIT };
		const voice = sandboxRunner(VoiceAi, sandbox, DEMO_CLIENTS.full, paced);
		const w = watcher(
			VoiceAiTrigger,
			sandbox,
			{ event: 'newCampaign' },
			{ credentials: paced, pollBudgetMs: POLL_BUDGET_MS },
		);
		await w.poll();
		const state = JSON.stringify(w.staticData);
		const balanceCalls = () =>
			sandbox.log.filter((e) => e.path === '/api/v1/voice/billing/balance');
		const items = Array.from({ length: 30 }, () => ({ json: {} }));
		const busy = voice.run({ resource: 'billing', operation: 'getBalance' }, { items });
		// The workflow has taken every place of the window: its next request waits for one.
		while (balanceCalls().length < LIMIT - 1) await new Promise((r) => setTimeout(r, 5));
		const mark = sandbox.log.length;
		const started = Date.now();
		const failed = await w.poll().then(
			() => undefined,
			(error) => error,
		);
		const ms = Date.now() - started;
		assert.ok(failed, 'the poll failed');
		assert.match(
			failed.message,
			/waiting for its turn within the credential's Requests per Minute/,
		);
		assert.deepEqual(failed.failure, { cause: 'rate-limited' });
		assert.ok(ms < POLL_BUDGET_MS, `the poll took ${ms} ms`);
		assert.equal(JSON.stringify(w.staticData), state, 'the state as it was');
		assert.deepEqual(
			sandbox.log.slice(mark).filter((e) => e.path.includes('/campaigns')),
			[],
			'the poll sent nothing, then or later',
		);
		const output = await busy;
		assert.equal(output.length, 30);
		assert.deepEqual([...new Set(balanceCalls().map((e) => e.status))], [200], 'no 429');
		await new Promise((r) => setTimeout(r, WINDOW));
		assert.deepEqual((await w.poll()).items, [], 'the next poll reads again');
	});
});
