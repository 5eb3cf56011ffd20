// Where the API description is silent, docs/api.md chose one answer; the real API may give
// another. Under each sandbox alternative (sandbox/alternatives.mjs) the affected operations
// return the same records as under docs/api.md, and the triggers report the same events, each
// once, none on the first poll.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Messenger } from '../../../nodes/Messenger/Messenger.node.ts';
import { MessengerTrigger } from '../../../nodes/Messenger/MessengerTrigger.node.ts';
import { VoiceAi } from '../../../nodes/VoiceAi/VoiceAi.node.ts';
import { VoiceAiTrigger } from '../../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { DEFAULT_ALTERNATIVES } from '../../../sandbox/alternatives.mjs';
import { DEMO_CLIENTS, startSandbox } from '../../../sandbox/server.mjs';
import { searchCampaigns } from '../../../nodes/VoiceAi/methods/listSearch.ts';
import { createLoadOptionsContext, createPollContext, sandboxHttp } from '../../../tools/context.mjs';
import { sandboxRunner } from '../../../tools/sandboxRun.mjs';

const rl = (value) => ({ __rl: true, mode: 'id', value });

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
const label = (flags) =>
	Object.entries(flags)
		.map(([k, v]) => `${k}=${v}`)
		.join(', ');
const SETTINGS = { port: 0, rateLimitPerMinute: 0, tokenRateLimitPerMinute: 0, seed: 7 };

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
	let sandbox;
	let voice;
	let messenger;
	before(async () => {
		// More campaigns than a page of 100: the picker scrolls and Return All pages in every shape.
		sandbox = await startSandbox({ ...SETTINGS, agentCount: 57, campaignCount: 130 });
		sandbox.customerWrites({ chatId: sandbox.state.chats[0].id, count: 130 });
		// Pacing is not under test here (and Return All over pages of 20 exceeds 100 requests).
		voice = sandboxRunner(VoiceAi, sandbox, DEMO_CLIENTS.full, { requestsPerMinute: 0 });
		messenger = sandboxRunner(Messenger, sandbox, DEMO_CLIENTS.full, { requestsPerMinute: 0 });
	});
	after(async () => sandbox.close());

	/** The campaign picker scrolled to its end, page token by page token. */
	const picker = async () => {
		const auth = sandboxHttp(sandbox, DEMO_CLIENTS.full, { requestsPerMinute: 0 });
		const context = createLoadOptionsContext({
			credentials: auth.store.data,
			http: auth.httpRequestWithAuthentication,
		});
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
		voice: [...(await Promise.all(operations.voice.map((p) => voice.run(p)))), await picker()],
		messenger: await Promise.all(operations.messenger.map((p) => messenger.run(p))),
	});
	const ids = (output) => output.map((o) => o.json.id ?? o.json.phoneNumber);

	for (const flags of LIST_FLAGS) {
		it(label(flags), async () => {
			const operations = listOperations(sandbox);
			sandbox.setOptions(DEFAULT_ALTERNATIVES);
			const expected = await runAll(operations);
			assert.ok(expected.voice.every((output) => output.length > 0));
			sandbox.setOptions(flags);
			try {
				const got = await runAll(operations);
				got.voice.forEach((output, i) =>
					assert.deepEqual(ids(output), ids(expected.voice[i]), label(operations.voice[i] ?? {})),
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

/** A trigger bound to one sandbox, one credential and one static data object, as in n8n. */
function watcher(NodeClass, sandbox, params) {
	const trigger = new NodeClass();
	const auth = sandboxHttp(sandbox, DEMO_CLIENTS.full, { requestsPerMinute: 0 });
	const staticData = {};
	const poll = async (mode = 'trigger') => {
		const { context } = createPollContext({
			params,
			http: auth.httpRequestWithAuthentication,
			credentials: auth.store.data,
			staticData,
			mode,
		});
		const result = await trigger.poll.call(context);
		return result ? result[0].map((i) => i.json) : [];
	};
	return { poll, staticData };
}

const active = (c) => c.status === 'pending' || c.status === 'in_progress';

describe('triggers under each alternative: the same events, each once, none on the first poll', () => {
	// An API that ignores `sort` on campaigns: the triggers read their pages oldest first.
	for (const flags of [...LIST_FLAGS, { campaignOrder: 'asc', fixedPageSize: 20 }]) {
		it(`Campaign Status Changed and New Campaign, ${label(flags)}`, async () => {
			const sandbox = await startSandbox({
				...SETTINGS,
				campaignCount: 57,
				activeCampaignCount: 24,
				...flags,
			});
			try {
				const changes = watcher(VoiceAiTrigger, sandbox, {
					event: 'campaignStatusChanged',
					campaignScope: 'all',
					statuses: [],
				});
				const created = watcher(VoiceAiTrigger, sandbox, { event: 'newCampaign' });
				assert.deepEqual(await changes.poll(), [], 'first poll: baseline only');
				assert.deepEqual(await created.poll(), []);
				assert.deepEqual(await changes.poll(), [], 'a quiet poll reports nothing');
				assert.deepEqual(await created.poll(), []);

				const before = new Map(sandbox.state.campaigns.filter(active).map((c) => [c.id, c.status]));
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
			} finally {
				await sandbox.close();
			}
		});

		it(`Message Received, ${label(flags)}`, async () => {
			const sandbox = await startSandbox({ ...SETTINGS, ...flags });
			try {
				const chat = sandbox.state.chats[0];
				const old = sandbox.customerWrites({ chatId: chat.id, count: 120 }).items;
				const w = watcher(MessengerTrigger, sandbox, {
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
			} finally {
				await sandbox.close();
			}
		});
	}

	it('Balance Low, balanceShape=unknown: activation and Fetch Test Event fail in our words', async () => {
		const sandbox = await startSandbox({ ...SETTINGS, balanceShape: 'unknown' });
		try {
			const params = { event: 'balanceLow', metric: 'credit', threshold: 50 };
			for (const mode of ['trigger', 'manual']) {
				const w = watcher(VoiceAiTrigger, sandbox, params);
				await assert.rejects(w.poll(mode), (error) => {
					assert.equal(error.message, 'The balance has no numeric "credit" field');
					assert.match(error.description, /amountLeft \(number\).*ratePerMinute \(number\)/);
					return true;
				});
				assert.equal(w.staticData.poll, undefined, 'no baseline recorded');
			}
		} finally {
			await sandbox.close();
		}
	});

	for (const balanceShape of ['available', 'strings']) {
		it(`Balance Low, balanceShape=${balanceShape}: fires once when credit drops below`, async () => {
			const sandbox = await startSandbox({ ...SETTINGS, balanceShape });
			try {
				sandbox.state.balance.credit = 80;
				const w = watcher(VoiceAiTrigger, sandbox, {
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
			} finally {
				await sandbox.close();
			}
		});
	}
});

describe('tokens under each alternative: one token per lifetime, renewed once when it expires', () => {
	const TOKEN_FLAGS = [
		{ expiresInUnit: 'ms' },
		{ opaqueToken: true },
		{ opaqueToken: true, expiresInUnit: 'ms' },
		// 40 days: longer than a timer can wait (2^31 - 1 ms, about 24.8 days).
		{ opaqueToken: true, tokenLifetimeSeconds: 40 * 24 * 3600 },
	];
	const agents = {
		resource: 'agent',
		operation: 'getAll',
		returnAll: false,
		limit: 1,
		options: {},
	};

	for (const flags of TOKEN_FLAGS) {
		it(label(flags), async () => {
			const sandbox = await startSandbox({ ...SETTINGS, ...flags });
			try {
				const voice = sandboxRunner(VoiceAi, sandbox, DEMO_CLIENTS.full, { requestsPerMinute: 0 });
				for (let run = 0; run < 20; run++) assert.equal((await voice.run(agents)).length, 1);
				await Promise.all(Array.from({ length: 10 }, () => voice.run(agents)));
				assert.equal(sandbox.tokensIssued, 1, 'one token for 30 executions');
				sandbox.expireTokens();
				for (let run = 0; run < 5; run++) await voice.run(agents);
				assert.equal(sandbox.tokensIssued, 2, 'a revoked token is renewed once');
			} finally {
				await sandbox.close();
			}
		});
	}

	it('a token that really expires after 2 s, announced in ms as an opaque token', async () => {
		const sandbox = await startSandbox({
			...SETTINGS,
			// Whole seconds: a 2 s token lives from 1 to 2 s, long enough for the runs below.
			tokenLifetimeSeconds: 2,
			expiresInUnit: 'ms',
			opaqueToken: true,
		});
		try {
			const voice = sandboxRunner(VoiceAi, sandbox, DEMO_CLIENTS.full, { requestsPerMinute: 0 });
			await voice.run(agents);
			await new Promise((resolve) => setTimeout(resolve, 2100));
			// One after the other: this test double keeps one token store for all executions.
			for (let run = 0; run < 5; run++) await voice.run(agents);
			assert.equal(sandbox.tokensIssued, 2, 'expired: renewed once, not per execution');
			assert.ok(sandbox.log.filter((e) => e.status === 401).length >= 1);
		} finally {
			await sandbox.close();
		}
	});
});

describe('errors and sends of another shape', () => {
	for (const errorShape of ['problem', 'text']) {
		it(`errorShape=${errorShape}: our message, the server's words in the description`, async () => {
			const sandbox = await startSandbox({ ...SETTINGS, errorShape });
			try {
				const voice = sandboxRunner(VoiceAi, sandbox, DEMO_CLIENTS.full, { requestsPerMinute: 0 });
				await assert.rejects(
					voice.run({ resource: 'agent', operation: 'get', agentId: rl('agt_nope') }),
					(error) => {
						assert.equal(error.message, 'Agent not found: "agt_nope" (404). Check the ID.');
						assert.match(error.description, /The server said: Agent not found/);
						return true;
					},
				);
				const messenger = sandboxRunner(Messenger, sandbox, DEMO_CLIENTS.full, {
					requestsPerMinute: 0,
				});
				const chat = sandbox.state.chats.find((c) => c.status === 'open');
				await assert.rejects(
					messenger.run({ resource: 'chat', operation: 'reopen', chatId: chat.id }),
					(error) => {
						assert.match(error.message, /is already open/);
						assert.match(error.description, /The server said: Chat is already open/);
						return true;
					},
				);
				const wrong = sandboxRunner(
					VoiceAi,
					sandbox,
					{ ...DEMO_CLIENTS.full, clientSecret: 'not-the-secret' },
					{ requestsPerMinute: 0 },
				);
				await assert.rejects(
					wrong.run({ resource: 'agent', operation: 'getAll', returnAll: false, limit: 1 }),
					(error) => {
						assert.match(error.message, /rejected the Client ID or Client Secret \(HTTP 401\)/);
						assert.match(error.description, /The server said: Invalid client credentials/);
						return true;
					},
				);
			} finally {
				await sandbox.close();
			}
		});
	}

	it('sendAnswer=empty: a send answered 201 without a body is one success item, sent once', async () => {
		const sandbox = await startSandbox({ ...SETTINGS, sendAnswer: 'empty' });
		try {
			const messenger = sandboxRunner(Messenger, sandbox, DEMO_CLIENTS.full, {
				requestsPerMinute: 0,
			});
			const chat = sandbox.state.chats.find((c) => c.status === 'open');
			const before = sandbox.state.messages.length;
			const output = await messenger.run({
				resource: 'message',
				operation: 'sendMedia',
				chatId: chat.id,
				url: 'https://example.com/brochure.pdf',
				mediaType: 'document',
				options: {},
			});
			assert.equal(output.length, 1);
			assert.equal(output[0].json.error, undefined);
			assert.equal(sandbox.state.messages.length, before + 1);
			assert.deepEqual(
				sandbox.log
					.filter((e) => e.method === 'POST' && e.path.includes('/send/'))
					.map((e) => e.status),
				[201],
			);
		} finally {
			await sandbox.close();
		}
	});
});
