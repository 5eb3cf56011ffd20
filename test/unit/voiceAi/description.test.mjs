// The Voice AI node's description: every resource and operation of the node map.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { VoiceAi } from '../../../nodes/VoiceAi/VoiceAi.node.ts';

const node = new VoiceAi();

describe('Voice AI node description', () => {
	it('offers every resource and operation of the node map', () => {
		const resource = node.description.properties.find((p) => p.name === 'resource');
		assert.deepEqual(resource.options.map((o) => o.value).sort(), [
			'agent',
			'billing',
			'campaign',
			'report',
		]);
		const operationsOf = (name) =>
			node.description.properties
				.filter((p) => p.name === 'operation' && p.displayOptions.show.resource.includes(name))
				.flatMap((p) => p.options.map((o) => o.value))
				.sort();
		assert.deepEqual(operationsOf('agent'), ['get', 'getAll']);
		assert.deepEqual(operationsOf('campaign'), ['cancel', 'get', 'getAll', 'getData']);
		assert.deepEqual(operationsOf('billing'), ['getBalance']);
		assert.deepEqual(operationsOf('report'), ['getCallTrends']);
		assert.equal(node.description.usableAsTool, true);
		assert.deepEqual(node.description.credentials, [{ name: 'voiceMessagingApi', required: true }]);
	});
});
