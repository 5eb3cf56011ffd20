// Messenger Chat Memory's answers kept on the contact (docs/api.md, Broadcast in chat history):
// whichever way the workflow sends its answers (in the chat, as a Broadcast text the history shows,
// as one it does not), the agent sees each of its earlier answers once, in its place, under every
// order the history may come in; the attribute stays within its limits; a failure names what failed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import fc from 'fast-check';

import {
	memorySettings,
	messengerChatMemory,
} from '../../../../nodes/Messenger/memory/chatMemory.ts';
import {
	KEPT_ANSWERS_ATTRIBUTE,
	keptAnswersOf,
	MAX_KEPT_ANSWERS,
	MAX_KEPT_CHARS,
	withAnswer,
} from '../../../../nodes/Messenger/memory/keptAnswers.ts';
import { at, HISTORY_ORDERS, memoryApi, memoryContext, said } from './memoryApi.mjs';

const RUNS = Number(process.env.FC_RUNS ?? 100);
const CHAT = 'cht_1';
const PHONE = '+34600000001';

/** The memory of one execution: the trigger's item for `answered`, a context of its own. */
function memoryOf(api, answered, options = {}) {
	const last = answered[answered.length - 1];
	const item = {
		chatId: CHAT,
		phone: PHONE,
		messageIds: answered.map((message) => message.id),
		lastAt: last.createdAt,
	};
	const context = memoryContext(api, { item, params: { options } });
	return messengerChatMemory(context, memorySettings(context, 0));
}

/** The API with a chat holding the customer's "hi" (`m1`, a second into the day). */
function apiWithOneMessage() {
	const api = memoryApi();
	const hi = { id: 'm1', chatId: CHAT, direction: 'inbound', type: 'text', content: 'hi' };
	api.chats.set(CHAT, [{ ...hi, createdAt: at(1) }]);
	return api;
}

const turnArbitrary = fc.record({
	customer: fc.integer({ min: 1, max: 3 }),
	/** Seconds between events: 0 puts two in the same second (then ordered by ID). */
	gaps: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 6, maxLength: 6 }),
	way: fc.constantFrom('broadcast', 'chat'),
	person: fc.boolean(),
});

/**
 * A conversation run turn by turn: the customer writes, the agent reads its memory and answers,
 * the workflow sends the answer (`way`), sometimes a person writes from the inbox. Before each
 * answer the memory must give exactly the turns so far, in order, the latest `window` of them.
 */
async function converse({ turns, reading, order, window, known }) {
	const api = memoryApi({ order });
	const history = [];
	api.chats.set(CHAT, history);
	api.phones.set(PHONE, CHAT);
	if (known) api.contacts.set(PHONE, { id: 'ctc_known', phone: PHONE, attributes: {} });
	let second = 0;
	let id = 0;
	const add = (direction, content, type = 'text', gap = 1) => {
		second += gap;
		const message = {
			id: `msg_${String(++id).padStart(5, '0')}`,
			chatId: CHAT,
			direction,
			type,
			content,
			status: 'delivered',
			createdAt: at(second),
		};
		history.push(message);
		return message;
	};
	const expected = [];
	for (const [n, turn] of turns.entries()) {
		const answered = Array.from({ length: turn.customer }, (_, i) =>
			add('inbound', `c${n}.${i}`, 'text', turn.gaps[i]),
		);
		const memory = memoryOf(api, answered, { contextWindow: window });
		const writes = api.calls.filter((call) => call.method !== 'GET').length;
		assert.deepEqual(said(await memory.loadMessages()), expected.slice(-window), `turn ${n}`);
		await memory.saveTurn(answered.map((m) => m.content).join('\n'), ` a${n} `);
		assert.equal(api.calls.filter((call) => call.method !== 'GET').length, writes + 1);
		expected.push(...answered.map((m) => `user: ${m.content}`));
		if (turn.way === 'chat') {
			add('outbound', { url: 'https://x/f.pdf', caption: `a${n}` }, 'document', turn.gaps[3]);
			expected.push(`assistant: [document] a${n}`);
		} else {
			if (reading === 'shown') add('outbound', `a${n}`, 'text', turn.gaps[3]);
			expected.push(`assistant: a${n}`);
		}
		if (turn.person) {
			add('outbound', `p${n}`, 'text', turn.gaps[4]);
			expected.push(`assistant: p${n}`);
		}
	}
	return api;
}

