// Where the API description is silent, docs/api.md chose one answer; the real API may give
// another. Under each sandbox alternative (sandbox/alternatives.mjs) the affected operations
// return the same records as under docs/api.md, and the triggers report the same events, each
// once, none on the first poll.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Messenger } from '../../../nodes/Messenger/Messenger.node.ts';
import { MessengerTrigger } from '../../../nodes/Messenger/MessengerTrigger.node.ts';
import { searchCampaigns } from '../../../nodes/VoiceAi/methods/listSearch.ts';
import { VoiceAi } from '../../../nodes/VoiceAi/VoiceAi.node.ts';
import { VoiceAiTrigger } from '../../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { DEFAULT_ALTERNATIVES } from '../../../sandbox/alternatives.mjs';
import {
	ALTERNATIVES_SETTINGS,
	flagsLabel,
	loadOptionsContext,
	rl,
	sandboxSuite,
	unpacedRunner,
	watcher,
	withSandbox,
} from '../../support/integration.mjs';

/** One flag at a time, then the API a user met (pages of 20 as { data, meta }, no status filter). */
const LIST_FLAGS = [
	{ listEnvelope: 'data-meta' },
	{ listEnvelope: 'total-only' },
	{ listEnvelope: 'bare' },
	{ listEnvelope: 'next-link' },
	{ fixedPageSize: 20 },
	{ ignoreStatusFilter: true },
	{ historyOrder: 'asc' },
	{ fixedPageSize: 20, listEnvelope: 'data-meta', ignoreStatusFilter: true },
];

/** The list operations the alternatives touch, each with how to compare its output. */
function listOperations(sandbox) {
	const biggest = sandbox.state.campaigns
		.map((c) => ({ id: c.id, rows: sandbox.state.campaignData.get(c.id).length }))
		.sort((a, b) => b.rows - a.rows)[0];
	assert.ok(biggest.rows > 25, 'a campaign with more rows than a Limit of 25');
	const chat = sandbox.state.chats[0];
	const voice = [
		{ resource: 'agent', operation: 'getAll', returnAll: true, options: {} },
		{ resource: 'agent', operation: 'getAll', returnAll: false, limit: 25, options: {} },
		{ resource: 'campaign', operation: 'getAll', returnAll: true, filters: {}, options: {} },
		...['pending', 'in_progress', 'completed'].map((status) => ({
			resource: 'campaign',
			operation: 'getAll',
			returnAll: true,
			filters: { status },
			options: {},
		})),
		{
			resource: 'campaign',
			operation: 'getAll',
			returnAll: false,
			limit: 4,
			filters: { status: 'completed' },
			options: { sort: 'asc' },
		},
		{ resource: 'campaign', operation: 'getData', campaignId: rl(biggest.id), returnAll: true },
		{
			resource: 'campaign',
			operation: 'getData',
			campaignId: rl(biggest.id),
			returnAll: false,
			limit: 25,
		},
	];
	// Chat history is compared as a set: an API that ignores `sort` answers in its own order.
	const messenger = [
		{ resource: 'chat', operation: 'getMessages', chatId: chat.id, returnAll: true, options: {} },
	];
	return { voice, messenger };
}

describe('list operations under each alternative return what they return under docs/api.md', () => {
	// More campaigns than a page of 100: the picker scrolls and Return All pages in every shape.
	const env = sandboxSuite(
		{ ...ALTERNATIVES_SETTINGS, agentCount: 57, campaignCount: 130 },
		(sandbox) => {
			sandbox.customerWrites({ chatId: sandbox.state.chats[0].id, count: 130 });
			// Pacing is not under test here (and Return All over pages of 20 exceeds 100 requests).
			return {
				voice: unpacedRunner(VoiceAi, sandbox),
				messenger: unpacedRunner(Messenger, sandbox),
			};
		},
	);

	/** The campaign picker scrolled to its end, page token by page token. */
	const picker = async () => {
		const context = loadOptionsContext(unpacedRunner(VoiceAi, env.sandbox));
		const shown = [];
		let token;
		for (let scroll = 0; scroll < 20; scroll++) {
			const page = await searchCampaigns.call(context, '', token);
			shown.push(...page.results.map((r) => ({ json: { id: r.value } })));
			token = page.paginationToken;
			if (token === undefined) return shown;
		}
		assert.fail('the picker did not reach the end of the list');
	};
	const runAll = async (operations) => ({
		voice: [...(await Promise.all(operations.voice.map((p) => env.voice.run(p)))), await picker()],
		messenger: await Promise.all(operations.messenger.map((p) => env.messenger.run(p))),
	});
	const ids = (output) => output.map((o) => o.json.id ?? o.json.phoneNumber);

	for (const flags of LIST_FLAGS) {
		it(flagsLabel(flags), async () => {
			const { sandbox } = env;
			const operations = listOperations(sandbox);
			sandbox.setOptions(DEFAULT_ALTERNATIVES);
			const expected = await runAll(operations);
			assert.ok(expected.voice.every((output) => output.length > 0));
			sandbox.setOptions(flags);
			try {
				const got = await runAll(operations);
				got.voice.forEach((output, i) =>
					assert.deepEqual(
						ids(output),
						ids(expected.voice[i]),
						flagsLabel(operations.voice[i] ?? {}),
					),
				);
				got.messenger.forEach((output, i) =>
					assert.deepEqual(ids(output).sort(), ids(expected.messenger[i]).sort()),
				);
			} finally {
				sandbox.setOptions(DEFAULT_ALTERNATIVES);
			}
		});
	}
});

