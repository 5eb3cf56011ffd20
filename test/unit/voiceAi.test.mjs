import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { VoiceAi } from '../../nodes/VoiceAi/VoiceAi.node.ts';
import { searchAgents, searchCampaigns } from '../../nodes/VoiceAi/methods/listSearch.ts';
import {
	createExecuteContext,
	createLoadOptionsContext,
	httpError,
	scriptedHttp,
} from '../../tools/context.mjs';
import { NodeApiError, NodeOperationError } from '../../tools/nodeShared.mjs';

const node = new VoiceAi();

/** Runs the node with `params` (object or per-item function) against `respond(options)`. */
async function run(params, respond, { items = [{ json: {} }], continueOnFail = false } = {}) {
	const { http, calls } = scriptedHttp(respond, {
		name: 'Voice AI',
		type: 'voiceAi',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	});
	const context = createExecuteContext({
		params,
		items,
		http,
		continueOnFail,
		credentials: { baseUrl: 'https://api.example.com' },
	});
	const output = await node.execute.call(context);
	return { output: output[0], calls };
}

const rl = (value) => ({ __rl: true, mode: 'id', value });

describe('Voice AI node description', () => {
	it('offers every resource and operation of the node map', () => {
		const resource = node.description.properties.find((p) => p.name === 'resource');
		assert.deepEqual(resource.options.map((o) => o.value).sort(), [
			'agent',
			'billing',
			'campaign',
			'report',
		]);
		const operationsOf = (name) =>
			node.description.properties
				.filter((p) => p.name === 'operation' && p.displayOptions.show.resource.includes(name))
				.flatMap((p) => p.options.map((o) => o.value))
				.sort();
		assert.deepEqual(operationsOf('agent'), ['get', 'getAll']);
		assert.deepEqual(operationsOf('campaign'), ['cancel', 'get', 'getAll', 'getData']);
		assert.deepEqual(operationsOf('billing'), ['getBalance']);
		assert.deepEqual(operationsOf('report'), ['getCallTrends']);
		assert.equal(node.description.usableAsTool, true);
		assert.deepEqual(node.description.credentials, [{ name: 'voiceMessagingApi', required: true }]);
	});
});

