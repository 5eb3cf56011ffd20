// Messenger Chat Memory: what the AI Agent sees of a chat (the customer's messages as the user's,
// the team's as the assistant's, media and locations in words, nothing of another chat), the
// window, the messages being answered left to the prompt under each order the history may come
// in, the requests it costs, and a failed read as an error naming the chat.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import fc from 'fast-check';

import { latestTurns, memorySettings } from '../../../../nodes/Messenger/memory/chatMemory.ts';
import { conversation, turnOf } from '../../../../nodes/Messenger/memory/chatTurns.ts';
import { retrySettings } from '../../../../nodes/shared/transport.ts';
import { NodeApiError } from '../../../../tools/nodeShared.mjs';
import { chatOf, HISTORY_ORDERS, memoryApi, memoryContext, said } from './memoryApi.mjs';

/** Chats tried per order; FC_RUNS sets another number. */
const RUNS = Number(process.env.FC_RUNS ?? 150);

async function turnsFor(api, options) {
	const context = memoryContext(api, options);
	return await latestTurns(context, memorySettings(context, 0));
}

describe('the chat as the agent sees it', () => {
	it('inbound is the user, outbound the assistant; media and locations in words', () => {
		const base = { id: 'm', chatId: 'cht_1', createdAt: '2026-03-01T10:00:00Z' };
		const cases = [
			[{ direction: 'inbound', type: 'text', content: ' Hola ' }, 'user: Hola'],
			[{ direction: 'outbound', type: 'text', content: 'Hi!' }, 'assistant: Hi!'],
			[
				{
					direction: 'inbound',
					type: 'image',
					content: { url: 'https://x/a.jpg', fileName: 'menu.jpg', caption: 'This one?' },
				},
				'user: [image: menu.jpg] This one?',
			],
			[
				{ direction: 'outbound', type: 'document', content: { url: 'https://x/b' } },
				'assistant: [document]',
			],
			[
				{
					direction: 'inbound',
					type: 'location',
					content: { latitude: 40.4, longitude: -3.7, name: 'Office', address: 'Gran Vía 1' },
				},
				'user: [location: Office, Gran Vía 1 (40.4, -3.7)]',
			],
		];
		for (const [message, expected] of cases) {
			assert.deepEqual(said([turnOf({ ...base, ...message })]), [expected]);
		}
	});

	it('leaves out what the customer never saw (a failed send), empty texts and unknown directions', () => {
		const base = {
			id: 'm',
			chatId: 'cht_1',
			type: 'text',
			content: 'x',
			createdAt: '2026-03-01T10:00:00Z',
		};
		assert.equal(turnOf({ ...base, direction: 'outbound', status: 'failed' }), undefined);
		assert.equal(turnOf({ ...base, direction: 'inbound', content: '  ' }), undefined);
		assert.equal(turnOf({ ...base, direction: 'system' }), undefined);
		assert.ok(turnOf({ ...base, direction: 'inbound', status: 'failed' }));
	});

	it('never shows a message of another chat, even when the API answers with one', () => {
		const mine = chatOf('cht_1', ['in', 'out']);
		const other = chatOf('cht_2', ['in']).map((m) => ({
			...m,
			id: 'msg_other',
			content: 'secret',
		}));
		const turns = conversation([...mine, ...other], 'cht_1', { ids: new Set() }, 20);
		assert.deepEqual(said(turns), ['user: m0', 'assistant: m1']);
	});
});

