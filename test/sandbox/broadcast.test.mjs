// The sandbox's broadcast endpoints: one queued message per recipient, and how they progress.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { sandboxWithClient } from '../support/sandboxApi.mjs';

describe('messenger', () => {
	test('broadcasts one queued message per recipient and progresses them', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t);
		const sent = await api.post('/api/v1/messenger/broadcast/messages', {
			channel: 'whatsapp',
			templateId: 'order_update',
			recipients: [
				{ phone: '+34600111222', variables: { name: 'Ana' } },
				{ phone: '+34600110000' },
			],
		});
		assert.equal(sent.status, 200);
		assert.equal(sent.body.items.length, 2);
		for (const item of sent.body.items) {
			assert.match(item.id, /^bcm_/);
			assert.equal(item.status, 'queued');
			assert.equal(item.channel, 'whatsapp');
		}
		const [ok, doomed] = sent.body.items;
		assert.equal(ok.recipient, '+34600111222');
		/** @param {string} id */
		const statusOf = async (id) =>
			(await api.get(`/api/v1/messenger/broadcast/messages/${id}`)).body;
		sandbox.advance();
		const failed = await statusOf(doomed.id);
		assert.equal(failed.status, 'failed');
		assert.equal(typeof failed.error, 'string');
		const seen = [(await statusOf(ok.id)).status];
		sandbox.advance();
		seen.push((await statusOf(ok.id)).status);
		sandbox.advance();
		seen.push((await statusOf(ok.id)).status);
		assert.equal(seen[0], 'sent');
		assert.ok(
			JSON.stringify(seen) === JSON.stringify(['sent', 'delivered', 'read']) ||
				JSON.stringify(seen) === JSON.stringify(['sent', 'failed', 'failed']),
			seen.join(' → '),
		);
		const latest = await statusOf(ok.id);
		assert.ok(latest.updatedAt >= latest.createdAt);
		const email = await api.post('/api/v1/messenger/broadcast/messages', {
			channel: 'email',
			text: 'Hello',
			recipients: [{ email: 'ana@example.com' }],
		});
		assert.equal(email.body.items[0].recipient, 'ana@example.com');
	});
});

describe('messenger: whether a broadcast shows in the chat history (--broadcast-history)', () => {
	for (const [broadcastHistory, shown] of [
		['hidden', false],
		['shown', true],
	]) {
		test(`${broadcastHistory}: a WhatsApp text to a phone ${shown ? 'is' : 'is not'} in its chat`, async (t) => {
			const { sandbox, api } = await sandboxWithClient(t, { broadcastHistory });
			const chat = sandbox.customerWrites({ phone: '+34600111333', text: 'Hi' }).chat;
			await api.post('/api/v1/messenger/broadcast/messages', {
				channel: 'whatsapp',
				text: 'Hello from the team',
				recipients: [{ phone: '+34600111333' }],
			});
			await api.post('/api/v1/messenger/broadcast/messages', {
				channel: 'whatsapp',
				templateId: 'order_update',
				recipients: [{ phone: '+34600111333' }],
			});
			const history = (await api.get(`/api/v1/messenger/messages/chat/${chat.id}?limit=100`)).body
				.items;
			const outbound = history.filter((m) => m.direction === 'outbound');
			assert.deepEqual(
				outbound.map((m) => [m.type, m.content, m.status]),
				shown ? [['text', 'Hello from the team', 'sent']] : [],
			);
		});
	}
});
