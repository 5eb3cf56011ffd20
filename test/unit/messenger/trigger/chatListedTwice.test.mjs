// A chat listed by its ID and by a phone matched to it is one chat: one cursor, moved for both
// entries by whichever reads it, so that a restart that reloads only what n8n saved (a trigger()'s
// static data at the end of activation and at each emit, a poll's at activation and after a poll
// that returned items; handed back in n8n's proxies) reports its message once. Before the fix each
// entry kept its own cursor and the message came again after the restart.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ObservableObject } from 'n8n-workflow';

import { MessengerTrigger } from '../../../../nodes/Messenger/MessengerTrigger.node.ts';
import { createPollContext, httpError } from '../../../../tools/context.mjs';
import { fakeApi, message } from './chatApi.mjs';
import { activate, restartedData, until, useLiveTrigger } from './liveTrigger.mjs';

const PHONE = '+34600000001';
const CHATS = `cht_a, ${PHONE}`;
useLiveTrigger();

/** What n8n keeps of static data across a restart: a copy, wrapped in its proxies. */
const reloaded = (saved) => ObservableObject.create(JSON.parse(JSON.stringify(saved)));

/** The chat cht_a (one message) of the phone, a live trigger activated on `chats`, its static data then. */
async function activatedOn(chats) {
	const api = fakeApi();
	api.phones.set(PHONE, 'cht_a');
	api.add('cht_a', message('cht_a', 1));
	const first = await activate(api, { chats });
	return { api, first, activation: JSON.parse(JSON.stringify(first.staticData)) };
}

/** The trigger activated again after `first` stopped, on `chats`, with what n8n saved of it. */
const activatedAgain = async (api, first, activation, chats, mode) =>
	await activate(
		api,
		{ chats },
		{ staticData: restartedData(first, activation), activation: mode },
	);

describe('a chat listed by ID and by phone', () => {
	it('Live Trigger: its message comes once, across a restart, with the phone and one deduplication key', async () => {
		const { api, first, activation } = await activatedOn(CHATS);
		const [written] = api.add('cht_a', message('cht_a', 5));
		await until(() => first.emitted.length === 1);
		await first.stop();
		const again = await activatedAgain(api, first, activation, CHATS, 'init');
		const reads = api.historyCalls('cht_a');
		// Both entries read the chat a few times after the restart.
		await until(() => api.historyCalls('cht_a') >= reads + 6);
		await again.stop();
		assert.deepEqual(first.ids(), [written.id]);
		assert.deepEqual(again.ids(), [], 'not again after the restart');
		const [emit] = first.emitted;
		assert.equal(emit.items[0].json.phone, PHONE);
		assert.equal(emit.deduplicationKey, `messengerLive:workflow-1:node-1:cht_a/${written.id}`);
	});

	it('Live Trigger: the chat ID added beside its phone takes the phone’s cursor: what came while it was off comes once', async () => {
		const { api, first, activation } = await activatedOn(PHONE);
		await first.stop();
		const [meanwhile] = api.add('cht_a', message('cht_a', 5));
		const edited = await activatedAgain(api, first, activation, CHATS, 'update');
		await until(() => edited.emitted.length === 1);
		const reads = api.historyCalls('cht_a');
		await until(() => api.historyCalls('cht_a') >= reads + 6);
		await edited.stop();
		assert.deepEqual(edited.ids(), [meanwhile.id]);
	});

	it('Live Trigger: its chat gone (404), the phone is matched again and its new chat is read', async () => {
		const { api, first } = await activatedOn(CHATS);
		api.chats.delete('cht_a');
		api.phones.set(PHONE, 'cht_z');
		const written = api.written('cht_z');
		await until(() => first.emitted.length === 1);
		await first.stop();
		assert.deepEqual(first.ids(), [written.id]);
		assert.equal(first.emitted[0].items[0].json.phone, PHONE);
	});

	it('Message Received (polling): a read of one entry that failed does not bring the message again after a restart', async () => {
		const api = fakeApi();
		api.phones.set(PHONE, 'cht_a');
		api.add('cht_a', message('cht_a', 1));
		// The second history read of the poll that finds the message fails for this chat alone (403).
		let failRead;
		const http = async (type, options) => {
			if (/\/messages\/chat\//.test(options.url) && --failRead === 0) {
				throw httpError(403, { message: 'Forbidden' });
			}
			return await api.http(type, options);
		};
		const node = new MessengerTrigger();
		let saved = {};
		let staticData = {};
		const poll = async () => {
			const { context, emittedErrors } = createPollContext({
				params: { event: 'messageReceived', direction: 'inbound', messageTypes: [], chats: CHATS },
				http,
				credentials: { baseUrl: 'https://api.example.com', requestsPerMinute: 0 },
				staticData,
			});
			const result = await node.poll.call(context);
			const items = result ? result[0].map((item) => item.json) : [];
			// n8n saves a poll's static data at activation and after a poll that returned items.
			if (items.length || !saved.poll) saved = JSON.parse(JSON.stringify(staticData));
			return { items, emittedErrors };
		};
		await poll();
		const [written] = api.add('cht_a', message('cht_a', 5));
		failRead = 2;
		const found = await poll();
		assert.deepEqual(
			found.items.map((item) => item.messageId),
			[written.id],
		);
		assert.equal(found.emittedErrors.length, 1, 'the failed read is named');
		staticData = reloaded(saved);
		assert.deepEqual((await poll()).items, [], 'not again after the restart');
		assert.equal(found.items[0].phone, PHONE, 'found by the ID, sent with the phone');
		const [later] = api.add('cht_a', message('cht_a', 9));
		assert.deepEqual(
			(await poll()).items.map((item) => item.messageId),
			[later.id],
		);
	});
});
