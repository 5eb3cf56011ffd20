// The sandbox's contact and chat endpoints.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { sandboxWithClient } from '../support/sandboxApi.mjs';

describe('messenger', () => {
	test('manages contacts: create, duplicate, get, search and attributes', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t);
		const created = await api.post('/api/v1/messenger/contacts', {
			name: 'Zoe Quintana',
			phone: '+34611222333',
			attributes: { plan: 'pro' },
		});
		assert.equal(created.status, 201);
		assert.match(created.body.id, /^ctc_/);
		assert.equal(created.body.email, null);
		assert.deepEqual(created.body.attributes, { plan: 'pro' });
		const duplicate = await api.post('/api/v1/messenger/contacts', {
			name: 'Other',
			phone: '+34611222333',
		});
		assert.equal(duplicate.status, 409);
		assert.deepEqual(
			(await api.get(`/api/v1/messenger/contacts/${created.body.id}`)).body,
			created.body,
		);
		const search = await api.get('/api/v1/messenger/contacts/search/QUINTANA');
		assert.ok(Array.isArray(search.body));
		assert.deepEqual(
			search.body.map((/** @type {{ id: string }} */ c) => c.id),
			[created.body.id],
		);
		const byPhone = await api.get(
			`/api/v1/messenger/contacts/search/${encodeURIComponent('+34611222')}`,
		);
		assert.deepEqual(
			byPhone.body.map((/** @type {{ id: string }} */ c) => c.id),
			[created.body.id],
		);
		const seeded = sandbox.state.contacts[0];
		const byEmail = await api.get(
			`/api/v1/messenger/contacts/search/${seeded.email?.toUpperCase()}`,
		);
		assert.ok(byEmail.body.some((/** @type {{ id: string }} */ c) => c.id === seeded.id));
		assert.deepEqual((await api.get('/api/v1/messenger/contacts/search/zzzz-nobody')).body, []);
		const patched = await api.patch(
			`/api/v1/messenger/contacts/${created.body.id}/attributes/city`,
			{ value: 'Bilbao' },
		);
		assert.equal(patched.status, 200);
		assert.deepEqual(patched.body.attributes, { plan: 'pro', city: 'Bilbao' });
		const proto = await api.patch(
			`/api/v1/messenger/contacts/${created.body.id}/attributes/__proto__`,
			{ value: 1 },
		);
		assert.equal(proto.body.attributes.__proto__, 1);
		assert.equal(
			(await api.patch(`/api/v1/messenger/contacts/${created.body.id}/attributes/city`, {})).status,
			400,
		);
		const replaced = await api.put(`/api/v1/messenger/contacts/${created.body.id}/attributes`, {
			attributes: { tier: 'gold' },
		});
		assert.deepEqual(replaced.body.attributes, { tier: 'gold' });
		assert.deepEqual(sandbox.state.contacts.at(-1)?.attributes, { tier: 'gold' });
	});

	test('checks, marks and reopens chats', async (t) => {
		const { sandbox, api } = await sandboxWithClient(t);
		const open = sandbox.state.chats.find((c) => c.status === 'open' && !c.important);
		const closed = sandbox.state.chats.find((c) => c.status === 'closed');
		assert.ok(open && closed);
		const exists = await api.get(
			`/api/v1/messenger/chats/check-existing?phone=${encodeURIComponent(open.phone)}`,
		);
		assert.deepEqual(exists.body, { exists: true, chatId: open.id });
		const none = await api.get(
			`/api/v1/messenger/chats/check-existing?phone=${encodeURIComponent('+15550001111')}`,
		);
		assert.deepEqual(none.body, { exists: false, chatId: null });
		const marked = await api.patch(`/api/v1/messenger/chats/${open.id}/mark-important`);
		assert.equal(marked.status, 200);
		assert.equal(marked.body.important, true);
		const unmarked = await api.patch(`/api/v1/messenger/chats/${open.id}/mark-important`, {
			important: false,
		});
		assert.equal(unmarked.body.important, false);
		assert.deepEqual(Object.keys(unmarked.body), [
			'id',
			'contactId',
			'phone',
			'status',
			'important',
			'updatedAt',
		]);
		const reopened = await api.patch(`/api/v1/messenger/chats/${closed.id}/reopen`);
		assert.equal(reopened.status, 200);
		assert.equal(reopened.body.status, 'open');
		const conflict = await api.patch(`/api/v1/messenger/chats/${closed.id}/reopen`);
		assert.deepEqual(conflict.body, {
			statusCode: 409,
			message: 'Chat is already open',
			error: 'Conflict',
		});
	});
});
