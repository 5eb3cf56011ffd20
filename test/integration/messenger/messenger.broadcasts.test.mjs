import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { MESSENGER_API as M, messengerSuite } from '../../support/integration.mjs';

describe('Messenger node against the sandbox: broadcasts', () => {
	const env = messengerSuite('broadcasts');

	it('Broadcast → Send to three recipients, then Get Status of each after progress', async () => {
		const { sandbox, messenger } = env;
		const before = sandbox.state.broadcastMessages.length;
		const [number] = sandbox.state.whatsappNumbers;
		const sent = await messenger.run({
			resource: 'broadcast',
			operation: 'send',
			channel: 'whatsapp',
			recipientsInput: 'rows',
			recipients: {
				recipient: [
					{ phone: '+34 600 111 222', variables: '{"name": "Ana"}' },
					{ phone: '+34600330000' },
					{ phone: '+447700900123' },
				],
			},
			messageContent: 'template',
			templateId: 'order_ready',
			options: { whatsappNumberId: number.id },
		});
		assert.equal(sandbox.state.broadcastMessages.length, before + 3);
		assert.deepEqual(
			sent.map((o) => [o.json.recipient, o.json.status, o.pairedItem.item]),
			[
				['+34600111222', 'queued', 0],
				['+34600330000', 'queued', 0],
				['+447700900123', 'queued', 0],
			],
		);
		sandbox.advance();
		const statuses = await messenger.run({
			resource: 'broadcast',
			operation: 'getStatus',
			messageIds: sent.map((o) => o.json.id),
		});
		assert.deepEqual(
			statuses.map((o) => o.json.id),
			sent.map((o) => o.json.id),
		);
		assert.equal(statuses[1].json.status, 'failed', 'a phone ending in 0000 fails');
		assert.ok(statuses[1].json.error);
		assert.equal(statuses[0].json.status, 'sent');
		assert.deepEqual(env.apiRequests(), [
			`POST ${M}/broadcast/messages 200`,
			...sent.map((o) => `GET ${M}/broadcast/messages/${o.json.id} 200`),
		]);
	});

	it('Broadcast → Send by email from a JSON array, status by comma-separated IDs', async () => {
		const { messenger } = env;
		const sent = await messenger.run({
			resource: 'broadcast',
			operation: 'send',
			channel: 'email',
			recipientsInput: 'json',
			recipientsJson: JSON.stringify([
				{ email: 'ana@example.com', variables: { code: 'A1' } },
				{ email: 'fail.bob@example.com' },
			]),
			messageContent: 'text',
			text: 'Your code is ready',
			options: {},
		});
		assert.deepEqual(
			sent.map((o) => [o.json.channel, o.json.recipient]),
			[
				['email', 'ana@example.com'],
				['email', 'fail.bob@example.com'],
			],
		);
		const statuses = await messenger.run({
			resource: 'broadcast',
			operation: 'getStatus',
			messageIds: sent.map((o) => o.json.id).join(', '),
		});
		assert.equal(statuses.length, 2);
		await assert.rejects(
			messenger.run({ resource: 'broadcast', operation: 'getStatus', messageIds: 'bcm_nope' }),
			/Broadcast message not found: "bcm_nope"/,
		);
	});

	it('reached each of its endpoints with success', () => {
		assert.deepEqual(env.unreachedEndpoints(), []);
	});
});