/** A trigger as the full client, with pacing off; `poll(mode)` resolves to the items' JSON. */
function watch(NodeClass, sandbox, params) {
	const w = watcher(NodeClass, sandbox, params, { credentials: { requestsPerMinute: 0 } });
	return { ...w, poll: async (mode) => (await w.poll(mode)).items };
}

const active = (c) => c.status === 'pending' || c.status === 'in_progress';

describe('triggers under each alternative: the same events, each once, none on the first poll', () => {
	// An API that ignores `sort` on campaigns: the triggers read their pages oldest first.
	for (const flags of [...LIST_FLAGS, { campaignOrder: 'asc', fixedPageSize: 20 }]) {
		it(`Campaign Status Changed and New Campaign, ${flagsLabel(flags)}`, async () => {
			await withSandbox(
				{
					...ALTERNATIVES_SETTINGS,
					campaignCount: 57,
					activeCampaignCount: 24,
					...flags,
				},
				async (sandbox) => {
					const changes = watch(VoiceAiTrigger, sandbox, {
						event: 'campaignStatusChanged',
						campaignScope: 'all',
						statuses: [],
					});
					const created = watch(VoiceAiTrigger, sandbox, { event: 'newCampaign' });
					assert.deepEqual(await changes.poll(), [], 'first poll: baseline only');
					assert.deepEqual(await created.poll(), []);
					assert.deepEqual(await changes.poll(), [], 'a quiet poll reports nothing');
					assert.deepEqual(await created.poll(), []);

					const before = new Map(
						sandbox.state.campaigns.filter(active).map((c) => [c.id, c.status]),
					);
					const added = [sandbox.addCampaign(), sandbox.addCampaign()];
					sandbox.advance();
					const moved = sandbox.state.campaigns.filter(
						(c) => before.has(c.id) && c.status !== before.get(c.id),
					);
					assert.ok(moved.length > 0);
					const expected = [
						...moved.map((c) => [c.id, before.get(c.id), c.status]),
						// Created and started between two polls: reported with no previous status.
						...added.filter((c) => c.status !== 'pending').map((c) => [c.id, null, c.status]),
					].sort();
					const events = (await changes.poll()).map((e) => [
						e.campaignId,
						e.previousStatus,
						e.status,
					]);
					assert.deepEqual(events.sort(), expected);
					assert.deepEqual(
						(await created.poll()).map((c) => c.id),
						added.map((c) => c.id),
					);
					assert.deepEqual(await changes.poll(), [], 'each change once');
					assert.deepEqual(await created.poll(), []);
				},
			);
		});

		it(`Message Received, ${flagsLabel(flags)}`, async () => {
			await withSandbox({ ...ALTERNATIVES_SETTINGS, ...flags }, async (sandbox) => {
				const chat = sandbox.state.chats[0];
				const old = sandbox.customerWrites({ chatId: chat.id, count: 120 }).items;
				const w = watch(MessengerTrigger, sandbox, {
					event: 'messageReceived',
					chats: chat.id,
					direction: 'inbound',
					messageTypes: [],
				});
				assert.deepEqual(await w.poll(), [], 'first poll: baseline only');
				assert.deepEqual(await w.poll(), [], 'a quiet poll reports nothing');
				// Written 1 ms apart from now on: the next batch starts after the last one.
				const after = new Date(Date.parse(old[old.length - 1].createdAt) + 1000).toISOString();
				const { items } = sandbox.customerWrites({ chatId: chat.id, count: 130, createdAt: after });
				assert.deepEqual(
					(await w.poll()).map((m) => m.messageId),
					items.map((m) => m.id),
					'every new message once, oldest first',
				);
				assert.deepEqual(await w.poll(), []);
				const [latest] = await w.poll('manual');
				assert.equal(latest.messageId, items[items.length - 1].id, 'the sample is the newest');
			});
		});
	}

	it('Balance Low, balanceShape=unknown: activation and Fetch Test Event fail in our words', async () => {
		await withSandbox({ ...ALTERNATIVES_SETTINGS, balanceShape: 'unknown' }, async (sandbox) => {
			const params = { event: 'balanceLow', metric: 'credit', threshold: 50 };
			for (const mode of ['trigger', 'manual']) {
				const w = watch(VoiceAiTrigger, sandbox, params);
				await assert.rejects(w.poll(mode), (error) => {
					assert.equal(error.message, 'The balance has no numeric "credit" field');
					assert.match(error.description, /amountLeft \(number\).*ratePerMinute \(number\)/);
					return true;
				});
				assert.equal(w.staticData.poll, undefined, 'no baseline recorded');
			}
		});
	});

	for (const balanceShape of ['available', 'strings']) {
		it(`Balance Low, balanceShape=${balanceShape}: fires once when credit drops below`, async () => {
			await withSandbox({ ...ALTERNATIVES_SETTINGS, balanceShape }, async (sandbox) => {
				sandbox.state.balance.credit = 80;
				const w = watch(VoiceAiTrigger, sandbox, {
					event: 'balanceLow',
					metric: 'credit',
					threshold: 50,
				});
				assert.deepEqual(await w.poll(), []);
				assert.deepEqual(await w.poll(), []);
				sandbox.state.balance.credit = 12.5;
				const fired = await w.poll();
				assert.deepEqual(
					fired.map((e) => [e.metric, e.value, e.threshold, e.belowThreshold]),
					[['credit', 12.5, 50, true]],
				);
				assert.deepEqual(await w.poll(), []);
			});
		});
	}
});
