// Voice AI → Campaign: Get, Cancel, Get Many (with the status filter) and Get Data (one item per
// number, across pages), bad input refused before any request, and Continue On Fail.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { VoiceAi } from '../../../nodes/VoiceAi/VoiceAi.node.ts';
import { byId, httpError } from '../../../tools/context.mjs';
import { scriptedNode } from '../../support/unit.mjs';

const { run, itSendsOneRequest, itRefusesBeforeAnyRequest } = scriptedNode(new VoiceAi());

describe('Voice AI operations hit their endpoints', () => {
	itSendsOneRequest([
		[
			'campaign get',
			{ resource: 'campaign', operation: 'get', campaignId: byId('cmp 1') },
			'GET',
			'/api/v1/voice/campaigns/cmp%201',
			{},
			{ id: 'cmp 1' },
		],
		[
			'campaign cancel',
			{ resource: 'campaign', operation: 'cancel', campaignId: byId('cmp_1') },
			'POST',
			'/api/v1/voice/campaigns/cmp_1/cancel',
			{},
			{ id: 'cmp_1', status: 'cancelled' },
		],
	]);

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
				campaignId: byId('cmp_1'),
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
});

describe('bad input fails before any request, naming the field', () => {
	itRefusesBeforeAnyRequest([
		[
			{ resource: 'campaign', operation: 'cancel', campaignId: byId('..') },
			/Campaign "\.\." is not a valid ID/,
		],
		[
			{ resource: 'campaign', operation: 'get', campaignId: byId('a?b=1') },
			/Campaign "a\?b=1" is not a valid ID/,
		],
	]);
});

describe('per-item behaviour', () => {
	it('with Continue On Fail, a failed item becomes an error item and the others go on', async () => {
		const { output } = await run(
			(i) => ({
				resource: 'campaign',
				operation: 'cancel',
				campaignId: byId(['cmp_ok', 'cmp_done', ''][i]),
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
});
