// Messenger → Message (Send Media, Send Media to Phone, Send Location, Get, Remove Reaction): the
// request each operation sends, and bad input refused before any request. Send Media File and
// Send and Wait for Response have files of their own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Messenger } from '../../../nodes/Messenger/Messenger.node.ts';
import { scriptedNode } from '../../support/unit.mjs';

const { run, itSendsOneRequest, itRefusesBeforeAnyRequest } = scriptedNode(new Messenger());
const M = '/api/v1/messenger';

describe('Messenger operations hit their endpoints', () => {
	const message = { id: 'msg_1', chatId: 'cht_1', status: 'sent' };
	itSendsOneRequest(
		[
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
		],
		message,
	);

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
	itRefusesBeforeAnyRequest([
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
	]);
});
