// Voice AI → Agent: Get and Get Many, bad input refused before any request, and one run per input
// item, paired with it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { VoiceAi } from '../../../nodes/VoiceAi/VoiceAi.node.ts';
import { byId, httpError } from '../../../tools/context.mjs';
import { NodeApiError } from '../../../tools/nodeShared.mjs';
import { scriptedNode } from '../../support/unit.mjs';

const { run, itSendsOneRequest, itRefusesBeforeAnyRequest } = scriptedNode(new VoiceAi());

describe('Voice AI operations hit their endpoints', () => {
	itSendsOneRequest([
		[
			'agent get',
			{ resource: 'agent', operation: 'get', agentId: byId('agt_1') },
			'GET',
			'/api/v1/voice/agents/agt_1',
			{},
			{ id: 'agt_1' },
		],
	]);

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
});

describe('bad input fails before any request, naming the field', () => {
	itRefusesBeforeAnyRequest([
		[{ resource: 'agent', operation: 'get', agentId: byId('') }, /Agent is empty/],
		[
			{ resource: 'agent', operation: 'get', agentId: byId('../auth/token') },
			/Agent "\.\.\/auth\/token" is not a valid ID/,
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
	]);
});

describe('per-item behaviour', () => {
	it('runs once per input item and pairs each output with its input', async () => {
		const ids = ['agt_a', 'agt_b', 'agt_c'];
		const { output, calls } = await run(
			(i) => ({ resource: 'agent', operation: 'get', agentId: byId(ids[i]) }),
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

	it('without Continue On Fail, the error stops the node and says which item failed', async () => {
		await assert.rejects(
			run(
				(i) => ({
					resource: 'agent',
					operation: 'get',
					agentId: byId(['agt_a', 'agt_missing'][i]),
				}),
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
