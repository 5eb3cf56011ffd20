import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

import { Messenger } from '../../nodes/Messenger/Messenger.node.ts';
import {
	ALLOWED_UPLOAD_DOCUMENT_TYPES,
	ALLOWED_UPLOAD_MIME_PREFIXES,
	isAllowedUploadType,
	UPLOAD_DOCUMENT_EXTENSIONS,
} from '../../nodes/Messenger/actions/message/media.ts';
import { searchContacts } from '../../nodes/Messenger/methods/listSearch.ts';
import { getWhatsappNumbers } from '../../nodes/Messenger/methods/loadOptions.ts';
import { binaryItem, parseMultipart } from '../../tools/binary.mjs';
import {
	createExecuteContext,
	createLoadOptionsContext,
	httpError,
	scriptedHttp,
} from '../../tools/context.mjs';
import { NodeApiError, NodeOperationError } from '../../tools/nodeShared.mjs';

const node = new Messenger();
const NODE = {
	name: 'Messenger',
	type: 'messenger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** Runs the node with `params` (object or per-item function) against `respond(options)`. */
async function run(
	params,
	respond = () => ({}),
	{ items = [{ json: {} }], continueOnFail = false, binary, stored } = {},
) {
	const { http, calls } = scriptedHttp(respond, NODE);
	const context = createExecuteContext({
		params,
		items,
		http,
		continueOnFail,
		binary,
		stored,
		credentials: { baseUrl: 'https://api.example.com' },
	});
	const output = await node.execute.call(context);
	return { output: output[0], calls };
}

const rl = (value) => ({ __rl: true, mode: 'id', value });
const M = '/api/v1/messenger';

describe('Messenger node description', () => {
	it('offers every resource and operation of the node map, each with an action', () => {
		const resource = node.description.properties.find((p) => p.name === 'resource');
		assert.deepEqual(
			resource.options.map((o) => o.value),
			['broadcast', 'chat', 'contact', 'message', 'whatsappNumber'],
		);
		const operationsOf = (name) =>
			node.description.properties
				.filter((p) => p.name === 'operation' && p.displayOptions.show.resource.includes(name))
				.flatMap((p) => p.options)
				.map((o) => {
					assert.ok(o.action, `${name}.${o.value} has an action`);
					return o.value;
				})
				.sort();
		assert.deepEqual(operationsOf('message'), [
			'get',
			'removeReaction',
			'sendAndWait',
			'sendLocation',
			'sendMedia',
			'sendMediaFile',
			'sendMediaToPhone',
		]);
		assert.deepEqual(operationsOf('chat'), [
			'checkExisting',
			'getMessages',
			'markImportant',
			'reopen',
		]);
		assert.deepEqual(operationsOf('contact'), [
			'create',
			'get',
			'replaceAttributes',
			'search',
			'updateAttribute',
		]);
		assert.deepEqual(operationsOf('broadcast'), ['getStatus', 'send']);
		assert.deepEqual(operationsOf('whatsappNumber'), ['getAll']);
		assert.equal(node.description.name, 'messenger');
		assert.equal(node.description.usableAsTool, true);
		assert.deepEqual(node.description.credentials, [{ name: 'voiceMessagingApi', required: true }]);
		assert.deepEqual(Object.keys(node.methods.listSearch), ['searchContacts']);
		assert.deepEqual(Object.keys(node.methods.loadOptions), ['getWhatsappNumbers']);
	});

	it('tells AI agents that Send Media File needs binary input', () => {
		const option = node.description.properties
			.find((p) => p.name === 'operation' && p.displayOptions.show.resource.includes('message'))
			.options.find((o) => o.value === 'sendMediaFile');
		assert.match(option.description, /not for AI agents/);
	});

	it('contact locators search with a required filter; the sending number is a dropdown', () => {
		const locators = node.description.properties.filter((p) => p.name === 'contactId');
		assert.equal(locators.length, 3);
		for (const locator of locators) {
			assert.equal(locator.type, 'resourceLocator');
			assert.deepEqual(locator.modes.find((m) => m.name === 'list').typeOptions, {
				searchListMethod: 'searchContacts',
				searchable: true,
				searchFilterRequired: true,
			});
		}
		const optionCollections = node.description.properties.filter(
			(p) =>
				p.name === 'options' &&
				['sendMediaToPhone', 'send'].includes(p.displayOptions.show.operation[0]),
		);
		assert.equal(optionCollections.length, 2);
		for (const options of optionCollections) {
			const number = options.options.find((o) => o.name === 'whatsappNumberId');
			assert.equal(number.typeOptions.loadOptionsMethod, 'getWhatsappNumbers');
		}
	});
});

describe('Messenger operations hit their endpoints', () => {
	const message = { id: 'msg_1', chatId: 'cht_1', status: 'sent' };
	const cases = [
		[
			'message sendMedia',
			{
				resource: 'message',
				operation: 'sendMedia',
				chatId: 'cht_1',
				url: 'https://example.com/a.pdf',
				mediaType: 'document',
				options: { caption: 'Your invoice', fileName: 'invoice.pdf' },
			},
			'POST',
			`${M}/messages/send/media`,
			{
				body: {
					chatId: 'cht_1',
					url: 'https://example.com/a.pdf',
					type: 'document',
					caption: 'Your invoice',
					fileName: 'invoice.pdf',
				},
			},
		],
		[
			'message sendMediaToPhone (phone normalised, sending number)',
			{
				resource: 'message',
				operation: 'sendMediaToPhone',
				phone: '0034 600-123-456',
				url: 'http://example.com/v.mp4',
				mediaType: 'video',
				options: { whatsappNumberId: 'wan_2' },
			},
			'POST',
			`${M}/messages/send/media-to-phone`,
			{
				body: {
					phone: '+34600123456',
					url: 'http://example.com/v.mp4',
					type: 'video',
					whatsappNumberId: 'wan_2',
				},
			},
		],
		[
			'message sendLocation (numeric text accepted)',
			{
				resource: 'message',
				operation: 'sendLocation',
				chatId: 'cht_1',
				latitude: '40.4168',
				longitude: -3.7038,
				options: { name: 'Office', address: 'Puerta del Sol' },
			},
			'POST',
			`${M}/messages/send/location`,
			{
				body: {
					chatId: 'cht_1',
					latitude: 40.4168,
					longitude: -3.7038,
					name: 'Office',
					address: 'Puerta del Sol',
				},
			},
		],
		[
			'message get',
			{ resource: 'message', operation: 'get', messageId: 'msg 1' },
			'GET',
			`${M}/messages/msg%201`,
			{},
		],
		[
			'message removeReaction',
			{ resource: 'message', operation: 'removeReaction', messageId: 'msg_1' },
			'DELETE',
			`${M}/messages/msg_1/react`,
			{},
		],
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
			{ resource: 'contact', operation: 'get', contactId: rl('ctc_1') },
			'GET',
			`${M}/contacts/ctc_1`,
			{},
		],
		[
			'contact updateAttribute (text)',
			{
				resource: 'contact',
				operation: 'updateAttribute',
				contactId: rl('ctc_1'),
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
				contactId: rl('ctc_1'),
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
				contactId: rl('ctc_1'),
				attributes: { city: 'Madrid' },
				options: {},
			},
			'PUT',
			`${M}/contacts/ctc_1/attributes`,
			{ body: { attributes: { city: 'Madrid' } } },
		],
	];
	for (const [name, params, method, url, expected] of cases) {
		it(`${name} → ${method} ${url}`, async () => {
			const { output, calls } = await run(params, () => message);
			assert.equal(calls.length, 1);
			assert.equal(calls[0].method, method);
			assert.equal(calls[0].url, url);
			if ('body' in expected) assert.deepEqual(calls[0].body, expected.body);
			if ('qs' in expected) assert.deepEqual(calls[0].qs, expected.qs);
			assert.deepEqual(output, [{ json: message, pairedItem: { item: 0 } }]);
		});
	}

	it('Additional Body Fields (JSON) are merged into the body and win over the fields', async () => {
		const { calls } = await run(
			{
				resource: 'message',
				operation: 'sendMedia',
				chatId: 'cht_1',
				url: 'https://e.com/a.png',
				mediaType: 'image',
				options: { additionalBodyFields: '{"type": "sticker", "priority": 1}' },
			},
			() => ({}),
		);
		assert.deepEqual(calls[0].body, {
			chatId: 'cht_1',
			url: 'https://e.com/a.png',
			type: 'sticker',
			priority: 1,
		});
	});

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

	it('broadcast send with rows: phones normalised, variables parsed, one item per BroadcastMessage', async () => {
		const answer = {
			items: [
				{ id: 'bcm_1', recipient: '+34600000001' },
				{ id: 'bcm_2', recipient: '+34600000002' },
			],
		};
		const { output, calls } = await run(
			{
				resource: 'broadcast',
				operation: 'send',
				channel: 'whatsapp',
				recipientsInput: 'rows',
				recipients: {
					recipient: [
						{ phone: '+34 600 000 001', variables: '{"name": "Ana"}' },
						{ phone: '+34600000002', variables: '{}' },
					],
				},
				messageContent: 'template',
				templateId: 'order_ready',
				options: { whatsappNumberId: 'wan_1' },
			},
			() => answer,
		);
		assert.equal(calls[0].method, 'POST');
		assert.equal(calls[0].url, `${M}/broadcast/messages`);
		assert.deepEqual(calls[0].body, {
			channel: 'whatsapp',
			recipients: [
				{ phone: '+34600000001', variables: { name: 'Ana' } },
				{ phone: '+34600000002' },
			],
			templateId: 'order_ready',
			whatsappNumberId: 'wan_1',
		});
		assert.deepEqual(
			output,
			answer.items.map((json) => ({ json, pairedItem: { item: 0 } })),
		);
	});

	it('broadcast send with a JSON array from an expression, email channel, text', async () => {
		const { calls } = await run(
			{
				resource: 'broadcast',
				operation: 'send',
				channel: 'email',
				recipientsInput: 'json',
				recipientsJson: [
					{ email: ' a@example.com ', variables: { n: 1 }, name: 'A' },
					'b@example.com',
				],
				messageContent: 'text',
				text: 'Hello',
				options: { whatsappNumberId: 'wan_1' },
			},
			() => ({ items: [] }),
		);
		assert.deepEqual(calls[0].body, {
			channel: 'email',
			recipients: [
				{ email: 'a@example.com', variables: { n: 1 }, name: 'A' },
				{ email: 'b@example.com' },
			],
			text: 'Hello',
		});
	});

	it('broadcast send accepts JSON text too', async () => {
		const { calls } = await run(
			{
				resource: 'broadcast',
				operation: 'send',
				channel: 'sms',
				recipientsInput: 'json',
				recipientsJson: '[{"phone": "+447700900123"}]',
				messageContent: 'text',
				text: 'Hi',
				options: {},
			},
			() => ({ items: [] }),
		);
		assert.deepEqual(calls[0].body.recipients, [{ phone: '+447700900123' }]);
	});

	it('broadcast getStatus sends one request and gives one item per ID (text or array)', async () => {
		for (const messageIds of [
			'bcm_1, bcm_2\nbcm_3',
			['bcm_1', 'bcm_2', 'bcm_3'],
			'["bcm_1","bcm_2","bcm_3"]',
		]) {
			const { output, calls } = await run(
				{ resource: 'broadcast', operation: 'getStatus', messageIds },
				(options) => ({ id: options.url.split('/').pop(), status: 'sent' }),
			);
			assert.deepEqual(
				calls.map((c) => `${c.method} ${c.url}`),
				['bcm_1', 'bcm_2', 'bcm_3'].map((id) => `GET ${M}/broadcast/messages/${id}`),
			);
			assert.deepEqual(
				output.map((o) => [o.json.id, o.pairedItem.item]),
				[
					['bcm_1', 0],
					['bcm_2', 0],
					['bcm_3', 0],
				],
			);
		}
	});
});

