import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { VoiceAiTrigger } from '../../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { apiCallsSince, apiError, sandboxSuite, watcher } from '../../support/integration.mjs';

const watch = (sandbox, params, options) => watcher(VoiceAiTrigger, sandbox, params, options);
/** Campaign Status Changed for every campaign and every status. */
const allChanges = () => ({ event: 'campaignStatusChanged', campaignScope: 'all', statuses: [] });

describe('Voice AI Trigger: Campaign Status Changed', () => {
	const env = sandboxSuite(
		{ campaignCount: 60, activeCampaignCount: 12, rateLimitPerMinute: 0 },
		undefined,
		{ each: true },
	);

	it('the first poll records a baseline and emits nothing; later polls report each change once', async () => {
		const { sandbox } = env;
		const w = watch(sandbox, allChanges());
		assert.deepEqual((await w.poll()).items, []);
		assert.ok(Object.keys(w.staticData.poll.state.active).length === 12);
		assert.deepEqual((await w.poll()).items, [], 'nothing changed, nothing emitted');

		const running = sandbox.state.campaigns.filter(
			(c) => c.status === 'pending' || c.status === 'in_progress',
		);
		const before = new Map(running.map((c) => [c.id, c.status]));
		sandbox.advance();
		const { items } = await w.poll();
		const moved = running.filter((c) => c.status !== before.get(c.id));
		assert.ok(moved.length > 0);
		assert.deepEqual(
			items.map((i) => [i.campaignId, i.previousStatus, i.status]).sort(),
			moved.map((c) => [c.id, before.get(c.id), c.status]).sort(),
		);
		assert.ok(
			items.every((i) => i.campaign.id === i.campaignId && i.campaignName === i.campaign.name),
		);
		assert.deepEqual((await w.poll()).items, [], 'the same change is not reported twice');
	});

	it('several transitions between two polls: the latest status, with the one recorded before', async () => {
		const { sandbox } = env;
		const w = watch(sandbox, allChanges());
		await w.poll();
		const pending = sandbox.state.campaigns.find((c) => c.status === 'pending');
		sandbox.advance(3);
		const { items } = await w.poll();
		const item = items.find((i) => i.campaignId === pending.id);
		assert.equal(item.previousStatus, 'pending');
		assert.ok(['completed', 'failed'].includes(item.status), item.status);
		assert.ok(
			!(pending.id in w.staticData.poll.state.active),
			'finished campaigns leave the state',
		);
	});

	it('filters by target status and by chosen campaigns', async () => {
		const { sandbox } = env;
		const running = sandbox.state.campaigns.filter((c) => c.status === 'in_progress');
		const chosen = running.slice(0, 2).map((c) => c.id);
		const onlyFinal = watch(sandbox, {
			event: 'campaignStatusChanged',
			campaignScope: 'all',
			statuses: ['completed', 'failed'],
		});
		const onlyChosen = watch(sandbox, {
			event: 'campaignStatusChanged',
			campaignScope: 'chosen',
			campaignIds: chosen,
			statuses: [],
		});
		await onlyFinal.poll();
		await onlyChosen.poll();
		sandbox.advance();
		const finals = (await onlyFinal.poll()).items;
		assert.ok(finals.length > 0 && finals.every((i) => ['completed', 'failed'].includes(i.status)));
		const mine = (await onlyChosen.poll()).items;
		assert.deepEqual(mine.map((i) => i.campaignId).sort(), [...chosen].sort());
	});

	it('a campaign created and finished between polls is reported, from null', async () => {
		const { sandbox } = env;
		const w = watch(sandbox, allChanges());
		await w.poll();
		const fresh = sandbox.addCampaign({ name: 'Flash sale' });
		sandbox.advance(2);
		const { items } = await w.poll();
		const item = items.find((i) => i.campaignId === fresh.id);
		assert.equal(item.previousStatus, null);
		assert.equal(item.status, fresh.status);
	});

	it('a cancelled campaign is reported through one GET of that campaign', async () => {
		const { sandbox } = env;
		const w = watch(sandbox, allChanges());
		await w.poll();
		const victim = sandbox.state.campaigns.find((c) => c.status === 'in_progress');
		victim.status = 'cancelled';
		const mark = sandbox.log.length;
		const { items } = await w.poll();
		assert.deepEqual(
			items.map((i) => [i.campaignId, i.previousStatus, i.status]),
			[[victim.id, 'in_progress', 'cancelled']],
		);
		const singles = apiCallsSince(sandbox, mark).filter((e) =>
			e.path.startsWith('/api/v1/voice/campaigns/'),
		);
		assert.deepEqual(
			singles.map((e) => e.path),
			[`/api/v1/voice/campaigns/${victim.id}`],
		);
	});

	it('a failed poll throws and leaves the state as it was: the change is reported by the next poll, once', async () => {
		const { sandbox } = env;
		let failNext = false;
		const w = watch(sandbox, allChanges(), {
			wrapHttp: (http) => async (type, options) => {
				if (failNext && options.qs?.status === 'in_progress')
					throw apiError(400, { message: 'boom' });
				return await http(type, options);
			},
		});
		await w.poll();
		const snapshot = JSON.stringify(w.staticData);
		sandbox.advance();
		failNext = true;
		await assert.rejects(w.poll(), (error) => {
			assert.equal(error.failure, undefined, 'a 400 is left to n8n to judge');
			return true;
		});
		assert.equal(JSON.stringify(w.staticData), snapshot, 'state unchanged by the failed poll');
		failNext = false;
		const next = await w.poll();
		assert.ok(next.items.length > 0);
		assert.equal((await w.poll()).items.length, 0);
	});

	it('an error on the first poll or in manual mode is thrown, so the user sees it', async () => {
		const { sandbox } = env;
		const w = watch(sandbox, allChanges(), {
			wrapHttp: () => async () => {
				throw apiError(403, { message: 'Missing role: voicebot' });
			},
		});
		await assert.rejects(w.poll(), /"voicebot" role/);
		await assert.rejects(w.poll('manual'), /"voicebot" role/);
		assert.equal(w.staticData.poll, undefined);
	});

	it('Fetch Test Event returns a real recent campaign and does not move the state', async () => {
		const { sandbox } = env;
		const w = watch(sandbox, allChanges());
		await w.poll();
		const snapshot = JSON.stringify(w.staticData);
		sandbox.advance();
		const { items } = await w.poll('manual');
		assert.equal(items.length, 1);
		const newest = [...sandbox.state.campaigns].sort(
			(a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt),
		)[0];
		assert.equal(items[0].campaignId, newest.id);
		assert.equal(items[0].status, newest.status);
		assert.equal(JSON.stringify(w.staticData), snapshot);
		assert.ok(
			(await w.poll()).items.length > 0,
			'the changes are still reported by the next real poll',
		);
	});

	it('state survives as plain JSON (a restart of n8n) and stays bounded', async () => {
		const { sandbox } = env;
		const w = watch(sandbox, allChanges());
		await w.poll();
		const restored = JSON.parse(JSON.stringify(w.staticData));
		sandbox.advance(5);
		const fresh = watch(sandbox, allChanges());
		Object.assign(fresh.staticData, restored);
		const { items } = await fresh.poll();
		assert.ok(
			items.length >= 12,
			`every tracked campaign finished and was reported (${items.length})`,
		);
		assert.deepEqual(fresh.staticData.poll.state.active, {}, 'nothing final is kept');
	});
});

