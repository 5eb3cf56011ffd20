// The sandbox's voice endpoints: agents, campaigns and their data, progression, balance, trends,
// seeds; and the 404 of every resource.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { sleep } from '../../tools/processes.mjs';
import {
	clientOf,
	sandboxFor,
	sandboxWithClient,
	token as tokenFor,
} from '../support/sandboxApi.mjs';

describe('voice: agents and campaigns', () => {
	test('pages agents by page, limit and sort', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t);
		const first = await api.get('/api/v1/voice/agents');
		assert.equal(first.status, 200);
		assert.deepEqual(Object.keys(first.body).sort(), ['items', 'page', 'total', 'totalPages']);
		assert.equal(first.body.total, 25);
		assert.equal(first.body.page, 1);
		assert.equal(first.body.totalPages, 3);
		assert.equal(first.body.items.length, 10);
		const newest = sandbox.state.agents.at(-1);
		assert.deepEqual(first.body.items[0], newest);
		const ids = new Set();
		for (let page = 1; page <= 3; page++) {
			const response = await api.get(`/api/v1/voice/agents?page=${page}&limit=10&sort=desc`);
			for (const agent of response.body.items) ids.add(agent.id);
			if (page === 3) assert.equal(response.body.items.length, 5);
		}
		assert.equal(ids.size, 25);
		const asc = await api.get('/api/v1/voice/agents?sort=asc&limit=25');
		const times = asc.body.items.map((/** @type {{ createdAt: string }} */ a) => a.createdAt);
		assert.deepEqual(times, [...times].sort());
		assert.equal(asc.body.items[0].id, sandbox.state.agents[0].id);
		const beyond = await api.get('/api/v1/voice/agents?page=9');
		assert.deepEqual(beyond.body, { items: [], total: 25, page: 9, totalPages: 3 });
		for (const agent of asc.body.items) {
			assert.ok(['active', 'inactive'].includes(agent.status));
			assert.ok(['inbound', 'outbound'].includes(agent.call_type));
			assert.match(agent.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
		}
	});

	test('rejects bad paging parameters with 400 message arrays', async (t) => {
		const { api } = await sandboxWithClient(t);
		const tooMany = await api.get('/api/v1/voice/agents?limit=101');
		assert.equal(tooMany.status, 400);
		assert.deepEqual(tooMany.body, {
			statusCode: 400,
			message: ['limit must not be greater than 100'],
			error: 'Bad Request',
		});
		assert.equal((await api.get('/api/v1/voice/agents?limit=100')).status, 200);
		const several = await api.get('/api/v1/voice/campaigns?page=0&limit=abc&sort=up&status=done');
		assert.equal(several.status, 400);
		assert.equal(several.body.message.length, 4);
		assert.ok(several.body.message.every((/** @type {unknown} */ m) => typeof m === 'string'));
		assert.ok(
			several.body.message.some((/** @type {string} */ m) => m.startsWith('status must be one of')),
		);
	});

	test('filters campaigns by status; an empty result has totalPages 0', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t, { activeCampaignCount: 0 });
		const pending = await api.get('/api/v1/voice/campaigns?status=pending');
		assert.deepEqual(pending.body, { items: [], total: 0, page: 1, totalPages: 0 });
		const completed = await api.get('/api/v1/voice/campaigns?status=completed&limit=100');
		const expected = sandbox.state.campaigns.filter((c) => c.status === 'completed').length;
		assert.ok(expected > 0);
		assert.equal(completed.body.total, expected);
		assert.ok(
			completed.body.items.every((/** @type {{ status: string }} */ c) => c.status === 'completed'),
		);
		const all = await api.get('/api/v1/voice/campaigns?limit=100');
		assert.equal(all.body.total, 30);
		const statuses = new Set(all.body.items.map((/** @type {{ status: string }} */ c) => c.status));
		assert.deepEqual([...statuses].sort(), ['cancelled', 'completed', 'failed']);
	});

	test('answers 404 for unknown ids on every resource and for unknown routes', async (t) => {
		const { api } = await sandboxWithClient(t);
		/** @type {[string, string, string][]} */
		const cases = [
			['GET', '/api/v1/voice/agents/agt_missing', 'Agent not found'],
			['GET', '/api/v1/voice/campaigns/cmp_missing', 'Campaign not found'],
			['POST', '/api/v1/voice/campaigns/cmp_missing/cancel', 'Campaign not found'],
			['GET', '/api/v1/voice/campaigns/cmp_missing/data', 'Campaign not found'],
			['GET', '/api/v1/messenger/contacts/ctc_missing', 'Contact not found'],
			['PATCH', '/api/v1/messenger/chats/cht_missing/reopen', 'Chat not found'],
			['PATCH', '/api/v1/messenger/chats/cht_missing/mark-important', 'Chat not found'],
			['GET', '/api/v1/messenger/messages/chat/cht_missing', 'Chat not found'],
			['GET', '/api/v1/messenger/messages/msg_missing', 'Message not found'],
			['DELETE', '/api/v1/messenger/messages/msg_missing/react', 'Message not found'],
			['GET', '/api/v1/messenger/broadcast/messages/bcm_missing', 'Broadcast message not found'],
			['GET', '/api/v1/voice/nothing-here', 'Cannot GET /api/v1/voice/nothing-here'],
			['DELETE', '/api/v1/voice/agents', 'Cannot DELETE /api/v1/voice/agents'],
		];
		for (const [method, path, message] of cases) {
			const response =
				method === 'GET'
					? await api.get(path)
					: method === 'DELETE'
						? await api.delete(path)
						: method === 'POST'
							? await api.post(path)
							: await api.patch(path);
			assert.equal(response.status, 404, `${method} ${path}`);
			assert.deepEqual(response.body, { statusCode: 404, message, error: 'Not Found' });
		}
	});

	test('cancels a pending campaign, then refuses with 409', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t);
		const campaign = sandbox.state.campaigns.find((c) => c.status === 'pending');
		assert.ok(campaign);
		const before = campaign.updatedAt;
		const cancelled = await api.post(`/api/v1/voice/campaigns/${campaign.id}/cancel`);
		assert.equal(cancelled.status, 200);
		assert.equal(cancelled.body.id, campaign.id);
		assert.equal(cancelled.body.status, 'cancelled');
		assert.ok(cancelled.body.updatedAt > before);
		const again = await api.post(`/api/v1/voice/campaigns/${campaign.id}/cancel`);
		assert.equal(again.status, 409);
		assert.deepEqual(again.body, {
			statusCode: 409,
			message: 'Campaign is already cancelled',
			error: 'Conflict',
		});
		const completed = sandbox.state.campaigns.find((c) => c.status === 'completed');
		const refused = await api.post(`/api/v1/voice/campaigns/${completed?.id}/cancel`);
		assert.equal(refused.status, 409);
		assert.equal(refused.body.message, 'Campaign is already completed');
		assert.equal(
			(await api.get(`/api/v1/voice/campaigns/${campaign.id}`)).body.status,
			'cancelled',
		);
	});

	test('advance() moves campaigns pending → in_progress → completed|failed', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t);
		const added = sandbox.addCampaign({ name: 'Launch [fail]' });
		const plain = sandbox.addCampaign();
		assert.equal(added.status, 'pending');
		assert.ok(plain.createdAt > added.createdAt);
		const list = await api.get('/api/v1/voice/campaigns?limit=2');
		assert.deepEqual(
			list.body.items.map((/** @type {{ id: string }} */ c) => c.id),
			[plain.id, added.id],
		);
		sandbox.advance();
		assert.equal((await api.get(`/api/v1/voice/campaigns/${plain.id}`)).body.status, 'in_progress');
		sandbox.advance();
		const finished = (await api.get(`/api/v1/voice/campaigns/${plain.id}`)).body;
		assert.ok(['completed', 'failed'].includes(finished.status));
		assert.equal((await api.get(`/api/v1/voice/campaigns/${added.id}`)).body.status, 'failed');
		const active = await api.get('/api/v1/voice/campaigns?status=in_progress');
		assert.equal(active.body.total, 0);
		const statuses = sandbox.state.campaigns.map((c) => c.status);
		assert.ok(!statuses.includes('pending') && !statuses.includes('in_progress'));
		// Most runs complete, so a fresh seed's active campaigns do not all fail.
		assert.ok(
			statuses.filter((s) => s === 'completed').length >
				statuses.filter((s) => s === 'failed').length,
		);
	});

	test('progresses on its own with progressIntervalMs', async (t) => {
		const sandbox = await sandboxFor(t, { progressIntervalMs: 10 });
		const campaign = sandbox.addCampaign();
		const deadline = Date.now() + 2000;
		while (['pending', 'in_progress'].includes(campaign.status) && Date.now() < deadline)
			await sleep(10);
		assert.ok(['completed', 'failed'].includes(campaign.status));
		sandbox.setOptions({ progressIntervalMs: 0 });
		const idle = sandbox.addCampaign();
		await sleep(40);
		assert.equal(idle.status, 'pending');
	});

	test('serves campaign data consistent with the campaign status', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t);
		const completed = sandbox.state.campaigns.find((c) => c.status === 'completed');
		const data = await api.get(`/api/v1/voice/campaigns/${completed?.id}/data?limit=100`);
		assert.equal(data.status, 200);
		assert.ok(data.body.total >= 5 && data.body.total <= 40);
		assert.equal(data.body.items.length, data.body.total);
		for (const record of data.body.items) {
			assert.deepEqual(Object.keys(record), [
				'phoneNumber',
				'status',
				'attempts',
				'durationSeconds',
				'result',
				'calledAt',
			]);
			assert.ok(['answered', 'no_answer', 'busy', 'failed'].includes(record.status));
			assert.match(record.phoneNumber, /^\+\d{8,15}$/);
		}
		const page = await api.get(`/api/v1/voice/campaigns/${completed?.id}/data?limit=3&page=2`);
		assert.deepEqual(page.body.items, data.body.items.slice(3, 6));
		assert.equal(page.body.totalPages, Math.ceil(data.body.total / 3));
		const pending = sandbox.state.campaigns.find((c) => c.status === 'pending');
		const pendingData = await api.get(`/api/v1/voice/campaigns/${pending?.id}/data?limit=100`);
		assert.ok(
			pendingData.body.items.every((/** @type {{ status: string }} */ r) => r.status === 'pending'),
		);
		sandbox.advance(2);
		const after = sandbox.state.campaignData.get(/** @type {string} */ (pending?.id)) ?? [];
		assert.ok(after.every((r) => r.status !== 'pending' && r.status !== 'calling'));
	});

	test('reports balance and deterministic trends', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t, { rateLimitPerMinute: 0 });
		const balance = await api.get('/api/v1/voice/billing/balance');
		assert.deepEqual(Object.keys(balance.body).sort(), [
			'credit',
			'currency',
			'minutes',
			'ratePerMinute',
		]);
		sandbox.state.balance.credit = 9;
		sandbox.state.balance.ratePerMinute = 0.09;
		assert.deepEqual((await api.get('/api/v1/voice/billing/balance')).body, {
			credit: 9,
			currency: balance.body.currency,
			minutes: 100,
			ratePerMinute: 0.09,
		});
		const recent = await api.get('/api/v1/voice/reports/trends');
		assert.equal(recent.status, 200);
		assert.equal(recent.body.items.length, 30);
		const month = await api.get(
			'/api/v1/voice/reports/trends?from=2025-03-01&to=2025-03-31&granularity=month',
		);
		assert.equal(month.body.items.length, 1);
		assert.equal(month.body.items[0].period, '2025-03-01');
		const days = await api.get(
			'/api/v1/voice/reports/trends?from=2025-03-01&to=2025-03-31&granularity=day',
		);
		assert.equal(days.body.items.length, 31);
		const sum = days.body.items.reduce(
			(/** @type {number} */ total, /** @type {{ calls: number }} */ d) => total + d.calls,
			0,
		);
		assert.equal(month.body.items[0].calls, sum);
		for (const item of days.body.items) {
			assert.ok(item.answered <= item.calls);
			assert.equal(item.cost, Math.round(item.minutes * 0.09 * 100) / 100);
		}
		const weeks = await api.get(
			'/api/v1/voice/reports/trends?from=2025-03-05T10:00:00Z&to=2025-03-20&granularity=week',
		);
		assert.deepEqual(
			weeks.body.items.map((/** @type {{ period: string }} */ w) => w.period),
			['2025-03-03', '2025-03-10', '2025-03-17'],
		);
		const again = await api.get(
			'/api/v1/voice/reports/trends?from=2025-03-01&to=2025-03-31&granularity=day',
		);
		assert.deepEqual(again.body, days.body);
		const bad = await api.get('/api/v1/voice/reports/trends?granularity=year&from=yesterday');
		assert.equal(bad.status, 400);
		assert.deepEqual(bad.body.message, [
			'granularity must be one of the following values: day, week, month',
			'from must be a valid ISO 8601 date string',
		]);
		assert.equal(
			(await api.get('/api/v1/voice/reports/trends?from=2025-04-01&to=2025-03-01')).status,
			400,
		);
	});

	test('same seed gives the same data; large counts start quickly and page from the newest', async (t) => {
		const a = await sandboxFor(t, { seed: 7 });
		const b = await sandboxFor(t, { seed: 7 });
		const c = await sandboxFor(t, { seed: 8 });
		assert.deepEqual(a.state.agents, b.state.agents);
		assert.deepEqual(a.state.campaigns, b.state.campaigns);
		assert.deepEqual(
			a.state.campaignData.get(a.state.campaigns[3].id),
			b.state.campaignData.get(b.state.campaigns[3].id),
		);
		assert.notDeepEqual(a.state.agents, c.state.agents);
		const started = performance.now();
		const big = await sandboxFor(t, {
			agentCount: 10000,
			campaignCount: 10000,
			rateLimitPerMinute: 0,
		});
		assert.ok(performance.now() - started < 3000);
		const api = clientOf(big, await tokenFor(big));
		const page = await api.get('/api/v1/voice/campaigns?limit=100&page=100');
		assert.equal(page.body.total, 10000);
		assert.equal(page.body.totalPages, 100);
		assert.equal(page.body.items.at(-1).id, big.state.campaigns[0].id);
		const agent = big.state.agents[4321];
		assert.deepEqual((await api.get(`/api/v1/voice/agents/${agent.id}`)).body, agent);
		assert.equal(
			big.state.campaigns.filter((x) => x.status === 'pending' || x.status === 'in_progress')
				.length,
			5,
		);
	});
});
