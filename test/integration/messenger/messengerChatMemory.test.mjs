// Messenger Chat Memory against the sandbox over loopback HTTP, as n8n's AI Agent uses it: a
// customer writes, the workflow answers (a media send in the chat, a WhatsApp text through
// Broadcast), the customer writes again; the memory gives the agent the turns before the words it
// answers, in one history request, under both orders of the history and both readings of whether
// a broadcast shows in the chat; a chat the API cannot read fails naming it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Messenger } from '../../../nodes/Messenger/Messenger.node.ts';
import {
	latestTurns,
	memorySettings,
	messengerChatMemory,
} from '../../../nodes/Messenger/memory/chatMemory.ts';
import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { createExecuteContext, sandboxHttp } from '../../../tools/context.mjs';
import { sandboxRunner } from '../../../tools/sandboxRun.mjs';
import { apiCallsSince, withSandbox } from '../../support/integration.mjs';
import { supplyContext } from '../../unit/messenger/memory/memoryApi.mjs';

const PHONE = '+34600111222';
/** A few milliseconds, so that each message has a time of its own (ties go by random IDs). */
const tick = async () => await new Promise((resolve) => setTimeout(resolve, 5));
const said = (turns) => turns.map((turn) => `${turn.role}: ${turn.content[0].text}`);

/** The context of a memory node for an item, on a credential of its own (as a workflow's has). */
function memoryContextFor(sandbox, item, params = {}) {
	const auth = sandboxHttp(sandbox, DEMO_CLIENTS.messengerOnly, { requestsPerMinute: 0 });
	return supplyContext(
		createExecuteContext({
			params: { chat: item.chatId, options: { broadcastAnswers: 'chat' }, ...params },
			items: [{ json: item }],
			credentials: auth.store.data,
			http: auth.httpRequestWithAuthentication,
		}),
	);
}

/** The turns the memory for an item reads. */
function memoryFor(sandbox, item, params = {}) {
	const context = memoryContextFor(sandbox, item, params);
	return async () => await latestTurns(context, memorySettings(context, 0));
}

/** The memory the agent gets for an item, with its defaults (answers kept on the contact). */
function agentMemory(sandbox, item) {
	const context = memoryContextFor(sandbox, item, { options: {} });
	return messengerChatMemory(context, memorySettings(context, 0));
}

/** Messenger → Broadcast → Send of a WhatsApp `text` to the customer (how the example answers). */
const broadcastText = (text) => ({
	resource: 'broadcast',
	operation: 'send',
	channel: 'whatsapp',
	recipientsInput: 'json',
	recipientsJson: JSON.stringify([{ phone: PHONE }]),
	messageContent: 'text',
	text,
	options: {},
});

/** A conversation: the customer, the workflow's answers both ways, two messages being answered. */
async function converse(sandbox) {
	const messenger = sandboxRunner(Messenger, sandbox, DEMO_CLIENTS.messengerOnly, {
		requestsPerMinute: 0,
	});
	const first = sandbox.customerWrites({ phone: PHONE, text: 'Do you deliver to Madrid?' });
	const chatId = first.chat.id;
	await tick();
	await messenger.run({
		resource: 'message',
		operation: 'sendMedia',
		chatId,
		url: 'https://example.com/zones.pdf',
		mediaType: 'document',
		options: { caption: 'Yes, these are our zones', fileName: 'zones.pdf' },
	});
	await tick();
	await messenger.run(broadcastText('Anything else?'));
	await tick();
	const later = [sandbox.customerWrites({ chatId, text: 'Great.' }).items[0]];
	await tick();
	later.push(sandbox.customerWrites({ chatId, text: 'How much is it?' }).items[0]);
	// The item of a Live Trigger with Group by Chat / Wait for a Pause.
	const item = {
		chatId,
		phone: PHONE,
		messageCount: 2,
		text: 'Great.\nHow much is it?',
		lastAt: later[1].createdAt,
		messageIds: later.map((m) => m.id),
	};
	return { chatId, item };
}

const BEFORE_PROMPT = {
	hidden: [
		'user: Do you deliver to Madrid?',
		'assistant: [document: zones.pdf] Yes, these are our zones',
	],
	shown: [
		'user: Do you deliver to Madrid?',
		'assistant: [document: zones.pdf] Yes, these are our zones',
		'assistant: Anything else?',
	],
};

