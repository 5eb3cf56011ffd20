// Messenger → WhatsApp Number → Get Many: every number of the account, and bad input refused
// before any request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Messenger } from '../../../nodes/Messenger/Messenger.node.ts';
import { scriptedNode } from '../../support/unit.mjs';

const { run, itRefusesBeforeAnyRequest } = scriptedNode(new Messenger());
const M = '/api/v1/messenger';

describe('Messenger operations hit their endpoints', () => {
	it('whatsappNumber getAll returns every number of a bare array with Return All', async () => {
		const numbers = [
			{ id: 'wan_1', phone: '+34910000001' },
			{ id: 'wan_2', phone: '+34910000002' },
		];
		const { output, calls } = await run(
			{ resource: 'whatsappNumber', operation: 'getAll', returnAll: true, options: {} },
			() => numbers,
		);
		assert.equal(calls.length, 1);
		assert.equal(calls[0].method, 'GET');
		assert.equal(calls[0].url, `${M}/messages/whatsapp-numbers`);
		assert.deepEqual(
			output.map((o) => o.json),
			numbers,
		);
	});
});

describe('bad input fails before any request, naming the field', () => {
	itRefusesBeforeAnyRequest([
		[
			{
				resource: 'whatsappNumber',
				operation: 'getAll',
				returnAll: true,
				options: { queryParameters: { parameter: [{ value: 'x' }] } },
			},
			/Additional Query Parameters has no name/,
		],
	]);
});
