// The Messenger node as a whole: what it refuses before any request, the role it needs, and
// all 18 messaging endpoints, reached by the messenger.<resource>.test.mjs files (each its share).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Messenger } from '../../../nodes/Messenger/Messenger.node.ts';
import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { binaryItem } from '../../../tools/binary.mjs';
import { NodeOperationError } from '../../../tools/nodeShared.mjs';
import { requestsSince, sandboxRunner } from '../../../tools/sandboxRun.mjs';
import {
	MESSENGER_ENDPOINTS_BY_FILE,
	messagingEndpoints,
	messengerSuite,
	openChat,
	rl,
} from '../../support/integration.mjs';

describe('Messenger node against the sandbox', () => {
	const env = messengerSuite();

	it('bad input sends nothing at all', async () => {
		const { sandbox, messenger } = env;
		const chat = openChat(sandbox);
		const attempts = [
			{
				resource: 'message',
				operation: 'sendMediaToPhone',
				phone: '600123456',
				url: 'https://e.com/a.jpg',
				mediaType: 'image',
				options: {},
			},
			{
				resource: 'message',
				operation: 'sendLocation',
				chatId: chat.id,
				latitude: 100,
				longitude: 0,
				options: {},
			},
			{
				resource: 'contact',
				operation: 'updateAttribute',
				contactId: rl('x/../../auth/token'),
				key: 'a',
				valueType: 'text',
				value: '',
				options: {},
			},
			{
				resource: 'broadcast',
				operation: 'send',
				channel: 'sms',
				recipientsInput: 'rows',
				recipients: {},
				messageContent: 'text',
				text: 'x',
				options: {},
			},
		];
		for (const params of attempts) {
			await assert.rejects(messenger.run(params), (error) => error instanceof NodeOperationError);
		}
		await assert.rejects(
			messenger.run(
				{
					resource: 'message',
					operation: 'sendMediaFile',
					chatId: chat.id,
					binaryPropertyName: 'data',
					options: {},
				},
				{
					items: [
						binaryItem(Buffer.from('MZ'), {
							fileName: 'a.exe',
							mimeType: 'application/x-msdownload',
						}),
					],
				},
			),
			/cannot be sent/,
		);
		assert.deepEqual(requestsSince(sandbox, env.mark), []);
	});

	it('a client without the messenger role gets an error naming the role', async () => {
		const { sandbox } = env;
		const voiceOnly = sandboxRunner(Messenger, sandbox, DEMO_CLIENTS.voiceOnly);
		await assert.rejects(
			voiceOnly.run({
				resource: 'whatsappNumber',
				operation: 'getAll',
				returnAll: true,
				options: {},
			}),
			/"messenger" role/,
		);
	});

	it('the node reached every messaging endpoint', () => {
		const messaging = messagingEndpoints();
		assert.equal(messaging.length, 18);
		const reached = Object.values(MESSENGER_ENDPOINTS_BY_FILE).flat();
		assert.deepEqual(
			messaging.filter((endpoint) => !reached.includes(endpoint)),
			[],
		);
		assert.deepEqual(
			reached.filter((endpoint) => !messaging.includes(endpoint)),
			[],
			'each endpoint a file claims is one of the API',
		);
	});
});
