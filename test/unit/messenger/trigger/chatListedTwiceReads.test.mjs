// A chat listed by its ID and by a phone matched to it is read as one chat: as often as a chat
// listed once, so that it takes no more of the live budget than any other. Ten minutes of the
// Live Trigger's life on a virtual clock (test/support/virtualTime.mjs), hosted as n8n hosts it
// (test/support/triggerHost.mjs), with the schedule's real times and a budget that limits the
// reads. Before the fix each entry had its own turn: the chat was read twice as often as the others.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';

import { MessengerLiveTrigger } from '../../../../nodes/Messenger/MessengerLiveTrigger.node.ts';
import { readersOfChats } from '../../../../nodes/Messenger/trigger/chatOfPhone.ts';
import { resetPacing } from '../../../../nodes/shared/pacing.ts';
import { triggerHost } from '../../../support/triggerHost.mjs';
import { onVirtualTime } from '../../../support/virtualTime.mjs';
import { fakeApi, message, T0 } from './chatApi.mjs';
import { PARAMS } from './liveTrigger.mjs';

const PHONE = '+34600000001';
const MINUTE = 60_000;
/** 12 reads a minute for five entries: the budget, not the quiet chats' bounds, sets the gaps. */
const CREDENTIALS = {
	baseUrl: 'https://api.example.com',
	clientId: 'listed-twice',
	requestsPerMinute: 0,
	liveRequestsPerMinute: 12,
};

afterEach(() => resetPacing());

/** Runs the Live Trigger on `chats` for `minutes`, a message written to cht_a at half time. */
async function readsOver(chats, minutes) {
	return await onVirtualTime(T0, async (clock) => {
		const api = fakeApi();
		api.phones.set(PHONE, 'cht_a');
		for (const chat of ['cht_a', 'cht_b', 'cht_c', 'cht_d']) api.add(chat, message(chat, -60));
		const host = triggerHost({
			makeNode: () => new MessengerLiveTrigger(),
			context: { params: { ...PARAMS, chats }, credentials: CREDENTIALS },
			http: api.http,
			clock,
		});
		assert.ok(await host.activate('activate'));
		const counts = () => ({
			a: api.historyCalls('cht_a'),
			b: api.historyCalls('cht_b'),
		});
		const atStart = counts();
		await clock.runUntil(Date.now() + (minutes / 2) * MINUTE);
		const written = api.written('cht_a');
		await clock.runUntil(Date.now() + (minutes / 2) * MINUTE);
		const atEnd = counts();
		await host.close();
		return {
			a: atEnd.a - atStart.a,
			b: atEnd.b - atStart.b,
			written,
			emits: host.emits,
		};
	});
}

describe('Messenger Live Trigger: a chat listed by ID and by phone', () => {
	it('is read about as often as a chat listed once, and its message comes once with the phone', async () => {
		const run = await readsOver(`cht_a, ${PHONE}, cht_b, cht_c, cht_d`, 10);
		assert.ok(run.b >= 15, `cht_b read ${run.b} times in 10 minutes`);
		assert.ok(run.a <= run.b * 1.25, `cht_a read ${run.a} times, cht_b ${run.b}`);
		const items = run.emits.flatMap((emit) => emit.items.map((item) => item.json));
		assert.deepEqual(
			items.map((item) => item.messageId),
			[run.written.id],
		);
		assert.equal(items[0].phone, PHONE);
	});
});

describe('readersOfChats: one entry reads each chat', () => {
	const ID = { key: 'cht_a', chatId: 'cht_a' };
	const phone = (number) => ({ key: number, phone: number });
	const OTHER = '+34600000002';

	it('its ID entry, wherever listed; a phone not matched yet reads on its own', () => {
		const entries = [phone(PHONE), ID, phone(OTHER)];
		const watches = { [PHONE]: { at: '', ids: [], chatId: 'cht_a' }, [OTHER]: { at: '', ids: [] } };
		assert.deepEqual(readersOfChats(entries, watches, new Set()), ['cht_a', OTHER]);
	});

	it('two phones of one chat: the first listed', () => {
		const entries = [phone(PHONE), phone(OTHER)];
		const watch = { at: '', ids: [], chatId: 'cht_b' };
		const watches = { [PHONE]: watch, [OTHER]: watch };
		assert.deepEqual(readersOfChats(entries, watches, new Set()), [PHONE]);
	});

	it('an ID the API did not know at its last read: a phone matched to it reads on its own (and is matched again)', () => {
		const entries = [ID, phone(PHONE)];
		const watches = { [PHONE]: { at: '', ids: [], chatId: 'cht_a' } };
		assert.deepEqual(readersOfChats(entries, watches, new Set(['cht_a'])), ['cht_a', PHONE]);
	});
});
