import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { searchContacts } from '../../../nodes/Messenger/methods/listSearch.ts';
import {
	loadOptionsContext,
	MESSENGER_API as M,
	messengerSuite,
	rl,
} from '../../support/integration.mjs';

describe('Messenger node against the sandbox: contacts', () => {
	const env = messengerSuite('contacts');

	it('Contact → Create, Update Attribute, then Search finds it with the new value; Get and Replace Attributes', async () => {
		const { sandbox, messenger } = env;
		const [created] = await messenger.run({
			resource: 'contact',
			operation: 'create',
			name: 'Zoe Quintana',
			phone: '+34 611 222 333',
			options: { email: 'zoe.q@example.com', attributes: '{"plan": "basic", "city": "Sevilla"}' },
		});
		assert.equal(created.json.phone, '+34611222333');
		assert.deepEqual(created.json.attributes, { plan: 'basic', city: 'Sevilla' });
		const id = created.json.id;
		const [updated] = await messenger.run({
			resource: 'contact',
			operation: 'updateAttribute',
			contactId: rl(id),
			key: 'plan',
			valueType: 'text',
			value: 'gold',
			options: {},
		});
		assert.equal(updated.json.attributes.plan, 'gold');
		await messenger.run({
			resource: 'contact',
			operation: 'updateAttribute',
			contactId: rl(id),
			key: 'score',
			valueType: 'json',
			value: '42',
			options: {},
		});
		const found = await messenger.run({
			resource: 'contact',
			operation: 'search',
			customer: 'quintana',
			returnAll: true,
			options: {},
		});
		assert.deepEqual(
			found.map((o) => [o.json.id, o.json.attributes.plan, o.json.attributes.score]),
			[[id, 'gold', 42]],
		);
		const list = await searchContacts.call(loadOptionsContext(messenger), 'Zoe');
		assert.deepEqual(list.results, [{ name: 'Zoe Quintana (+34611222333)', value: id }]);
		const [got] = await messenger.run({
			resource: 'contact',
			operation: 'get',
			contactId: { __rl: true, mode: 'list', value: id },
		});
		assert.equal(got.json.attributes.plan, 'gold');
		const [replaced] = await messenger.run({
			resource: 'contact',
			operation: 'replaceAttributes',
			contactId: rl(id),
			attributes: '{"vip": true}',
			options: {},
		});
		assert.deepEqual(replaced.json.attributes, { vip: true });
		assert.deepEqual(sandbox.state.contacts.find((c) => c.id === id).attributes, { vip: true });
		assert.deepEqual(env.apiRequests(), [
			`POST ${M}/contacts 201`,
			`PATCH ${M}/contacts/${id}/attributes/plan 200`,
			`PATCH ${M}/contacts/${id}/attributes/score 200`,
			`GET ${M}/contacts/search/quintana 200`,
			`GET ${M}/contacts/search/Zoe 200`,
			`GET ${M}/contacts/${id} 200`,
			`PUT ${M}/contacts/${id}/attributes 200`,
		]);
	});

	it('Contact → Create with a phone that exists says so (409); an unknown contact is "not found"', async () => {
		const { sandbox, messenger } = env;
		const existing = sandbox.state.contacts[0];
		await assert.rejects(
			messenger.run({
				resource: 'contact',
				operation: 'create',
				name: 'Dup',
				phone: existing.phone,
				options: {},
			}),
			new RegExp(`A contact with the phone \\${existing.phone} already exists`),
		);
		await assert.rejects(
			messenger.run({ resource: 'contact', operation: 'get', contactId: rl('ctc_nope') }),
			/Contact not found: "ctc_nope"/,
		);
	});

	it('reached each of its endpoints with success', () => {
		assert.deepEqual(env.unreachedEndpoints(), []);
	});
});