describe('the window and the requests', () => {
	const saved = { ...retrySettings };
	before(() => Object.assign(retrySettings, { baseDelayMs: 0, maxDelayMs: 0 }));
	after(() => Object.assign(retrySettings, saved));

	it('a 1,000-message chat: the latest 20 turns (the default), oldest first, in one request', async () => {
		const api = memoryApi();
		const messages = chatOf(
			'cht_1',
			Array.from({ length: 1000 }, (_, i) => (i % 2 ? 'out' : 'in')),
		);
		api.chats.set('cht_1', messages);
		const prompt = messages[999 - 1]; // an inbound message: m998
		api.chats.set('cht_1', messages.slice(0, 999));
		const { turns, requests } = await turnsFor(api, {
			item: { chatId: 'cht_1', messageId: prompt.id, text: 'm998', createdAt: prompt.createdAt },
		});
		assert.equal(requests, 1);
		assert.equal(api.calls[0].qs.limit, 26);
		assert.equal(turns.length, 20);
		assert.deepEqual(said(turns).slice(-2), ['user: m996', 'assistant: m997']);
		assert.equal(turns[0].content[0].text, 'm978');
	});

	it('a smaller window keeps the request smaller', async () => {
		const api = memoryApi();
		api.chats.set(
			'cht_1',
			chatOf(
				'cht_1',
				Array.from({ length: 50 }, () => 'in'),
			),
		);
		const { turns } = await turnsFor(api, {
			item: { chatId: 'cht_1' },
			params: { options: { contextWindow: 4 } },
		});
		assert.deepEqual(said(turns), ['user: m46', 'user: m47', 'user: m48', 'user: m49']);
		assert.equal(api.calls[0].qs.limit, 9);
	});

	it('a phone: its open chat (Check Existing), then the history: two requests', async () => {
		const api = memoryApi();
		api.chats.set('cht_1', chatOf('cht_1', ['in', 'out', 'in']));
		api.phones.set('+34600000001', 'cht_1');
		const inChat = { chat: '+34 600 000 001', options: { broadcastAnswers: 'chat' } };
		const { turns, requests } = await turnsFor(api, { params: inChat });
		assert.equal(requests, 2);
		// Kept on the contact (the default): its search too, beside the history.
		const kept = await turnsFor(api, { params: { chat: '+34 600 000 001' } });
		assert.equal(kept.requests, 3);
		assert.deepEqual(kept.turns, turns);
		assert.deepEqual(said(turns), ['user: m0', 'assistant: m1', 'user: m2']);
	});

	it('a phone without an open chat: a new conversation, nothing remembered', async () => {
		const api = memoryApi();
		const { turns } = await turnsFor(api, { params: { chat: '+34600000002' } });
		assert.deepEqual(turns, []);
	});

	it('a failed read is an error that names the chat, never an empty memory', async () => {
		const api = memoryApi();
		api.failing.set('cht_down', 503);
		await assert.rejects(turnsFor(api, { item: { chatId: 'cht_down' } }), (error) => {
			assert.ok(error instanceof NodeApiError);
			assert.match(error.message, /history of chat cht_down could not be read/);
			assert.doesNotMatch(JSON.stringify(error), /must-never-leak/);
			return true;
		});
		await assert.rejects(
			turnsFor(memoryApi(), { item: { chatId: 'cht_gone' } }),
			/cht_gone.*not found/i,
		);
	});

	it('an empty Chat is refused, naming the field', async () => {
		const api = memoryApi();
		const context = memoryContext(api, { params: { chat: ' ' } });
		assert.throws(() => memorySettings(context, 0), /Chat is empty/);
		assert.equal(api.calls.length, 0);
	});
});

/**
 * A chat of random directions and times (some shared) whose newest `group` messages are inbound
 * and form the trigger's item (one message, or a group as Group by Chat and Wait for a Pause give).
 */
const chatArbitrary = fc
	.record({
		directions: fc.array(fc.constantFrom('in', 'out'), {
			minLength: 0,
			maxLength: 240,
			size: 'max',
		}),
		group: fc.integer({ min: 1, max: 5 }),
		window: fc.integer({ min: 1, max: 40 }),
		ties: fc.boolean(),
		grouped: fc.boolean(),
		seed: fc.integer(),
	})
	.map((chat) => ({ ...chat, directions: [...chat.directions, ...Array(chat.group).fill('in')] }));

function itemOf(messages, chat) {
	const group = messages.slice(-chat.group);
	const last = group[group.length - 1];
	if (!chat.grouped && chat.group === 1) {
		return { chatId: 'cht_1', messageId: last.id, text: last.content, createdAt: last.createdAt };
	}
	return {
		chatId: 'cht_1',
		messageIds: group.map((m) => m.id),
		text: group.map((m) => m.content).join('\n'),
		lastAt: last.createdAt,
		messages: group.map((m) => ({ messageId: m.id, chatId: 'cht_1', text: m.content })),
	};
}

describe('the words being answered come once (as the prompt), under each history order', () => {
	const saved = { ...retrySettings };
	before(() => Object.assign(retrySettings, { baseDelayMs: 0, maxDelayMs: 0 }));
	after(() => Object.assign(retrySettings, saved));

	for (const order of HISTORY_ORDERS) {
		it(`${order}: the latest turns before the prompt, none of the prompt's messages (${RUNS} chats)`, async () => {
			await fc.assert(
				fc.asyncProperty(chatArbitrary, async (chat) => {
					const messages = chatOf(
						'cht_1',
						chat.directions,
						chat.ties ? (i) => Math.floor(i / 3) : undefined,
					);
					const random = fc.sample(fc.shuffledSubarray(messages, { minLength: messages.length }), {
						seed: chat.seed,
						numRuns: 1,
					})[0];
					const api = memoryApi({ order, shuffle: () => random });
					api.chats.set('cht_1', messages);
					const { turns, requests } = await turnsFor(api, {
						item: itemOf(messages, chat),
						params: { options: { contextWindow: chat.window } },
					});
					const expected = messages
						.slice(0, -chat.group)
						.slice(-chat.window)
						.map((m) => `${m.direction === 'inbound' ? 'user' : 'assistant'}: ${m.content}`);
					assert.deepEqual(said(turns), expected);
					if (order === 'newestFirst') assert.equal(requests, 1);
					if (order === 'oldestFirst') assert.ok(requests <= 3, `${requests} requests`);
				}),
				{ numRuns: RUNS },
			);
		});
	}
});