describe('Voice AI operations hit their endpoints', () => {
	const cases = [
		[
			{ resource: 'agent', operation: 'get', agentId: rl('agt_1') },
			'GET',
			'/api/v1/voice/agents/agt_1',
			{ id: 'agt_1' },
		],
		[
			{ resource: 'campaign', operation: 'get', campaignId: rl('cmp 1') },
			'GET',
			'/api/v1/voice/campaigns/cmp%201',
			{ id: 'cmp 1' },
		],
		[
			{ resource: 'campaign', operation: 'cancel', campaignId: rl('cmp_1') },
			'POST',
			'/api/v1/voice/campaigns/cmp_1/cancel',
			{ id: 'cmp_1', status: 'cancelled' },
		],
		[
			{ resource: 'billing', operation: 'getBalance' },
			'GET',
			'/api/v1/voice/billing/balance',
			{ credit: 12.5, currency: 'EUR', minutes: 90, ratePerMinute: 0.14 },
		],
	];
	for (const [params, method, path, answer] of cases) {
		it(`${params.resource} ${params.operation} → ${method} ${path}`, async () => {
			const { output, calls } = await run(params, () => answer);
			assert.equal(calls.length, 1);
			assert.equal(calls[0].method, method);
			assert.equal(calls[0].url, path);
			assert.deepEqual(output, [{ json: answer, pairedItem: { item: 0 } }]);
		});
	}

	it('agent getAll with Limit asks for one page of that size, sorted as chosen, plus extra query', async () => {
		const { output, calls } = await run(
			{
				resource: 'agent',
				operation: 'getAll',
				returnAll: false,
				limit: 3,
				options: {
					sort: 'asc',
					queryParameters: { parameter: [{ name: 'provider', value: 'x' }] },
				},
			},
			() => ({ items: [{ id: 'a' }, { id: 'b' }, { id: 'c' }], total: 9, page: 1, totalPages: 3 }),
		);
		assert.deepEqual(
			calls.map((c) => c.qs),
			[{ sort: 'asc', provider: 'x', page: 1, limit: 3 }],
		);
		assert.deepEqual(
			output.map((o) => o.json.id),
			['a', 'b', 'c'],
		);
		assert.ok(output.every((o) => o.pairedItem.item === 0));
	});

	it('campaign getAll passes the status filter', async () => {
		const { calls } = await run(
			{
				resource: 'campaign',
				operation: 'getAll',
				returnAll: true,
				filters: { status: 'failed' },
				options: {},
			},
			() => ({ items: [], total: 0, page: 1, totalPages: 0 }),
		);
		assert.equal(calls[0].url, '/api/v1/voice/campaigns');
		assert.deepEqual(calls[0].qs, { status: 'failed', page: 1, limit: 100 });
	});

	it('campaign getData gives one item per number across pages', async () => {
		const { output, calls } = await run(
			{
				resource: 'campaign',
				operation: 'getData',
				campaignId: rl('cmp_1'),
				returnAll: true,
				options: {},
			},
			(options) => ({
				items: [{ phoneNumber: `+3460000000${options.qs.page}`, status: 'answered' }],
				total: 2,
				page: options.qs.page,
				totalPages: 2,
			}),
		);
		assert.deepEqual(
			calls.map((c) => c.url),
			['/api/v1/voice/campaigns/cmp_1/data', '/api/v1/voice/campaigns/cmp_1/data'],
		);
		assert.deepEqual(
			output.map((o) => o.json.phoneNumber),
			['+34600000001', '+34600000002'],
		);
	});

	it('report getCallTrends sends from/to/granularity and splits periods into items', async () => {
		const periods = [
			{ period: '2026-01-01', calls: 3 },
			{ period: '2026-01-02', calls: 5 },
		];
		const { output, calls } = await run(
			{
				resource: 'report',
				operation: 'getCallTrends',
				from: '2026-01-01',
				to: '2026-01-31',
				granularity: 'week',
				options: {},
			},
			() => ({ items: periods }),
		);
		assert.equal(calls[0].url, '/api/v1/voice/reports/trends');
		assert.deepEqual(calls[0].qs, { from: '2026-01-01', to: '2026-01-31', granularity: 'week' });
		assert.deepEqual(
			output.map((o) => o.json),
			periods,
		);
	});

	it('report getCallTrends can keep the whole answer as one item', async () => {
		const answer = { items: [{ period: 'p' }], currency: 'EUR' };
		const { output } = await run(
			{
				resource: 'report',
				operation: 'getCallTrends',
				from: '2026-01-01',
				to: '2026-01-31',
				granularity: 'day',
				options: { splitIntoItems: false },
			},
			() => answer,
		);
		assert.deepEqual(
			output.map((o) => o.json),
			[answer],
		);
	});

	it('report getCallTrends splits periods of another envelope too, and keeps any other answer whole', async () => {
		const params = {
			resource: 'report',
			operation: 'getCallTrends',
			from: '2026-01-01',
			to: '2026-01-31',
			granularity: 'day',
			options: {},
		};
		const periods = [{ period: 'a' }, { period: 'b' }];
		for (const answer of [{ data: periods, meta: {} }, periods]) {
			const { output } = await run(params, () => answer);
			assert.deepEqual(
				output.map((o) => o.json),
				periods,
			);
		}
		const other = { summary: { calls: 3 } };
		const { output } = await run(params, () => other);
		assert.deepEqual(
			output.map((o) => o.json),
			[other],
		);
	});
});

describe('bad input fails before any request, naming the field', () => {
	const bad = [
		[{ resource: 'agent', operation: 'get', agentId: rl('') }, /Agent is empty/],
		[
			{ resource: 'agent', operation: 'get', agentId: rl('../auth/token') },
			/Agent "\.\.\/auth\/token" is not a valid ID/,
		],
		[
			{ resource: 'campaign', operation: 'cancel', campaignId: rl('..') },
			/Campaign "\.\." is not a valid ID/,
		],
		[
			{ resource: 'campaign', operation: 'get', campaignId: rl('a?b=1') },
			/Campaign "a\?b=1" is not a valid ID/,
		],
		[
			{
				resource: 'report',
				operation: 'getCallTrends',
				from: 'yesterday-ish',
				to: '2026-01-31',
				granularity: 'day',
				options: {},
			},
			/From "yesterday-ish" is not a date/,
		],
		[
			{
				resource: 'report',
				operation: 'getCallTrends',
				from: '2026-02-01',
				to: '2026-01-01',
				granularity: 'day',
				options: {},
			},
			/From \(2026-02-01\) is after To/,
		],
		[
			{
				resource: 'agent',
				operation: 'getAll',
				returnAll: true,
				options: { queryParameters: { parameter: [{ name: ' ', value: '1' }] } },
			},
			/Additional Query Parameters has no name/,
		],
	];
	for (const [params, message] of bad) {
		it(`${params.resource} ${params.operation}: ${message.source}`, async () => {
			let requests = 0;
			await assert.rejects(
				run(params, () => {
					requests++;
					return {};
				}),
				(error) => {
					assert.ok(error instanceof NodeOperationError, error.constructor.name);
					assert.match(error.message, message);
					assert.equal(error.context.itemIndex, 0);
					return true;
				},
			);
			assert.equal(requests, 0);
		});
	}
});