describe('Voice AI Trigger: cost per poll does not grow with the number of campaigns', () => {
	const env = sandboxSuite({
		campaignCount: 10_000,
		activeCampaignCount: 20,
		rateLimitPerMinute: 0,
	});

	it('with 10,000 campaigns of which 20 are active, a steady-state poll makes at most 4 requests', async () => {
		const { sandbox } = env;
		const w = watch(sandbox, allChanges());
		await w.poll();
		let mark = sandbox.log.length;
		await w.poll();
		const steady = apiCallsSince(sandbox, mark);
		assert.ok(
			steady.length <= 4,
			steady.map((e) => `${e.method} ${e.path} ${JSON.stringify(e.query)}`).join('\n'),
		);
		mark = sandbox.log.length;
		sandbox.addCampaign({ name: 'Newly added' });
		const { items } = await w.poll();
		assert.ok(apiCallsSince(sandbox, mark).length <= 4);
		assert.deepEqual(items, [], 'a new pending campaign is not a status change');
	});
});

describe('Voice AI Trigger: New Campaign', () => {
	const env = sandboxSuite({ campaignCount: 150, rateLimitPerMinute: 0 });

	it('emits campaigns created since the last poll, oldest first, once', async () => {
		const { sandbox } = env;
		const w = watch(sandbox, { event: 'newCampaign' });
		assert.deepEqual((await w.poll()).items, []);
		const a = sandbox.addCampaign({ name: 'Spring A' });
		const b = sandbox.addCampaign({ name: 'Spring B' });
		const { items } = await w.poll();
		assert.deepEqual(
			items.map((i) => i.id),
			[a.id, b.id],
		);
		assert.deepEqual((await w.poll()).items, []);
	});
});

describe('Voice AI Trigger: Balance Low', () => {
	const env = sandboxSuite({ rateLimitPerMinute: 0 });

	it('fires once below the threshold and re-arms when the balance recovers', async () => {
		const { sandbox } = env;
		sandbox.state.balance.credit = 50;
		const w = watch(sandbox, { event: 'balanceLow', metric: 'credit', threshold: 20 });
		assert.deepEqual((await w.poll()).items, [], 'baseline');
		sandbox.state.balance.credit = 15;
		const fired = (await w.poll()).items;
		assert.equal(fired.length, 1);
		assert.deepEqual(
			[fired[0].metric, fired[0].value, fired[0].threshold, fired[0].belowThreshold],
			['credit', 15, 20, true],
		);
		sandbox.state.balance.credit = 5;
		assert.deepEqual((await w.poll()).items, [], 'still low: no second alert');
		sandbox.state.balance.credit = 40;
		assert.deepEqual((await w.poll()).items, [], 'recovered: re-armed, silent');
		sandbox.state.balance.credit = 10;
		assert.equal((await w.poll()).items.length, 1, 'fires again after recovering');
	});

	it('watches minutes too, and a new threshold starts a new baseline', async () => {
		const { sandbox } = env;
		sandbox.state.balance.credit = 100;
		const params = { event: 'balanceLow', metric: 'minutes', threshold: 1 };
		const w = watch(sandbox, params);
		await w.poll();
		params.threshold = 100_000;
		assert.deepEqual((await w.poll()).items, [], 'changed settings: baseline again, no alert');
		assert.equal(w.staticData.poll.key, 'balanceLow:minutes:100000');
	});
});
