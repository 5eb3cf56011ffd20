// Messenger → Broadcast: Send (recipients as rows, JSON or JSON text; one item per message) and
// Get Status (one request per ID, at most 100), bad input refused before any request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Messenger } from '../../../nodes/Messenger/Messenger.node.ts';
import { scriptedNode, UNPACED } from '../../support/unit.mjs';

const { run, itRefusesBeforeAnyRequest } = scriptedNode(new Messenger());
const M = '/api/v1/messenger';

describe('Messenger operations hit their endpoints', () => {
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

describe('bad input fails before any request, naming the field', () => {
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
	itRefusesBeforeAnyRequest([
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
	]);
});

describe('errors from the API and per-item behaviour', () => {
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
});

describe('Broadcast → Get Status takes a limit of its own', () => {
	/** Get Status for `messageIds`, unpaced; `requests` keeps what it sent, also when it fails. */
	const getStatus = (messageIds) => {
		const requests = [];
		const result = run(
			{ resource: 'broadcast', operation: 'getStatus', messageIds },
			(options) => (requests.push(options), { id: options.url.split('/').pop(), status: 'sent' }),
			{ credentials: UNPACED },
		);
		return { result, requests };
	};

	it('reads 100 IDs, one request each', async () => {
		const ids = Array.from({ length: 100 }, (_, i) => `bcm_${i}`);
		const { result, requests } = getStatus(ids);
		assert.equal((await result).output.length, 100);
		assert.equal(requests.length, 100);
	});

	it('refuses 101 before any request, saying what to do', async () => {
		const ids = Array.from({ length: 101 }, (_, i) => `bcm_${i}`);
		const { result, requests } = getStatus(ids.join(','));
		await assert.rejects(result, (error) => {
			assert.match(error.message, /Broadcast Message IDs has 101 entries; at most 100/);
			assert.match(error.description, /Split the IDs over several items/);
			return true;
		});
		assert.equal(requests.length, 0);
	});
});