describe('per-item behaviour', () => {
	it('runs once per input item and pairs each output with its input', async () => {
		const ids = ['agt_a', 'agt_b', 'agt_c'];
		const { output, calls } = await run(
			(i) => ({ resource: 'agent', operation: 'get', agentId: rl(ids[i]) }),
			(options) => ({ id: options.url.split('/').pop() }),
			{ items: ids.map(() => ({ json: {} })) },
		);
		assert.deepEqual(
			calls.map((c) => c.url.split('/').pop()),
			ids,
		);
		assert.deepEqual(
			output.map((o) => [o.json.id, o.pairedItem.item]),
			[
				['agt_a', 0],
				['agt_b', 1],
				['agt_c', 2],
			],
		);
	});

	it('with Continue On Fail, a failed item becomes an error item and the others go on', async () => {
		const { output } = await run(
			(i) => ({
				resource: 'campaign',
				operation: 'cancel',
				campaignId: rl(['cmp_ok', 'cmp_done', ''][i]),
			}),
			(options) => {
				if (options.url.includes('cmp_done'))
					throw httpError(409, { message: 'Campaign is already completed' });
				return { id: 'cmp_ok', status: 'cancelled' };
			},
			{ items: [{ json: {} }, { json: {} }, { json: {} }], continueOnFail: true },
		);
		assert.equal(output.length, 3);
		assert.deepEqual(output[0], {
			json: { id: 'cmp_ok', status: 'cancelled' },
			pairedItem: { item: 0 },
		});
		assert.match(output[1].json.error, /Campaign "cmp_done" is already finished/);
		assert.match(output[1].json.description, /Campaign is already completed/);
		assert.equal(output[1].json.httpCode, '409');
		assert.deepEqual(output[1].pairedItem, { item: 1 });
		assert.match(output[2].json.error, /Campaign is empty/);
		assert.deepEqual(output[2].pairedItem, { item: 2 });
	});

	it('without Continue On Fail, the error stops the node and says which item failed', async () => {
		await assert.rejects(
			run(
				(i) => ({ resource: 'agent', operation: 'get', agentId: rl(['agt_a', 'agt_missing'][i]) }),
				(options) => {
					if (options.url.endsWith('agt_missing'))
						throw httpError(404, { message: 'Agent not found' });
					return { id: 'agt_a' };
				},
				{ items: [{ json: {} }, { json: {} }] },
			),
			(error) => {
				assert.ok(error instanceof NodeApiError);
				assert.match(error.message, /Agent not found: "agt_missing"/);
				assert.equal(error.context.itemIndex, 1);
				return true;
			},
		);
	});
});

describe('resource locator searches', () => {
	function listContext(pages) {
		const { http, calls } = scriptedHttp((options) => pages[options.qs.page - 1]);
		return {
			context: createLoadOptionsContext({
				credentials: { baseUrl: 'https://api.example.com' },
				http,
			}),
			calls,
		};
	}

	it('lists agents newest first, filters by name or id, and pages on', async () => {
		const { context, calls } = listContext([
			{
				items: [
					{ id: 'agt_1', name: 'Sales Bot', call_type: 'outbound', status: 'active' },
					{ id: 'agt_2', name: 'Support', call_type: 'inbound', status: 'inactive' },
				],
				totalPages: 2,
			},
		]);
		const all = await searchAgents.call(context);
		assert.deepEqual(all.results, [
			{ name: 'Sales Bot (outbound, active)', value: 'agt_1' },
			{ name: 'Support (inbound, inactive)', value: 'agt_2' },
		]);
		assert.equal(all.paginationToken, '2');
		const filtered = await searchAgents.call(context, 'sales');
		assert.deepEqual(
			filtered.results.map((r) => r.value),
			['agt_1'],
		);
		assert.deepEqual(calls[0].qs, { page: 1, limit: 100, sort: 'desc' });
	});

	it('lists campaigns with their status and stops paging on the last page', async () => {
		const { context, calls } = listContext([
			{ items: [] },
			{ items: [{ id: 'cmp_9', name: 'Renewals', status: 'pending' }], totalPages: 2 },
		]);
		const page2 = await searchCampaigns.call(context, undefined, '2');
		assert.deepEqual(page2.results, [{ name: 'Renewals (pending)', value: 'cmp_9' }]);
		assert.equal(page2.paginationToken, undefined);
		assert.equal(calls[0].url, '/api/v1/voice/campaigns');
	});
});