describe('Send Media File', () => {
	const pdf = Buffer.from('%PDF-1.7\n\x00\x01\x02binary\r\n--boundary-like--\r\n');
	const params = (options = {}, extra = {}) => ({
		resource: 'message',
		operation: 'sendMediaFile',
		chatId: 'cht_1',
		binaryPropertyName: 'data',
		options,
		...extra,
	});

	it('sends a multipart body with the file, its name and MIME type, chatId and caption', async () => {
		const { output, calls } = await run(
			params({ caption: 'Your "invoice"' }),
			() => ({ id: 'msg_9' }),
			{
				items: [binaryItem(pdf, { fileName: 'invoice "May".pdf', mimeType: 'application/pdf' })],
			},
		);
		assert.equal(calls.length, 1);
		const [call] = calls;
		assert.equal(call.method, 'POST');
		assert.equal(call.url, `${M}/messages/send/media-file`);
		assert.match(call.headers['Content-Type'], /^multipart\/form-data; boundary=/);
		assert.equal(call.body.type, call.headers['Content-Type']);
		assert.equal(call.disableFollowRedirect, true, 'a redirect would keep the body in memory');
		const sent = Buffer.concat(await Array.fromAsync(call.body.stream()));
		assert.equal(call.body.size, sent.length, 'the size sent as Content-Length is exact');
		const parsed = await parseMultipart(call.body, call.headers['Content-Type']);
		assert.deepEqual(parsed.fields, [
			['chatId', 'cht_1'],
			['caption', 'Your "invoice"'],
		]);
		assert.equal(parsed.files.length, 1);
		assert.equal(parsed.files[0].name, 'file');
		assert.equal(parsed.files[0].fileName, 'invoice %22May%22.pdf');
		assert.equal(parsed.files[0].mimeType, 'application/pdf');
		assert.ok(parsed.files[0].data.equals(pdf));
		assert.deepEqual(output, [{ json: { id: 'msg_9' }, pairedItem: { item: 0 } }]);
	});

	it('uses another binary field, the File Name and MIME Type overrides, and extra fields as parts', async () => {
		const { calls } = await run(
			params(
				{
					fileName: 'renamed.png',
					mimeType: 'image/png',
					additionalBodyFields: '{"preview": true, "tag": "x"}',
				},
				{ binaryPropertyName: 'attachment' },
			),
			() => ({}),
			{
				items: [
					binaryItem(Buffer.from([1, 2, 3]), {
						property: 'attachment',
						fileName: 'raw.bin',
						mimeType: 'application/octet-stream',
					}),
				],
			},
		);
		const parsed = await parseMultipart(calls[0].body, calls[0].headers['Content-Type']);
		assert.deepEqual(parsed.fields, [
			['chatId', 'cht_1'],
			['preview', 'true'],
			['tag', 'x'],
		]);
		assert.equal(parsed.files[0].fileName, 'renamed.png');
		assert.equal(parsed.files[0].mimeType, 'image/png');
	});

	it('names the file "file" when the binary data has no name, and drops MIME parameters', async () => {
		const { calls } = await run(params(), () => ({}), {
			items: [
				binaryItem(Buffer.from('a,b\n'), {
					fileName: undefined,
					mimeType: 'text/csv; charset=utf-8',
				}),
			],
		});
		const parsed = await parseMultipart(calls[0].body, calls[0].headers['Content-Type']);
		assert.equal(parsed.files[0].fileName, 'file');
		assert.equal(parsed.files[0].mimeType, 'text/csv');
	});

	const storedItem = (id, mimeType = 'video/mp4') => ({
		json: {},
		binary: { data: { data: 'filesystem-v2', id, mimeType, fileName: 'clip.mp4' } },
	});

	it('streams a file n8n stores outside memory, from a fresh stream on every send', async () => {
		const bytes = randomBytes(200_000);
		const id = 'filesystem-v2:workflows/1/executions/2/binary_data/abc';
		const stored = { [id]: { bytes, reads: 0 } };
		const { calls } = await run(params({ caption: 'clip' }), () => ({}), {
			items: [storedItem(id)],
			stored,
		});
		assert.equal(stored[id].reads, 0, 'nothing is read before the body is sent');
		const body = calls[0].body;
		const first = await parseMultipart(body, body.type);
		assert.ok(first.files[0].data.equals(bytes));
		assert.equal(first.files[0].mimeType, 'video/mp4');
		assert.deepEqual(first.fields, [
			['chatId', 'cht_1'],
			['caption', 'clip'],
		]);
		// Sent again (a 429, or n8n resending after renewing a token): the file is read anew.
		const second = Buffer.concat(await Array.fromAsync(body.stream()));
		assert.equal(stored[id].reads, 2);
		assert.equal(second.length, body.size);
		assert.ok(second.includes(bytes));
	});

	it('sends bytes held in memory as they are, without a copy', async () => {
		const bytes = Buffer.from('in the item, base64 in n8n 1.x memory mode');
		const { calls } = await run(params(), () => ({}), {
			items: [binaryItem(bytes, { mimeType: 'text/plain' })],
			binary: { data: bytes },
		});
		const chunks = await Array.fromAsync(calls[0].body.stream());
		assert.ok(
			chunks.some((chunk) => chunk === bytes),
			'the Buffer n8n decoded is sent itself',
		);
	});

	it('fails the send when a stored file is longer or shorter than its size', async () => {
		for (const actual of [12, 8]) {
			const id = `filesystem-v2:x/${actual}`;
			const stored = { [id]: { bytes: Buffer.alloc(10, 1), reads: 0 } };
			const { calls } = await run(params(), () => ({}), { items: [storedItem(id)], stored });
			// The file changed in the store after its size was read.
			stored[id].bytes = Buffer.alloc(actual, 1);
			await assert.rejects(
				Array.fromAsync(calls[0].body.stream()),
				/"clip.mp4" changed while it was sent: it no longer has 10 bytes/,
			);
		}
	});

	it('an empty stored file is refused before any request', async () => {
		const id = 'filesystem-v2:x/empty';
		await assert.rejects(
			run(
				params(),
				() => {
					throw new Error('sent');
				},
				{ items: [storedItem(id)], stored: { [id]: { bytes: Buffer.alloc(0), reads: 0 } } },
			),
			/The file in "data" is empty \(0 bytes\)/,
		);
	});

	it('allows images, video, audio and the listed documents only', () => {
		for (const type of [
			'image/jpeg',
			'image/webp',
			'video/mp4',
			'audio/ogg',
			'Application/PDF',
			...ALLOWED_UPLOAD_DOCUMENT_TYPES,
		]) {
			assert.ok(isAllowedUploadType(type), type);
		}
		for (const type of [
			'',
			'application/octet-stream',
			'application/x-msdownload',
			'text/html',
			'application/javascript',
			'image',
			'image/',
			'image/png\r\nX: 1',
		]) {
			assert.ok(!isAllowedUploadType(type), type);
		}
	});
});