describe('answers kept on the contact', () => {
	it(`each earlier answer once and in its place, under both readings and every history order (${RUNS} conversations)`, async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.record({
					turns: fc.array(turnArbitrary, { minLength: 1, maxLength: 8 }),
					reading: fc.constantFrom('hidden', 'shown'),
					order: fc.constantFrom(...HISTORY_ORDERS),
					window: fc.integer({ min: 1, max: 30 }),
					known: fc.boolean(),
				}),
				async (conversation) => {
					await converse(conversation);
				},
			),
			{ numRuns: RUNS },
		);
	});

	it('a Broadcast answer the history does not show: read beside the history, kept in one write', async () => {
		const turns = [0, 1].map(() => ({ customer: 1, gaps: [1, 1, 1, 1, 1, 1], way: 'broadcast' }));
		const api = await converse({
			turns,
			reading: 'hidden',
			order: 'newestFirst',
			window: 20,
			known: true,
		});
		const calls = api.calls.map(
			(call) => `${call.method ?? 'GET'} ${call.url.split('/').slice(4, 6).join('/')}`,
		);
		// Per answer: the contact and the history (read together), then the answer kept.
		assert.deepEqual(calls, [
			'GET contacts/search',
			'GET messages/chat',
			'PATCH contacts/ctc_known',
			'GET contacts/search',
			'GET messages/chat',
			'PATCH contacts/ctc_known',
		]);
		const kept = keptAnswersOf(api.contacts.get(PHONE).attributes[KEPT_ANSWERS_ATTRIBUTE]);
		assert.deepEqual(
			kept.map((answer) => answer.text),
			['a0', 'a1'],
		);
	});

	it("a phone with no contact gets one holding the answer; the chat's history alone with In the Chat's History", async () => {
		const api = apiWithOneMessage();
		const memory = memoryOf(api, api.chats.get(CHAT));
		assert.deepEqual(await memory.loadMessages(), []);
		await memory.saveTurn('hi', 'Hello!');
		const created = api.calls.at(-1);
		assert.equal(created.method, 'POST');
		assert.equal(created.body.phone, PHONE);
		assert.deepEqual(keptAnswersOf(created.body.attributes[KEPT_ANSWERS_ATTRIBUTE]), [
			{ chatId: CHAT, after: at(1), afterId: 'm1', text: 'Hello!' },
		]);

		const before = api.calls.length;
		const inChat = memoryOf(api, api.chats.get(CHAT), { broadcastAnswers: 'chat' });
		await inChat.loadMessages();
		await inChat.saveTurn('hi', 'Hello again');
		assert.deepEqual(
			api.calls.slice(before).map((call) => call.url.split('/').slice(4, 6).join('/')),
			['messages/chat'],
		);
	});

	it('the contact that fails names itself, the answer not kept quietly', async () => {
		const api = apiWithOneMessage();
		api.contacts.set(PHONE, { id: 'ctc_1', phone: PHONE, attributes: {}, failing: 502 });
		const memory = memoryOf(api, api.chats.get(CHAT));
		await assert.rejects(
			memory.loadMessages(),
			/answers kept on the contact of \+34600000001 could not be read/,
		);
		delete api.contacts.get(PHONE).failing;
		await memory.loadMessages();
		api.contacts.get(PHONE).failing = 502;
		await assert.rejects(
			memory.saveTurn('hi', 'Hello'),
			/answer could not be kept on the contact of \+34600000001/,
		);
	});

	it('another contact whose phone merely contains this one keeps nothing for it', async () => {
		const api = apiWithOneMessage();
		const other = JSON.stringify([{ chatId: CHAT, after: at(0), text: 'not yours' }]);
		api.contacts.set('+3460000000199', {
			id: 'ctc_9',
			phone: '+3460000000199',
			attributes: { [KEPT_ANSWERS_ATTRIBUTE]: other },
		});
		const memory = memoryOf(api, [{ id: 'm2', createdAt: at(2) }]);
		assert.deepEqual(said(await memory.loadMessages()), ['user: hi']);
	});

	it('the attribute keeps the newest answers within its count and size', () => {
		const answer = (i, size = 10) => ({
			chatId: CHAT,
			after: at(i),
			text: `${i}`.padEnd(size, '.'),
		});
		const many = Array.from({ length: MAX_KEPT_ANSWERS }, (_, i) => answer(i));
		const kept = keptAnswersOf(withAnswer(many, answer(MAX_KEPT_ANSWERS)));
		assert.equal(kept.length, MAX_KEPT_ANSWERS);
		assert.equal(kept[0].after, at(1));
		const long = Array.from({ length: 5 }, (_, i) => answer(i, 6_000));
		const value = withAnswer(long, answer(5, 6_000));
		assert.ok(value.length <= MAX_KEPT_CHARS);
		assert.deepEqual(
			keptAnswersOf(value).map((a) => a.after),
			[at(3), at(4), at(5)],
		);
	});

	it("a value that is not this memory's is read as no answers", () => {
		for (const value of [undefined, '', 'hello', '{"a":1}', 42, '[1,{"text":"x"}]']) {
			assert.deepEqual(keptAnswersOf(value), []);
		}
		assert.equal(keptAnswersOf([{ chatId: CHAT, after: at(1), text: 'x' }]).length, 1);
	});
});
