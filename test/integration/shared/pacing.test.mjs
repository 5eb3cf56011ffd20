import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { VoiceAi } from '../../../nodes/VoiceAi/VoiceAi.node.ts';
import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { pacingSettings, resetPacing } from '../../../tools/nodeShared.mjs';
import { sandboxRunner } from '../../../tools/sandboxRun.mjs';
import { sandboxSuite } from '../../support/integration.mjs';

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