describe('bad input fails before any request, naming the field', () => {
	const send = (extra) => ({
		resource: 'message',
		operation: 'sendMedia',
		chatId: 'cht_1',
		url: 'https://e.com/a.png',
		mediaType: 'image',
		options: {},
		...extra,
	});
	const toPhone = (extra) => ({
		resource: 'message',
		operation: 'sendMediaToPhone',
		phone: '+34600123456',
		url: 'https://e.com/a.png',
		mediaType: 'image',
		options: {},
		...extra,
	});
	const location = (extra) => ({
		resource: 'message',
		operation: 'sendLocation',
		chatId: 'cht_1',
		latitude: 1,
		longitude: 1,
		options: {},
		...extra,
	});
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
		contactId: rl('ctc_1'),
		key: 'plan',
		valueType: 'text',
		value: 'x',
		options: {},
		...extra,
	});
	const broadcast = (extra) => ({
		resource: 'broadcast',
		operation: 'send',
		channel: 'whatsapp',
		recipientsInput: 'rows',
		recipients: { recipient: [{ phone: '+34600123456' }] },
		messageContent: 'text',
		text: 'Hi',
		options: {},
		...extra,
	});
	const file = (extra) => ({
		resource: 'message',
		operation: 'sendMediaFile',
		chatId: 'cht_1',
		binaryPropertyName: 'data',
		options: {},
		...extra,
	});
	const pdfItem = [
		binaryItem(Buffer.from('%PDF'), { fileName: 'a.pdf', mimeType: 'application/pdf' }),
	];

	const bad = [
		[
			toPhone({ phone: '600123456' }),
			/Phone "600123456" is not a phone number in international format/,
		],
		[toPhone({ phone: '+34 6OO 123 456' }), /Phone "\+34 6OO 123 456" is not a phone number/],
		[toPhone({ phone: '+1234' }), /Phone "\+1234" is not a phone number/],
		[
			toPhone({ options: { whatsappNumberId: 'wan/1' } }),
			/WhatsApp Number "wan\/1" is not a valid ID/,
		],
		[{ resource: 'chat', operation: 'checkExisting', phone: '', options: {} }, /Phone is empty/],
		[send({ chatId: '' }), /Chat ID is empty/],
		[send({ chatId: '   ' }), /Chat ID is empty/],
		[send({ chatId: 'cht/../auth' }), /Chat ID "cht\/\.\.\/auth" is not a valid ID/],
		[
			send({ url: 'ftp://example.com/a.png' }),
			/Media URL "ftp:\/\/example.com\/a.png" is not an http\(s\) URL/,
		],
		[send({ url: 'not a url' }), /Media URL "not a url" is not an http\(s\) URL/],
		[
			send({ mediaType: 'sticker' }),
			/Media Type "sticker" is not one of image, video, audio, document/,
		],
		[
			send({ options: { caption: 'x'.repeat(1025) } }),
			/Caption is too long: 1025 characters, at most 1024/,
		],
		[
			send({ options: { additionalBodyFields: '{"a": 1,}' } }),
			/Additional Body Fields \(JSON\) is not valid JSON/,
		],
		[
			send({ options: { additionalBodyFields: '[1, 2]' } }),
			/Additional Body Fields \(JSON\) must be a JSON object/,
		],
		[
			{ resource: 'message', operation: 'get', messageId: 'msg?x=1' },
			/Message ID "msg\?x=1" is not a valid ID/,
		],
		[
			{ resource: 'message', operation: 'removeReaction', messageId: '..' },
			/Message ID "\.\." is not a valid ID/,
		],
		[location({ latitude: 90.5 }), /Latitude must be a number from -90 to 90, got "90.5"/],
		[location({ longitude: -180.01 }), /Longitude must be a number from -180 to 180/],
		[location({ latitude: 'north' }), /Latitude must be a number from -90 to 90, got "north"/],
		[location({ options: { name: 'n'.repeat(1001) } }), /Name is too long/],
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
		[create({ name: '' }), /Name is empty/],
		[create({ name: 'n'.repeat(257) }), /Name is too long/],
		[create({ phone: '12' }), /Phone "12" is not a phone number/],
		[create({ options: { email: 'lucia@' } }), /Email "lucia@" is not an email address/],
		[
			create({ options: { attributes: '{"plan": gold}' } }),
			/Attributes \(JSON\) is not valid JSON/,
		],
		[create({ options: { attributes: '[1]' } }), /Attributes \(JSON\) must be a JSON object/],
		[{ resource: 'contact', operation: 'get', contactId: rl('') }, /Contact is empty/],
		[
			{ resource: 'contact', operation: 'get', contactId: rl('../../auth/token') },
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
		[attribute({ contactId: rl('a?b') }), /Contact "a\?b" is not a valid ID/],
		[
			{
				resource: 'contact',
				operation: 'replaceAttributes',
				contactId: rl('ctc_1'),
				attributes: '{"a":',
				options: {},
			},
			/Attributes \(JSON\) is not valid JSON/,
		],
		[
			{
				resource: 'contact',
				operation: 'replaceAttributes',
				contactId: rl('ctc_1'),
				attributes: 42,
				options: {},
			},
			/Attributes \(JSON\) must be a JSON object/,
		],
		[broadcast({ recipients: {} }), /Recipients is empty/],
		[
			broadcast({
				recipientsInput: 'json',
				recipientsJson: Array.from({ length: 1001 }, (_, i) => ({
					phone: `+3460000${String(i).padStart(4, '0')}`,
				})),
			}),
			/Recipients has 1001 entries; one broadcast takes at most 1000/,
		],
		[
			broadcast({ recipients: { recipient: [{ phone: '+34600123456' }, { phone: '600 12' }] } }),
			/Recipient 2 phone "600 12" is not a phone number/,
		],
		[
			broadcast({ channel: 'email', recipients: { recipient: [{ phone: '+34600123456' }] } }),
			/Recipient 1 email is empty/,
		],
		[
			broadcast({ channel: 'email', recipientsInput: 'json', recipientsJson: [{ email: 'a@b' }] }),
			/Recipient 1 email "a@b" is not an email address/,
		],
		[
			broadcast({ recipients: { recipient: [{ phone: '+34600123456', variables: '[1]' }] } }),
			/Recipient 1 variables must be a JSON object/,
		],
		[
			broadcast({ recipients: { recipient: [{ phone: '+34600123456', variables: '{x}' }] } }),
			/Recipient 1 variables is not valid JSON/,
		],
		[
			broadcast({ recipientsInput: 'json', recipientsJson: '[{"phone": ' }),
			/Recipients \(JSON\) is not valid JSON/,
		],
		[
			broadcast({ recipientsInput: 'json', recipientsJson: '"+34600123456"' }),
			/Recipients \(JSON\) must be an array/,
		],
		[
			broadcast({ recipientsInput: 'json', recipientsJson: [[1]] }),
			/Recipient 1 must be an object/,
		],
		[broadcast({ text: '  ' }), /Text is empty/],
		[broadcast({ text: 't'.repeat(4097) }), /Text is too long: 4097 characters, at most 4096/],
		[broadcast({ messageContent: 'template', templateId: '' }), /Template ID is empty/],
		[broadcast({ channel: 'fax' }), /Channel "fax" is not one of whatsapp, sms, email/],
		[
			{ resource: 'broadcast', operation: 'getStatus', messageIds: ' , ' },
			/Broadcast Message IDs is empty/,
		],
		[
			{ resource: 'broadcast', operation: 'getStatus', messageIds: ['bcm_1', 'bcm/2'] },
			/Broadcast Message ID 2 "bcm\/2" is not a valid ID/,
		],
		[
			{ resource: 'broadcast', operation: 'getStatus', messageIds: [{}] },
			/Broadcast Message ID is empty/,
		],
		[
			{
				resource: 'whatsappNumber',
				operation: 'getAll',
				returnAll: true,
				options: { queryParameters: { parameter: [{ value: 'x' }] } },
			},
			/Additional Query Parameters has no name/,
		],
		[
			file({ binaryPropertyName: 'attachment' }),
			/The input item has no binary field "attachment"/,
			pdfItem,
			/Its binary fields are: data/,
		],
		[file(), /The input item has no binary field "data"/, [{ json: {} }], /no binary data at all/],
		[
			file(),
			/The file in "data" is empty \(0 bytes\)/,
			[binaryItem(Buffer.alloc(0), { fileName: 'a.pdf', mimeType: 'application/pdf' })],
		],
		[
			file(),
			/The file in "data" has the type "application\/x-msdownload", which cannot be sent/,
			[binaryItem(Buffer.from('MZ'), { fileName: 'a.exe', mimeType: 'application/x-msdownload' })],
			/application\/pdf/,
		],
		[
			file(),
			/has the type "application\/octet-stream", which cannot be sent/,
			[binaryItem(Buffer.from('1'))],
			/set the MIME Type option/,
		],
		[file({ options: { mimeType: 'text/html' } }), /has the type "text\/html"/, pdfItem],
		[file({ chatId: 'a/b' }), /Chat ID "a\/b" is not a valid ID/, pdfItem],
		[file({ options: { caption: 'c'.repeat(2000) } }), /Caption is too long/, pdfItem],
		[
			file({ options: { additionalBodyFields: 'nope' } }),
			/Additional Body Fields \(JSON\) is not valid JSON/,
			pdfItem,
		],
	];
	for (const [params, message, items = [{ json: {} }], description] of bad) {
		it(`${params.resource} ${params.operation}: ${message.source}`, async () => {
			let requests = 0;
			await assert.rejects(
				run(
					params,
					() => {
						requests++;
						return {};
					},
					{ items },
				),
				(error) => {
					assert.ok(error instanceof NodeOperationError, error.constructor.name);
					assert.match(error.message, message);
					if (description) assert.match(error.description, description);
					assert.equal(error.context.itemIndex, 0);
					return true;
				},
			);
			assert.equal(requests, 0);
		});
	}
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

	it('runs once per item with per-item parameters, and a broadcast pairs all its outputs to its item', async () => {
		const { output } = await run(
			(i) => ({
				resource: 'broadcast',
				operation: 'send',
				channel: 'sms',
				recipientsInput: 'json',
				recipientsJson: [`+3460000000${i}`, `+3460000001${i}`],
				messageContent: 'text',
				text: `Hi ${i}`,
				options: {},
			}),
			(options) => ({
				items: options.body.recipients.map((r) => ({ id: `bcm_${r.phone}`, recipient: r.phone })),
			}),
			{ items: [{ json: {} }, { json: {} }] },
		);
		assert.deepEqual(
			output.map((o) => [o.json.recipient, o.pairedItem.item]),
			[
				['+34600000000', 0],
				['+34600000010', 0],
				['+34600000001', 1],
				['+34600000011', 1],
			],
		);
	});

	it('a 413 on upload says the file is too large', async () => {
		await assert.rejects(
			run(
				{
					resource: 'message',
					operation: 'sendMediaFile',
					chatId: 'c',
					binaryPropertyName: 'data',
					options: {},
				},
				() => {
					throw httpError(413, { message: 'file must not be larger than 26214400 bytes (25 MB)' });
				},
				{ items: [binaryItem(Buffer.from('x'), { fileName: 'a.jpg', mimeType: 'image/jpeg' })] },
			),
			/too large \(413\)/,
		);
	});
});

