// The sandbox records what a broadcast send asked it to deliver (state.sent, onSent), which the
// API's own records do not hold, and prints it with each link on a line of its own; a message
// sent to a chat or phone reaches onSent too, printed in one line.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { sentLines } from '../../sandbox/api.mjs';
import { DEMO_CLIENTS, startSandbox } from '../../sandbox/server.mjs';
import { apiCall, token, uploadMediaFile } from '../support/sandboxApi.mjs';

describe('the sandbox records what it was asked to send', () => {
	let sandbox;
	const notified = [];

	before(async () => {
		sandbox = await startSandbox({ onSent: (sent) => notified.push(sent) });
	});
	after(async () => {
		await sandbox?.close();
	});

	const send = (body) =>
		apiCall(
			sandbox,
			DEMO_CLIENTS.messengerOnly,
			'POST',
			'/api/v1/messenger/broadcast/messages',
			body,
		);

	it('a text: one entry per recipient, with the text; each link printed on its own line', async () => {
		const text = 'Approve?\n\nRespond: https://n8n.example.com/webhook-waiting/7/abc?signature=f00';
		const { items } = await send({
			channel: 'sms',
			recipients: [{ phone: '+34600111222' }, { phone: '+34600333444' }],
			text,
		});
		const entries = sandbox.state.sent.slice(-2);
		assert.deepEqual(
			entries.map((e) => [e.messageId, e.channel, e.recipient, e.text, e.templateId]),
			items.map((m) => [m.id, 'sms', m.recipient, text, null]),
		);
		assert.deepEqual(notified.slice(-2), entries);
		const lines = sentLines(entries[0]);
		assert.equal(lines.length, 2);
		assert.match(lines[0], /sent bcm_\w+ by sms to \+34600111222: "Approve\?\\n\\nRespond: https:/);
		assert.equal(lines[1], '    link: https://n8n.example.com/webhook-waiting/7/abc?signature=f00');
	});

	it('a template: its ID, each recipient’s variables and the sending number; links from the variables', async () => {
		const number = sandbox.state.whatsappNumbers[0].id;
		await send({
			channel: 'whatsapp',
			recipients: [
				{ phone: '+34600111222', variables: { link: 'http://127.0.0.1:5678/x?y=1', name: 'Ana' } },
			],
			templateId: 'approval_request',
			whatsappNumberId: number,
		});
		const entry = sandbox.state.sent.at(-1);
		assert.deepEqual(
			[entry.text, entry.templateId, entry.variables, entry.whatsappNumberId],
			[null, 'approval_request', { link: 'http://127.0.0.1:5678/x?y=1', name: 'Ana' }, number],
		);
		assert.deepEqual(sentLines(entry).slice(1), ['    link: http://127.0.0.1:5678/x?y=1']);
	});

	it('a refused send records nothing', async () => {
		const before = sandbox.state.sent.length;
		await assert.rejects(send({ channel: 'whatsapp', recipients: [{ phone: '600' }], text: 'x' }));
		assert.equal(sandbox.state.sent.length, before);
	});

	it('a message to a chat or phone: onSent hears of it (state.sent keeps broadcasts only), one line each saying to whom and what', async () => {
		const chat = sandbox.state.chats[0];
		const sentBefore = sandbox.state.sent.length;
		const heardBefore = notified.length;
		const message = (kind, body) =>
			apiCall(
				sandbox,
				DEMO_CLIENTS.messengerOnly,
				'POST',
				`/api/v1/messenger/messages/send/${kind}`,
				body,
			);
		const media = await message('media', {
			chatId: chat.id,
			url: 'https://example.com/docs/price-list.pdf',
			type: 'document',
			fileName: 'price-list.pdf',
			caption: 'Here is our price list.\nA colleague calls you.',
		});
		const toPhone = await message('media-to-phone', {
			phone: '+34600999888',
			url: 'https://example.com/a.jpg',
			type: 'image',
		});
		const place = await message('location', {
			chatId: chat.id,
			latitude: 40.4168,
			longitude: -3.7038,
			name: 'Office',
			address: 'Puerta del Sol, Madrid',
		});
		const form = new FormData();
		form.append('chatId', chat.id);
		form.append('file', new Blob(['%PDF-1.4'], { type: 'application/pdf' }), 'quote.pdf');
		const bearer = await token(sandbox, DEMO_CLIENTS.messengerOnly);
		const upload = await (await uploadMediaFile(sandbox, bearer, form)).json();
		// A refused send reports nothing.
		await assert.rejects(
			message('media', { chatId: 'cht_missing', url: 'https://x.example/a.png', type: 'image' }),
		);

		assert.equal(sandbox.state.sent.length, sentBefore);
		const heard = notified.slice(heardBefore);
		assert.deepEqual(
			heard.map((s) => [s.messageId, s.channel, s.recipient, s.chatId, s.type, s.createdAt]),
			[
				[media.id, 'whatsapp', chat.phone, chat.id, 'document', media.createdAt],
				[toPhone.id, 'whatsapp', '+34600999888', toPhone.chatId, 'image', toPhone.createdAt],
				[place.id, 'whatsapp', chat.phone, chat.id, 'location', place.createdAt],
				[upload.id, 'whatsapp', chat.phone, chat.id, 'document', upload.createdAt],
			],
		);
		assert.deepEqual(heard.map(sentLines), [
			[
				`${media.createdAt} sent ${media.id} by whatsapp to ${chat.phone} in chat ${chat.id}: document https://example.com/docs/price-list.pdf as "price-list.pdf", caption "Here is our price list.\\nA colleague calls you."`,
			],
			[
				`${toPhone.createdAt} sent ${toPhone.id} by whatsapp to +34600999888 in chat ${toPhone.chatId}: image https://example.com/a.jpg`,
			],
			[
				`${place.createdAt} sent ${place.id} by whatsapp to ${chat.phone} in chat ${chat.id}: location 40.4168, -3.7038 "Office" at "Puerta del Sol, Madrid"`,
			],
			[
				`${upload.createdAt} sent ${upload.id} by whatsapp to ${chat.phone} in chat ${chat.id}: document file "quote.pdf" (application/pdf, 8 bytes)`,
			],
		]);
	});
});
