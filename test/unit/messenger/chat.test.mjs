// Messenger → Chat: the request each operation sends, paging through a chat's messages, bad input
// refused before any request, and an error item per failed chat with Continue On Fail.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Messenger } from '../../../nodes/Messenger/Messenger.node.ts';
import { httpError } from '../../../tools/context.mjs';
import { scriptedNode } from '../../support/unit.mjs';

const { run, itSendsOneRequest, itRefusesBeforeAnyRequest } = scriptedNode(new Messenger());
const M = '/api/v1/messenger';

describe('Messenger operations hit their endpoints', () => {
	const message = { id: 'msg_1', chatId: 'cht_1', status: 'sent' };
	itSendsOneRequest(
		[
			[
				'chat checkExisting (phone in the query)',
				{ resource: 'chat', operation: 'checkExisting', phone: '+34 600 123 456', options: {} },
				'GET',
				`${M}/chats/check-existing`,
				{ qs: { phone: '+34600123456' } },
			],
			[
				'chat markImportant (un-mark)',
				{
					resource: 'chat',
					operation: 'markImportant',
					chatId: 'cht_1',
					important: false,
					options: {},
				},
				'PATCH',
				`${M}/chats/cht_1/mark-important`,
				{ body: { important: false } },
			],
			[
				'chat reopen (no body)',
				{ resource: 'chat', operation: 'reopen', chatId: 'cht_1' },
				'PATCH',
				`${M}/chats/cht_1/reopen`,
				{ body: undefined },
			],
		],
		message,
	);

	it('chat getMessages pages with Limit, sorts and passes extra query parameters', async () => {
		const { output, calls } = await run(
			{
				resource: 'chat',
				operation: 'getMessages',
				chatId: 'cht_1',
				returnAll: false,
				limit: 2,
				options: {
					sort: 'asc',
					queryParameters: { parameter: [{ name: 'direction', value: 'inbound' }] },
				},
			},
			() => ({ items: [{ id: 'm1' }, { id: 'm2' }], total: 25, page: 1, totalPages: 13 }),
		);
		assert.equal(calls[0].url, `${M}/messages/chat/cht_1`);
		assert.deepEqual(calls[0].qs, { direction: 'inbound', sort: 'asc', page: 1, limit: 2 });
		assert.deepEqual(
			output.map((o) => o.json.id),
			['m1', 'm2'],
		);
	});

	it('chat getMessages with Return All follows totalPages', async () => {
		const { output, calls } = await run(
			{ resource: 'chat', operation: 'getMessages', chatId: 'cht_1', returnAll: true, options: {} },
			(options) => ({
				items: [{ id: `m${options.qs.page}` }],
				total: 3,
				page: options.qs.page,
				totalPages: 3,
			}),
		);
		assert.deepEqual(
			calls.map((c) => c.qs.page),
			[1, 2, 3],
		);
		assert.deepEqual(
			output.map((o) => o.json.id),
			['m1', 'm2', 'm3'],
		);
	});
});

describe('bad input fails before any request, naming the field', () => {
	itRefusesBeforeAnyRequest([
		[{ resource: 'chat', operation: 'checkExisting', phone: '', options: {} }, /Phone is empty/],
		[
			{ resource: 'chat', operation: 'getMessages', chatId: 'a#b', returnAll: true, options: {} },
			/Chat ID "a#b" is not a valid ID/,
		],
		[
			{
				resource: 'chat',
				operation: 'getMessages',
				chatId: 'c',
				returnAll: true,
				options: { queryParameters: { parameter: [{ name: '', value: '1' }] } },
			},
			/Additional Query Parameters has no name/,
		],
		[
			{ resource: 'chat', operation: 'markImportant', chatId: 'c', important: 'yes', options: {} },
			/Important must be true or false/,
		],
		[{ resource: 'chat', operation: 'reopen', chatId: 'a\\b' }, /Chat ID "a\\b" is not a valid ID/],
	]);
});

describe('errors from the API and per-item behaviour', () => {
	it('with Continue On Fail, each failure is an error item paired with its input', async () => {
		const { output, calls } = await run(
			(i) => ({
				resource: 'chat',
				operation: 'reopen',
				chatId: ['cht_closed', 'cht_open', 'bad/id', 'cht_gone'][i],
			}),
			(options) => {
				if (options.url.includes('cht_open'))
					throw httpError(409, {
						statusCode: 409,
						message: 'Chat is already open',
						error: 'Conflict',
					});
				if (options.url.includes('cht_gone'))
					throw httpError(404, { statusCode: 404, message: 'Chat not found', error: 'Not Found' });
				return { id: 'cht_closed', status: 'open' };
			},
			{ items: [{ json: {} }, { json: {} }, { json: {} }, { json: {} }], continueOnFail: true },
		);
		assert.equal(calls.length, 3, 'the invalid ID sent nothing');
		assert.deepEqual(output[0], {
			json: { id: 'cht_closed', status: 'open' },
			pairedItem: { item: 0 },
		});
		assert.match(output[1].json.error, /Chat "cht_open" is already open/);
		assert.match(output[1].json.description, /Chat is already open/);
		assert.equal(output[1].json.httpCode, '409');
		assert.deepEqual(output[1].pairedItem, { item: 1 });
		assert.match(output[2].json.error, /Chat ID "bad\/id" is not a valid ID/);
		assert.deepEqual(output[2].pairedItem, { item: 2 });
		assert.match(output[3].json.error, /Chat not found: "cht_gone"/);
		assert.deepEqual(output[3].pairedItem, { item: 3 });
	});
});
