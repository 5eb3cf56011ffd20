import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { NodeApiError } from '../../../tools/nodeShared.mjs';
import { MESSENGER_API as M, messengerSuite, openChat } from '../../support/integration.mjs';

describe('Messenger node against the sandbox: chats', () => {
	const env = messengerSuite('chats');

	it('Chat → Check Existing: true with the ID for an open chat, false for a closed one', async () => {
		const { sandbox, messenger } = env;
		const open = openChat(sandbox);
		const closed = sandbox.state.chats.find(
			(c) =>
				c.status === 'closed' &&
				!sandbox.state.chats.some((o) => o.status === 'open' && o.phone === c.phone),
		);
		const [yes] = await messenger.run({
			resource: 'chat',
			operation: 'checkExisting',
			phone: open.phone.replace(/^\+(\d\d)(\d{3})/, '+$1 $2 '),
			options: {},
		});
		assert.deepEqual(yes.json, { exists: true, chatId: open.id });
		const [no] = await messenger.run({
			resource: 'chat',
			operation: 'checkExisting',
			phone: closed.phone,
			options: {},
		});
		assert.deepEqual(no.json, { exists: false, chatId: null });
		const checks = sandbox.log
			.slice(env.mark)
			.filter((e) => e.path === `${M}/chats/check-existing`);
		assert.deepEqual(
			checks.map((e) => [e.query.phone, e.status]),
			[
				[open.phone, 200],
				[closed.phone, 200],
			],
		);
	});

	it('Chat → Get Messages: Return All pages through the history; Limit asks once', async () => {
		const { sandbox, messenger } = env;
		const chat = sandbox.state.chats[0];
		const history = sandbox.state.messages.filter((m) => m.chatId === chat.id);
		assert.ok(history.length > 20);
		const all = await messenger.run({
			resource: 'chat',
			operation: 'getMessages',
			chatId: chat.id,
			returnAll: true,
			options: {},
		});
		assert.deepEqual(new Set(all.map((o) => o.json.id)), new Set(history.map((m) => m.id)));
		assert.equal(all.length, history.length);
		env.mark = sandbox.log.length;
		const five = await messenger.run({
			resource: 'chat',
			operation: 'getMessages',
			chatId: chat.id,
			returnAll: false,
			limit: 5,
			options: { sort: 'asc' },
		});
		assert.equal(five.length, 5);
		const created = five.map((o) => o.json.createdAt);
		assert.deepEqual(created, [...created].sort());
		assert.deepEqual(
			sandbox.log.slice(env.mark).map((e) => [e.path, e.query.limit, e.query.sort, e.status]),
			[[`${M}/messages/chat/${chat.id}`, '5', 'asc', 200]],
		);
	});

	it('Chat → Mark Important sets and clears the mark', async () => {
		const { sandbox, messenger } = env;
		const chat = sandbox.state.chats.find((c) => !c.important);
		const [marked] = await messenger.run({
			resource: 'chat',
			operation: 'markImportant',
			chatId: chat.id,
			important: true,
			options: {},
		});
		assert.equal(marked.json.important, true);
		assert.equal(chat.important, true);
		const [cleared] = await messenger.run({
			resource: 'chat',
			operation: 'markImportant',
			chatId: chat.id,
			important: false,
			options: {},
		});
		assert.equal(cleared.json.important, false);
		assert.equal(chat.important, false);
		assert.deepEqual(
			env.apiRequests(),
			Array(2).fill(`PATCH ${M}/chats/${chat.id}/mark-important 200`),
		);
	});

	it('Chat → Reopen opens a closed chat; reopening an open one says it is already open', async () => {
		const { sandbox, messenger } = env;
		const chat = sandbox.state.chats.find((c) => c.status === 'closed');
		const [reopened] = await messenger.run({
			resource: 'chat',
			operation: 'reopen',
			chatId: chat.id,
		});
		assert.equal(reopened.json.status, 'open');
		assert.equal(chat.status, 'open');
		await assert.rejects(
			messenger.run({ resource: 'chat', operation: 'reopen', chatId: chat.id }),
			(error) => {
				assert.ok(error instanceof NodeApiError);
				assert.match(error.message, new RegExp(`Chat "${chat.id}" is already open`));
				assert.match(error.description, /Chat is already open/);
				return true;
			},
		);
		assert.deepEqual(env.apiRequests(), [
			`PATCH ${M}/chats/${chat.id}/reopen 200`,
			`PATCH ${M}/chats/${chat.id}/reopen 409`,
		]);
	});

	it('reached each of its endpoints with success', () => {
		assert.deepEqual(env.unreachedEndpoints(), []);
	});
});
