// The Messenger node's description: every resource and operation of the node map, and the
// parameters that search, list or warn.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Messenger } from '../../../nodes/Messenger/Messenger.node.ts';

const node = new Messenger();

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
			'downloadMedia',
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
