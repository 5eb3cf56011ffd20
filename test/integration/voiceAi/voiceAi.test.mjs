import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { VoiceAi } from '../../../nodes/VoiceAi/VoiceAi.node.ts';
import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { retrySettings } from '../../../tools/nodeShared.mjs';
import { requestsSince, sandboxRunner } from '../../../tools/sandboxRun.mjs';
import { rl, sandboxSuite, unpacedRunner, withSandbox } from '../../support/integration.mjs';

describe('Voice AI node against the sandbox', () => {
	const env = sandboxSuite(
		{ agentCount: 230, campaignCount: 40, activeCampaignCount: 8 },
		(sandbox) => ({
			voice: sandboxRunner(VoiceAi, sandbox, DEMO_CLIENTS.full),
		}),
	);

	it('Agent → Get Many with Return All fetches all 230 agents in 3 pages of 100', async () => {
		const { sandbox, voice } = env;
		const output = await voice.run({
			resource: 'agent',
			operation: 'getAll',
			returnAll: true,
			options: {},
		});
		assert.equal(output.length, 230);
		assert.deepEqual(
			new Set(output.map((o) => o.json.id)),
			new Set(sandbox.state.agents.map((a) => a.id)),
		);
		const lists = sandbox.log.slice(env.mark).filter((e) => e.path === '/api/v1/voice/agents');
		assert.deepEqual(
			lists.map((e) => [e.query.page, e.query.limit, e.status]),
			[
				['1', '100', 200],
				['2', '100', 200],
				['3', '100', 200],
			],
		);
	});

	it('Agent → Get Many with Limit 15, oldest first', async () => {
		const { voice } = env;
		const output = await voice.run({
			resource: 'agent',
			operation: 'getAll',
			returnAll: false,
			limit: 15,
			options: { sort: 'asc' },
		});
		assert.equal(output.length, 15);
		const created = output.map((o) => Date.parse(o.json.createdAt));
		assert.deepEqual(
			created,
			[...created].sort((a, b) => a - b),
		);
		assert.deepEqual(env.apiRequests(), ['GET /api/v1/voice/agents 200']);
	});

	it('Agent → Get returns the agent; an unknown one says "Agent not found"', async () => {
		const { sandbox, voice } = env;
		const agent = sandbox.state.agents[3];
		const [item] = await voice.run({ resource: 'agent', operation: 'get', agentId: rl(agent.id) });
		assert.deepEqual(item.json, JSON.parse(JSON.stringify(agent)));
		await assert.rejects(
			voice.run({ resource: 'agent', operation: 'get', agentId: rl('agt_nope') }),
			/Agent not found: "agt_nope"/,
		);
	});

	it('an id with a slash stays inside its endpoint', async () => {
		const { sandbox, voice } = env;
		await assert.rejects(
			voice.run({ resource: 'agent', operation: 'get', agentId: rl('x/../../auth/token') }),
			/not a valid ID/,
		);
		assert.deepEqual(requestsSince(sandbox, env.mark), []);
	});

	it('Campaign → Get Many filters by status', async () => {
		const { sandbox, voice } = env;
		const output = await voice.run({
			resource: 'campaign',
			operation: 'getAll',
			returnAll: true,
			filters: { status: 'completed' },
			options: {},
		});
		const expected = sandbox.state.campaigns.filter((c) => c.status === 'completed');
		assert.ok(expected.length > 0);
		assert.deepEqual(output.map((o) => o.json.id).sort(), expected.map((c) => c.id).sort());
	});

	it('Campaign → Get, Cancel, then Cancel again says it is already finished', async () => {
		const { sandbox, voice } = env;
		const campaign = sandbox.state.campaigns.find(
			(c) => c.status === 'pending' || c.status === 'in_progress',
		);
		const [got] = await voice.run({
			resource: 'campaign',
			operation: 'get',
			campaignId: rl(campaign.id),
		});
		assert.equal(got.json.id, campaign.id);
		const [cancelled] = await voice.run({
			resource: 'campaign',
			operation: 'cancel',
			campaignId: rl(campaign.id),
		});
		assert.equal(cancelled.json.status, 'cancelled');
		assert.equal(sandbox.state.campaigns.find((c) => c.id === campaign.id).status, 'cancelled');
		const [again] = await voice.run(
			{ resource: 'campaign', operation: 'cancel', campaignId: rl(campaign.id) },
			{ continueOnFail: true },
		);
		assert.match(again.json.error, /already finished/);
		assert.equal(again.json.httpCode, '409');
		const cancels = sandbox.log.slice(env.mark).filter((e) => e.path.endsWith('/cancel'));
		assert.deepEqual(
			cancels.map((e) => e.status),
			[200, 409],
			'each cancel is sent exactly once',
		);
	});

	it('Campaign → Get Data gives one item per number, with Return All and with Limit', async () => {
		const { sandbox, voice } = env;
		const campaign = sandbox.state.campaigns[0];
		const numbers = sandbox.state.campaignData.get(campaign.id);
		const all = await voice.run({
			resource: 'campaign',
			operation: 'getData',
			campaignId: rl(campaign.id),
			returnAll: true,
			options: {},
		});
		assert.equal(all.length, numbers.length);
		assert.deepEqual(Object.keys(all[0].json).sort(), [
			'attempts',
			'calledAt',
			'durationSeconds',
			'phoneNumber',
			'result',
			'status',
		]);
		const some = await voice.run({
			resource: 'campaign',
			operation: 'getData',
			campaignId: rl(campaign.id),
			returnAll: false,
			limit: 2,
			options: {},
		});
		assert.deepEqual(
			some.map((o) => o.json.phoneNumber),
			all.slice(0, 2).map((o) => o.json.phoneNumber),
		);
	});

	it('Billing → Get Balance and Report → Get Call Trends', async () => {
		const { sandbox, voice } = env;
		const [balance] = await voice.run({ resource: 'billing', operation: 'getBalance' });
		assert.deepEqual(Object.keys(balance.json).sort(), [
			'credit',
			'currency',
			'minutes',
			'ratePerMinute',
		]);
		const trends = await voice.run({
			resource: 'report',
			operation: 'getCallTrends',
			from: '2026-01-01',
			to: '2026-01-28',
			granularity: 'week',
			options: {},
		});
		assert.ok(trends.length >= 4);
		assert.ok(trends.every((t) => 'period' in t.json && 'calls' in t.json));
		const call = sandbox.log.slice(env.mark).find((e) => e.path === '/api/v1/voice/reports/trends');
		assert.deepEqual(
			[call.query.from, call.query.to, call.query.granularity],
			['2026-01-01', '2026-01-28', 'week'],
		);
	});

	it('one token served every request above', () => {
		const { sandbox, voice } = env;
		assert.equal(sandbox.tokenRequests().filter((e) => e.status === 200).length, 1);
		assert.equal(voice.store.preAuthCalls, 1);
	});

	it('an expired token is renewed once and the request resent', async () => {
		const { sandbox, voice } = env;
		sandbox.expireTokens();
		const [balance] = await voice.run({ resource: 'billing', operation: 'getBalance' });
		assert.ok('credit' in balance.json);
		assert.deepEqual(requestsSince(sandbox, env.mark), [
			'GET /api/v1/voice/billing/balance 401',
			'POST /api/v1/auth/token 200',
			'GET /api/v1/voice/billing/balance 200',
		]);
	});

	it('a messenger-only workspace gets a plain 403 naming the voicebot role', async () => {
		const { sandbox } = env;
		const messengerOnly = sandboxRunner(VoiceAi, sandbox, DEMO_CLIENTS.messengerOnly);
		await assert.rejects(
			messengerOnly.run({ resource: 'billing', operation: 'getBalance' }),
			(error) => {
				assert.match(error.message, /"voicebot" role/);
				assert.match(error.description, /voicebot/);
				return true;
			},
		);
	});

	it('a wrong secret fails with a message about the credential, without the secret', async () => {
		const { sandbox } = env;
		const wrong = sandboxRunner(VoiceAi, sandbox, {
			clientId: DEMO_CLIENTS.full.clientId,
			clientSecret: 'wrong-secret-value',
		});
		await assert.rejects(wrong.run({ resource: 'billing', operation: 'getBalance' }), (error) => {
			assert.match(error.message, /rejected the Client ID or Client Secret/);
			assert.ok(
				!JSON.stringify({ m: error.message, d: error.description }).includes('wrong-secret-value'),
			);
			return true;
		});
	});

	it('429 from the API is waited out and the list still completes', async () => {
		const saved = { ...retrySettings };
		Object.assign(retrySettings, { maxRetryAfterMs: 50, baseDelayMs: 10 });
		try {
			await withSandbox({ agentCount: 250, rateLimitPerMinute: 2 }, async (limited) => {
				// Pacing off: the pages go back to back and meet the limit (the retry is under test here).
				const runner = unpacedRunner(VoiceAi, limited);
				const originalLog = limited.log.length;
				// Once a request has met the limit, its window is reset so that the retry's wait stays short.
				const timer = setInterval(() => {
					if (limited.log.slice(originalLog).some((e) => e.status === 429))
						limited.resetRateLimits();
				}, 20);
				try {
					const output = await runner.run({
						resource: 'agent',
						operation: 'getAll',
						returnAll: true,
						options: {},
					});
					assert.equal(output.length, 250);
				} finally {
					clearInterval(timer);
				}
				const statuses = limited.log
					.slice(originalLog)
					.filter((e) => e.path === '/api/v1/voice/agents')
					.map((e) => e.status);
				assert.ok(statuses.includes(429), `expected at least one 429, got ${statuses}`);
				assert.equal(statuses.filter((s) => s === 200).length, 3);
			});
		} finally {
			Object.assign(retrySettings, saved);
		}
	});
});
