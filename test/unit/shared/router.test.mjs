// shared/router.ts, the per-item loop of both nodes: run as an AI agent's tool, a failed call is
// answered with the error for the model to read; run as a plain node, it stops the workflow.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Messenger } from '../../../nodes/Messenger/Messenger.node.ts';
import { TEST_NODE } from '../../../tools/context.mjs';
import { scriptedNode } from '../../support/unit.mjs';

describe('run as an AI agent tool', () => {
	const { run } = scriptedNode(new Messenger());
	/** The same bad call, made by a node of `type`; `requests` keeps what it sent, also when it fails. */
	const callAs = (type) => {
		const requests = [];
		const result = run(
			{
				resource: 'message',
				operation: 'sendMediaToPhone',
				phone: '600 12 34',
				url: 'https://example.com/a.pdf',
				mediaType: 'document',
				options: {},
			},
			(options) => (requests.push(options), {}),
			{ node: { ...TEST_NODE, type } },
		);
		return { result, requests };
	};

	it('answers a failed call with the error as the output, for the model to read', async () => {
		const { result, requests } = callAs('n8n-nodes-voice-messaging.messengerTool');
		const {
			output: [item],
		} = await result;
		assert.match(
			item.json.error,
			/Phone "600 12 34" is not a phone number in international format/,
		);
		assert.match(item.json.description, /country code/);
		assert.deepEqual(item.pairedItem, { item: 0 });
		assert.equal(requests.length, 0);
	});

	it('as a plain node the same call stops the workflow', async () => {
		const { result, requests } = callAs('n8n-nodes-voice-messaging.messenger');
		await assert.rejects(result, /is not a phone number in international format/);
		assert.equal(requests.length, 0);
	});
});
