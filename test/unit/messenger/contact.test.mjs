// Messenger → Contact: the request each operation sends, the search, bad input refused before any
// request, and an API error that stops the node naming the item.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Messenger } from '../../../nodes/Messenger/Messenger.node.ts';
import { byId, httpError } from '../../../tools/context.mjs';
import { NodeApiError } from '../../../tools/nodeShared.mjs';
import { scriptedNode } from '../../support/unit.mjs';

const { run, itSendsOneRequest, itRefusesBeforeAnyRequest } = scriptedNode(new Messenger());
const M = '/api/v1/messenger';

describe('Messenger operations hit their endpoints', () => {
	const message = { id: 'msg_1', chatId: 'cht_1', status: 'sent' };
	itSendsOneRequest(
		[
			[
				'contact create',
				{
					resource: 'contact',
					operation: 'create',
					name: ' Lucia Garcia ',
					phone: '+34600123456',
					options: { email: 'lucia@example.com', attributes: '{"plan":"gold"}' },
				},
				'POST',
				`${M}/contacts`,
				{
					body: {
						name: 'Lucia Garcia',
						phone: '+34600123456',
						email: 'lucia@example.com',
						attributes: { plan: 'gold' },
					},
				},
			],
			[
				'contact get',
				{ resource: 'contact', operation: 'get', contactId: byId('ctc_1') },
				'GET',
				`${M}/contacts/ctc_1`,
				{},
			],
			[
				'contact updateAttribute (text)',
				{
					resource: 'contact',
					operation: 'updateAttribute',
					contactId: byId('ctc_1'),
					key: 'plan',
					valueType: 'text',
					value: 'gold',
					options: {},
				},
				'PATCH',
				`${M}/contacts/ctc_1/attributes/plan`,
				{ body: { value: 'gold' } },
			],
			[
				'contact updateAttribute (JSON, key encoded)',
				{
					resource: 'contact',
					operation: 'updateAttribute',
					contactId: byId('ctc_1'),
					key: 'score?x',
					valueType: 'json',
					value: '{"n": 3}',
					options: {},
				},
				'PATCH',
				`${M}/contacts/ctc_1/attributes/score%3Fx`,
				{ body: { value: { n: 3 } } },
			],
			[
				'contact replaceAttributes',
				{
					resource: 'contact',
					operation: 'replaceAttributes',
					contactId: byId('ctc_1'),
					attributes: { city: 'Madrid' },
					options: {},
				},
				'PUT',
				`${M}/contacts/ctc_1/attributes`,
				{ body: { attributes: { city: 'Madrid' } } },
			],
		],
		message,
	);

	it('contact search reads a bare array, encodes the term and cuts to Limit', async () => {
		const { output, calls } = await run(
			{
				resource: 'contact',
				operation: 'search',
				customer: ' garcía/x ',
				returnAll: false,
				limit: 2,
				options: {},
			},
			() => [{ id: 'c1' }, { id: 'c2' }, { id: 'c3' }],
		);
		assert.equal(calls.length, 1);
		assert.equal(calls[0].url, `${M}/contacts/search/garc%C3%ADa%2Fx`);
		assert.deepEqual(
			output.map((o) => o.json.id),
			['c1', 'c2'],
		);
	});
});

describe('bad input fails before any request, naming the field', () => {
	const create = (extra) => ({
		resource: 'contact',
		operation: 'create',
		name: 'Ana',
		phone: '+34600123456',
		options: {},
		...extra,
	});
	const attribute = (extra) => ({
		resource: 'contact',
		operation: 'updateAttribute',
		contactId: byId('ctc_1'),
		key: 'plan',
		valueType: 'text',
		value: 'x',
		options: {},
		...extra,
	});
	itRefusesBeforeAnyRequest([
		[create({ name: '' }), /Name is empty/],
		[create({ name: 'n'.repeat(257) }), /Name is too long/],
		[create({ phone: '12' }), /Phone "12" is not a phone number/],
		[create({ options: { email: 'lucia@' } }), /Email "lucia@" is not an email address/],
		[
			create({ options: { attributes: '{"plan": gold}' } }),
			/Attributes \(JSON\) is not valid JSON/,
		],
		[create({ options: { attributes: '[1]' } }), /Attributes \(JSON\) must be a JSON object/],
		[{ resource: 'contact', operation: 'get', contactId: byId('') }, /Contact is empty/],
		[
			{ resource: 'contact', operation: 'get', contactId: byId('../../auth/token') },
			/Contact "\.\.\/\.\.\/auth\/token" is not a valid ID/,
		],
		[
			{ resource: 'contact', operation: 'search', customer: '', returnAll: true, options: {} },
			/Search Term is empty/,
		],
		[
			{ resource: 'contact', operation: 'search', customer: '..', returnAll: true, options: {} },
			/Search Term "\.\." cannot be searched for/,
		],
		[attribute({ key: '' }), /Attribute Key is empty/],
		[attribute({ key: 'a/b' }), /Attribute Key "a\/b" is not a valid key/],
		[attribute({ key: '..' }), /Attribute Key "\.\." is not a valid key/],
		[attribute({ valueType: 'json', value: '{nope' }), /Value is not valid JSON/],
		[attribute({ contactId: byId('a?b') }), /Contact "a\?b" is not a valid ID/],
		[
			{
				resource: 'contact',
				operation: 'replaceAttributes',
				contactId: byId('ctc_1'),
				attributes: '{"a":',
				options: {},
			},
			/Attributes \(JSON\) is not valid JSON/,
		],
		[
			{
				resource: 'contact',
				operation: 'replaceAttributes',
				contactId: byId('ctc_1'),
				attributes: 42,
				options: {},
			},
			/Attributes \(JSON\) must be a JSON object/,
		],
	]);
});

describe('errors from the API and per-item behaviour', () => {
	it('without Continue On Fail, the error stops the node and names the item', async () => {
		await assert.rejects(
			run(
				(i) => ({
					resource: 'contact',
					operation: 'create',
					name: 'Ana',
					phone: ['+34600000001', '+34600000002'][i],
					options: {},
				}),
				(options) => {
					if (options.body.phone === '+34600000002')
						throw httpError(409, { message: 'Contact with phone +34600000002 already exists' });
					return { id: 'ctc_1' };
				},
				{ items: [{ json: {} }, { json: {} }] },
			),
			(error) => {
				assert.ok(error instanceof NodeApiError);
				assert.match(error.message, /A contact with the phone \+34600000002 already exists/);
				assert.equal(error.context.itemIndex, 1);
				return true;
			},
		);
	});
});
