// Messenger Trigger: a watched ID the API does not know. A person activating the workflow
// (publish, save, activate, a manual run) may be refused it, with an error naming it; at n8n's
// start-up, a leadership change, or when n8n does not say how it activates, the workflow is
// already running: the unknown ID is a failed execution naming it, and the others are watched.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { httpError, scriptedHttp } from '../../../../tools/context.mjs';
import { trigger } from './triggerPolls.mjs';

/** Broadcast messages and chats in memory; what is not there answers 404. */
function fakeApi() {
	const broadcast = new Map();
	const chats = new Map();
	const { http } = scriptedHttp(async (options) => {
		const url = String(options.url);
		const id = decodeURIComponent(url.slice(url.lastIndexOf('/') + 1));
		if (url.includes('/broadcast/messages/')) {
			if (!broadcast.has(id)) throw httpError(404, { message: 'Message not found' });
			return { id, status: broadcast.get(id) };
		}
		if (!chats.has(id)) throw httpError(404, { message: 'Chat not found' });
		const items = [...chats.get(id)].reverse();
		return { items, total: items.length, page: 1, totalPages: 1 };
	});
	return { http, broadcast, chats };
}

/**
 * bm_0001 queued and bm_0002 unknown, both watched by a trigger activated in `mode` (undefined:
 * an n8n whose context does not say).
 */
function watchingUnknownBroadcast(mode) {
	const api = fakeApi();
	api.broadcast.set('bm_0001', 'queued');
	const t = trigger(
		api,
		{ event: 'broadcastStatusChanged', messageIds: 'bm_0001, bm_0002' },
		{ mode },
	);
	return { api, t };
}

let counter = 0;
const message = (chatId, second) => ({
	id: `msg_${String(++counter).padStart(4, '0')}`,
	chatId,
	direction: 'inbound',
	type: 'text',
	content: 'hi',
	createdAt: new Date(Date.parse('2026-03-01T10:00:00Z') + second * 1000).toISOString(),
});

describe('Broadcast Message Status Changed: an unknown watched ID', () => {
	for (const mode of ['init', 'leadershipChange', 'update', undefined]) {
		it(`activated by n8n (${mode ?? 'mode not given'}): the unknown ID is a failed execution naming it; the others' changes are reported`, async () => {
			const { api, t } = watchingUnknownBroadcast(mode);
			const first = await t.poll();
			assert.deepEqual(first.items, []);
			assert.equal(first.emittedErrors.length, 1);
			assert.match(
				first.emittedErrors[0].message,
				/The watched broadcast message "bm_0002" was not found/,
			);
			assert.deepEqual(first.emittedErrors[0].failure, { cause: 'configuration-invalid' });
			api.broadcast.set('bm_0001', 'sent');
			const next = await t.poll();
			assert.deepEqual(
				next.items.map(({ json: c }) => [c.messageId, c.previousStatus, c.status]),
				[['bm_0001', 'queued', 'sent']],
			);
			assert.deepEqual(next.emittedErrors, [], 'named once, not asked for again while listed');
		});
	}

	for (const mode of ['activate', 'create', 'manual']) {
		it(`activated by a person (${mode}): the unknown ID is refused, naming it`, async () => {
			const { t } = watchingUnknownBroadcast(mode);
			await assert.rejects(t.poll(), /The watched broadcast message "bm_0002" was not found/);
			assert.equal(t.staticData.poll, undefined);
		});
	}
});

describe('Message Received: an unknown watched chat', () => {
	for (const mode of ['init', 'leadershipChange', 'update', undefined]) {
		it(`activated by n8n (${mode ?? 'mode not given'}): the unknown chat is a failed execution naming it; the others are reported`, async () => {
			const api = fakeApi();
			api.chats.set('cht_a', [message('cht_a', 0)]);
			const t = trigger(api, { event: 'messageReceived', chats: 'cht_typo, cht_a' }, { mode });
			const first = await t.poll();
			assert.deepEqual(first.items, []);
			assert.equal(first.emittedErrors.length, 1);
			assert.match(first.emittedErrors[0].message, /The watched chat "cht_typo" was not found/);
			const fresh = message('cht_a', 1);
			api.chats.get('cht_a').push(fresh);
			const next = await t.poll();
			assert.deepEqual(
				next.items.map(({ json: m }) => m.messageId),
				[fresh.id],
			);
			assert.deepEqual(next.emittedErrors, []);
		});
	}

	it('at start-up, three unknown chats are named in one failed execution', async () => {
		const api = fakeApi();
		api.chats.set('cht_a', [message('cht_a', 0)]);
		const chats = 'cht_x, cht_a, cht_y, cht_z';
		const t = trigger(api, { event: 'messageReceived', chats }, { mode: 'init' });
		const first = await t.poll();
		assert.equal(first.emittedErrors.length, 1);
		for (const chat of ['cht_x', 'cht_y', 'cht_z']) {
			assert.match(first.emittedErrors[0].message, new RegExp(`"${chat}" was not found`));
		}
	});

	it('activated by a person: the unknown chat is refused, naming it', async () => {
		const api = fakeApi();
		api.chats.set('cht_a', [message('cht_a', 0)]);
		const t = trigger(
			api,
			{ event: 'messageReceived', chats: 'cht_a, cht_typo' },
			{ mode: 'activate' },
		);
		await assert.rejects(t.poll(), /The watched chat "cht_typo" was not found/);
		assert.equal(t.staticData.poll, undefined);
	});
});
