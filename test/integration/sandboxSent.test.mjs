// The sandbox records what a broadcast send asked it to deliver (state.sent, onSent), which the
// API's own records do not hold, and prints it with each link on a line of its own.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { sentLines } from '../../sandbox/api.mjs';
import { DEMO_CLIENTS, startSandbox } from '../../sandbox/server.mjs';
import { apiCall } from '../support/sandboxApi.mjs';

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
});