describe('Messenger Chat Memory against the sandbox', () => {
	for (const historyOrder of ['sort', 'asc']) {
		for (const broadcastHistory of ['hidden', 'shown']) {
			it(`history ${historyOrder}, broadcasts ${broadcastHistory}: the turns before the prompt, in one request`, async () => {
				await withSandbox(
					{ rateLimitPerMinute: 0, historyOrder, broadcastHistory },
					async (sandbox) => {
						const { item } = await converse(sandbox);
						const mark = sandbox.log.length;
						const { turns, requests } = await memoryFor(sandbox, item)();
						assert.deepEqual(said(turns), BEFORE_PROMPT[broadcastHistory]);
						assert.equal(requests, 1);
						assert.deepEqual(
							apiCallsSince(sandbox, mark).map((e) => `${e.method} ${e.status}`),
							['GET 200'],
						);
					},
				);
			});
		}
	}

	it('the chat of a phone: Check Existing, then its history (two requests)', async () => {
		await withSandbox({ rateLimitPerMinute: 0 }, async (sandbox) => {
			await converse(sandbox);
			const mark = sandbox.log.length;
			const { turns, requests } = await memoryFor(sandbox, {}, { chat: PHONE })();
			assert.equal(requests, 2);
			assert.equal(apiCallsSince(sandbox, mark).length, 2);
			assert.deepEqual(said(turns).slice(-2), ['user: Great.', 'user: How much is it?']);
		});
	});

	it('an unknown chat fails naming it; so does a history the API cannot serve', async () => {
		await withSandbox({ rateLimitPerMinute: 0 }, async (sandbox) => {
			await assert.rejects(
				memoryFor(sandbox, { chatId: 'cht_nope' })(),
				/history of chat cht_nope could not be read/,
			);
			sandbox.setFaults({ serverErrorRate: 1 });
			const { chatId } = sandbox.state.chats[0] ? { chatId: sandbox.state.chats[0].id } : {};
			await assert.rejects(
				memoryFor(sandbox, { chatId })(),
				new RegExp(`history of chat ${chatId} could not be read`),
			);
		});
	});

	for (const broadcastHistory of ['hidden', 'shown']) {
		it(`broadcasts ${broadcastHistory}: an answer sent by Broadcast is the next turn's, once (contact and history read together, the answer kept in one write)`, async () => {
			await withSandbox({ rateLimitPerMinute: 0, broadcastHistory }, async (sandbox) => {
				const messenger = sandboxRunner(Messenger, sandbox, DEMO_CLIENTS.messengerOnly, {
					requestsPerMinute: 0,
				});
				const turn = async (text) => {
					const wrote = sandbox.customerWrites({ phone: PHONE, text }).items[0];
					const item = {
						chatId: wrote.chatId,
						phone: PHONE,
						messageId: wrote.id,
						createdAt: wrote.createdAt,
					};
					const memory = agentMemory(sandbox, item);
					const mark = sandbox.log.length;
					const turns = said(await memory.loadMessages());
					const answer = `Answer to "${text}"`;
					await memory.saveTurn(text, answer);
					const calls = apiCallsSince(sandbox, mark).map((e) => `${e.method} ${e.status}`);
					await tick();
					await messenger.run(broadcastText(answer));
					await tick();
					return { turns, calls };
				};
				const first = await turn('Do you deliver to Madrid?');
				assert.deepEqual(first.turns, []);
				// A customer the workspace did not know: the contact is made, holding the answer.
				assert.deepEqual(first.calls, ['GET 200', 'GET 200', 'POST 201']);
				const second = await turn('And to Toledo?');
				assert.deepEqual(second.turns, [
					'user: Do you deliver to Madrid?',
					'assistant: Answer to "Do you deliver to Madrid?"',
				]);
				assert.deepEqual(second.calls, ['GET 200', 'GET 200', 'PATCH 200']);
				const third = await turn('Thanks');
				assert.deepEqual(third.turns.slice(2), [
					'user: And to Toledo?',
					'assistant: Answer to "And to Toledo?"',
				]);
			});
		});
	}
});