describe('contact search list and sending-number dropdown', () => {
	function context(respond) {
		const { http, calls } = scriptedHttp(respond);
		return {
			context: createLoadOptionsContext({
				credentials: { baseUrl: 'https://api.example.com' },
				http,
			}),
			calls,
		};
	}

	it('searches contacts with the filter and shows "name (phone)"', async () => {
		const { context: ctx, calls } = context(() => [
			{ id: 'ctc_1', name: 'Ana Ruiz', phone: '+34600000001' },
		]);
		const found = await searchContacts.call(ctx, ' ana r ');
		assert.deepEqual(found.results, [{ name: 'Ana Ruiz (+34600000001)', value: 'ctc_1' }]);
		assert.equal(calls[0].url, `${M}/contacts/search/ana%20r`);
	});

	it('asks nothing without a filter', async () => {
		const { context: ctx, calls } = context(() => []);
		assert.deepEqual(await searchContacts.call(ctx, ''), { results: [] });
		assert.deepEqual(await searchContacts.call(ctx), { results: [] });
		assert.equal(calls.length, 0);
	});

	it('lists the WhatsApp numbers by name and phone', async () => {
		const { context: ctx, calls } = context(() => [
			{ id: 'wan_1', phone: '+34910000001', name: 'Main line', status: 'connected' },
			{ id: 'wan_2', phone: '+442000000000', name: 'Marketing UK', status: 'disconnected' },
		]);
		const options = await getWhatsappNumbers.call(ctx);
		assert.equal(calls[0].url, `${M}/messages/whatsapp-numbers`);
		assert.deepEqual(options, [
			{ name: 'Main line (+34910000001)', value: 'wan_1', description: 'Status: connected' },
			{ name: 'Marketing UK (+442000000000)', value: 'wan_2', description: 'Status: disconnected' },
		]);
	});
});

describe('the README lists the upload types the node allows', () => {
	it('names every allowed type, and no other, in the Send Media File paragraph', () => {
		const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
		const paragraph = /\*\*Send Media File\*\* uploads[^]*?stops the item/.exec(readme)?.[0];
		assert.ok(paragraph, 'the README has the Send Media File paragraph');
		const named = new Set([...paragraph.matchAll(/`([^`]+)`/g)].map((match) => match[1]));
		const prefixes = [...named].filter((token) => token.endsWith('/*'));
		const extensions = [...named].filter((token) => token.startsWith('.'));
		assert.deepEqual(
			prefixes.map((token) => token.slice(0, -1)).sort(),
			[...ALLOWED_UPLOAD_MIME_PREFIXES].sort(),
		);
		assert.deepEqual(extensions.sort(), Object.values(UPLOAD_DOCUMENT_EXTENSIONS).sort());
	});
});
