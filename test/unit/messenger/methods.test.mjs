// The Messenger node's methods: the contact search of its resource locators and the dropdown of
// sending WhatsApp numbers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { searchContacts } from '../../../nodes/Messenger/methods/listSearch.ts';
import { getWhatsappNumbers } from '../../../nodes/Messenger/methods/loadOptions.ts';
import { scriptedLoadOptions } from '../../support/unit.mjs';

const M = '/api/v1/messenger';

describe('contact search list and sending-number dropdown', () => {
	it('searches contacts with the filter and shows "name (phone)"', async () => {
		const { context, calls } = scriptedLoadOptions(() => [
			{ id: 'ctc_1', name: 'Ana Ruiz', phone: '+34600000001' },
		]);
		const found = await searchContacts.call(context, ' ana r ');
		assert.deepEqual(found.results, [{ name: 'Ana Ruiz (+34600000001)', value: 'ctc_1' }]);
		assert.equal(calls[0].url, `${M}/contacts/search/ana%20r`);
	});

	it('asks nothing without a filter', async () => {
		const { context, calls } = scriptedLoadOptions(() => []);
		assert.deepEqual(await searchContacts.call(context, ''), { results: [] });
		assert.deepEqual(await searchContacts.call(context), { results: [] });
		assert.equal(calls.length, 0);
	});

	it('lists the WhatsApp numbers by name and phone', async () => {
		const { context, calls } = scriptedLoadOptions(() => [
			{ id: 'wan_1', phone: '+34910000001', name: 'Main line', status: 'connected' },
			{ id: 'wan_2', phone: '+442000000000', name: 'Marketing UK', status: 'disconnected' },
		]);
		const options = await getWhatsappNumbers.call(context);
		assert.equal(calls[0].url, `${M}/messages/whatsapp-numbers`);
		assert.deepEqual(options, [
			{ name: 'Main line (+34910000001)', value: 'wan_1', description: 'Status: connected' },
			{ name: 'Marketing UK (+442000000000)', value: 'wan_2', description: 'Status: disconnected' },
		]);
	});
});
