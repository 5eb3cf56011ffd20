// The sandbox's OpenAI-compatible chat model (sandbox/chatModel.mjs), over real HTTP on 127.0.0.1:
// scripted answers, plain JSON and server-sent events, what it records, and the stand-in.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { CHAT_MODEL, DEMO_KEYWORDS, STAND_IN_NOTE } from '../../sandbox/chatModel.mjs';
import { sandboxFor } from '../support/sandboxApi.mjs';

const tool = (name, description, properties = {}) => ({
	type: 'function',
	function: {
		name,
		description,
		parameters: { type: 'object', properties, required: Object.keys(properties) },
	},
});
const TOOLS = [
	tool('Get_balance', 'Get the balance in Voice AI'),
	tool('Get_campaigns', 'Get many campaigns in Voice AI', {
		status: {
			type: 'string',
			description:
				'Campaign status: pending, in_progress, completed, failed or cancelled; empty for every status',
		},
	}),
	tool('Get_agent', 'Get an agent in Voice AI', {
		agentId: { type: 'string', description: 'The ID of the agent' },
	}),
	tool('Search_contacts', 'Search contacts in Messenger', {
		term: { type: 'string', description: 'Text to search for' },
	}),
	tool('Send_media', 'Send media by URL in Messenger', {
		chatId: { type: 'string', description: 'The chat ID' },
		url: { type: 'string', description: 'Public URL of the media' },
		caption: { type: 'string', description: 'Caption text' },
	}),
	tool('Send_media_to_phone', 'Send media to a phone number in Messenger', {
		phone: { type: 'string', description: 'Phone in international format' },
		url: { type: 'string', description: 'Public URL of the media' },
		mediaType: { type: 'string', description: 'Kind of file: image, video, audio or document' },
	}),
];

/** @param {{ url: string }} sandbox @param {Record<string, unknown>} body @param {string} [key] */
function complete(sandbox, body, key = CHAT_MODEL.apiKey) {
	return fetch(`${sandbox.url}/v1/chat/completions`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
		body: JSON.stringify({ model: CHAT_MODEL.model, tools: TOOLS, ...body }),
	});
}

/** @param {string} question */
const ask = (question) => [
	{ role: 'system', content: 'You are a helpful assistant' },
	{ role: 'user', content: question },
];

/** The assistant message of a plain answer. @param {Response} response */
async function messageOf(response) {
	assert.equal(response.status, 200, await response.clone().text());
	const body = await response.json();
	assert.equal(body.object, 'chat.completion');
	assert.equal(body.choices.length, 1);
	return {
		...body.choices[0].message,
		finishReason: body.choices[0].finish_reason,
		usage: body.usage,
	};
}

/** The tool call's name and parsed arguments. */
const callsOf = (message) =>
	message.tool_calls.map((call) => ({
		name: call.function.name,
		arguments: JSON.parse(call.function.arguments),
	}));

describe('sandbox chat model', () => {
	test('a scripted tool call, then an answer built from the tool result the model was sent', async (t) => {
		const sandbox = await sandboxFor(t);
		const model = sandbox.chatModel;
		model.script(
			{ toolCalls: [{ name: 'Get_campaigns', arguments: { status: 'failed' } }] },
			{ answer: (request) => `Failed campaigns: ${request.toolResults.at(-1).content}` },
		);
		const first = await messageOf(
			await complete(sandbox, { messages: ask('Which campaigns failed?') }),
		);
		assert.equal(first.finishReason, 'tool_calls');
		assert.equal(first.content, null);
		assert.deepEqual(callsOf(first), [{ name: 'Get_campaigns', arguments: { status: 'failed' } }]);
		assert.match(first.tool_calls[0].id, /^call_\w+$/);
		assert.ok(first.usage.total_tokens > 0);

		const toolResult = JSON.stringify([{ id: 'cmp_1', status: 'failed' }]);
		const second = await messageOf(
			await complete(sandbox, {
				messages: [
					...ask('Which campaigns failed?'),
					{ role: 'assistant', content: null, tool_calls: first.tool_calls },
					{ role: 'tool', tool_call_id: first.tool_calls[0].id, content: toolResult },
				],
			}),
		);
		assert.equal(second.finishReason, 'stop');
		assert.equal(second.content, `Failed campaigns: ${toolResult}`);
		assert.equal(model.pending, 0);

		assert.equal(model.requests.length, 2);
		const [asked, answered] = model.requests;
		assert.equal(asked.question, 'Which campaigns failed?');
		assert.deepEqual(
			asked.tools.map((t) => t.name),
			TOOLS.map((t) => t.function.name),
		);
		assert.deepEqual(asked.tools[1].parameters, TOOLS[1].function.parameters);
		assert.equal(asked.tools[0].description, 'Get the balance in Voice AI');
		assert.deepEqual(asked.toolResults, []);
		assert.ok(asked.scripted && answered.scripted);
		assert.deepEqual(answered.toolResults, [
			{ toolCallId: first.tool_calls[0].id, name: 'Get_campaigns', content: toolResult },
		]);
		// The model's traffic is not API traffic: the API log stays empty.
		assert.deepEqual(sandbox.log, []);
	});

	test('stream: true answers with server-sent events that add up to the same reply', async (t) => {
		const sandbox = await sandboxFor(t);
		const answer = 'The balance is 1289.52 USD, about 14328 minutes of calls.';
		sandbox.chatModel.script(
			{
				toolCalls: [
					{ name: 'Get_balance', arguments: {} },
					{ name: 'Get_agent', arguments: { agentId: 'agt_1' } },
				],
			},
			{ answer },
		);
		const read = async (body) => {
			const response = await complete(sandbox, {
				...body,
				stream: true,
				stream_options: { include_usage: true },
			});
			assert.equal(response.status, 200);
			assert.match(response.headers.get('content-type'), /^text\/event-stream/);
			const events = (await response.text()).split('\n\n').filter(Boolean);
			assert.equal(events.at(-1), 'data: [DONE]');
			for (const event of events) assert.match(event, /^data: /);
			return events.slice(0, -1).map((event) => JSON.parse(event.slice('data: '.length)));
		};

		const calls = await read({ messages: ask('balance and agent agt_1') });
		assert.ok(calls.every((chunk) => chunk.object === 'chat.completion.chunk'));
		assert.equal(new Set(calls.map((chunk) => chunk.id)).size, 1, 'one id for every chunk');
		/** @type {Array<{ id?: string, name: string, arguments: string }>} */
		const assembled = [];
		for (const chunk of calls)
			for (const delta of chunk.choices[0]?.delta?.tool_calls ?? []) {
				assembled[delta.index] ??= { name: '', arguments: '' };
				if (delta.id) assembled[delta.index].id = delta.id;
				assembled[delta.index].name += delta.function?.name ?? '';
				assembled[delta.index].arguments += delta.function?.arguments ?? '';
			}
		assert.deepEqual(
			assembled.map(({ name, arguments: args }) => ({ name, arguments: JSON.parse(args) })),
			[
				{ name: 'Get_balance', arguments: {} },
				{ name: 'Get_agent', arguments: { agentId: 'agt_1' } },
			],
		);
		assert.ok(assembled.every((call) => /^call_/.test(call.id)));
		assert.equal(calls.at(-2).choices[0].finish_reason, 'tool_calls');
		assert.deepEqual(calls.at(-1).choices, []);
		assert.ok(calls.at(-1).usage.total_tokens > 0, 'usage comes last when include_usage is asked');

		const text = await read({ messages: ask('thanks') });
		assert.equal(text.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join(''), answer);
		assert.ok(
			text.filter((chunk) => chunk.choices[0]?.delta?.content).length > 1,
			'in several pieces',
		);
		assert.equal(text.at(-2).choices[0].finish_reason, 'stop');
		assert.deepEqual(
			sandbox.chatModel.requests.map((r) => r.stream),
			[true, true],
		);
	});

	test('a wrong API key is a 401, /v1/models lists the model, the Responses API is named as unsupported', async (t) => {
		const sandbox = await sandboxFor(t);
		const wrong = await complete(sandbox, { messages: ask('balance') }, 'sk-not-the-sandbox-key');
		assert.equal(wrong.status, 401);
		assert.equal((await wrong.json()).error.code, 'invalid_api_key');

		const auth = { authorization: `Bearer ${CHAT_MODEL.apiKey}` };
		const models = await fetch(`${sandbox.url}/v1/models`, { headers: auth });
		assert.equal(models.status, 200);
		assert.deepEqual(
			(await models.json()).data.map((m) => m.id),
			[CHAT_MODEL.model],
		);
		const responses = await fetch(`${sandbox.url}/v1/responses`, {
			method: 'POST',
			headers: { ...auth, 'content-type': 'application/json' },
			body: '{}',
		});
		assert.equal(responses.status, 404);
		assert.match((await responses.json()).error.message, /Use Responses API/);
		assert.deepEqual(sandbox.chatModel.requests, []);
	});

	test('a scripted call of a tool that was not offered is a 400 that lists the offered tools', async (t) => {
		const sandbox = await sandboxFor(t);
		sandbox.chatModel.script({ toolCalls: [{ name: 'Delete_everything', arguments: {} }] });
		const response = await complete(sandbox, { messages: ask('hi') });
		assert.equal(response.status, 400);
		const { message } = (await response.json()).error;
		assert.match(message, /"Delete_everything" was not offered/);
		assert.match(message, /Get_balance, Get_campaigns/);
	});

	test('the model ignores the API faults and rate limits', async (t) => {
		const sandbox = await sandboxFor(t, { rateLimitPerMinute: 1, faults: { serverErrorRate: 1 } });
		for (let i = 0; i < 3; i++) {
			sandbox.chatModel.script({ answer: `answer ${i}` });
			assert.equal(
				(await messageOf(await complete(sandbox, { messages: ask('hi') }))).content,
				`answer ${i}`,
			);
		}
		assert.deepEqual(sandbox.log, []);
	});

	describe('the stand-in (nothing scripted)', () => {
		const cases = [
			['What is my balance?', 'Get_balance', {}],
			['Which campaigns failed yesterday?', 'Get_campaigns', { status: 'failed' }],
			['Show me agent agt_0640fa1b86604e08', 'Get_agent', { agentId: 'agt_0640fa1b86604e08' }],
			['Find the contact garcia', 'Search_contacts', { term: 'garcia' }],
			[
				'Send https://example.com/brochure.pdf to chat cht_b4a9e3e2d76ba632 with "Our brochure"',
				'Send_media',
				{
					chatId: 'cht_b4a9e3e2d76ba632',
					url: 'https://example.com/brochure.pdf',
					caption: 'Our brochure',
				},
			],
			[
				'Send the document https://example.com/b.pdf to +34600123456',
				'Send_media_to_phone',
				{ phone: '+34600123456', url: 'https://example.com/b.pdf', mediaType: 'document' },
			],
			['Any campaigns?', 'Get_campaigns', { status: '' }],
		];
		test('every keyword has a case here', () => {
			const asked = cases.map(([question]) => question.toLowerCase());
			for (const { keyword } of DEMO_KEYWORDS)
				assert.ok(
					asked.some((q) => q.includes(keyword)),
					keyword,
				);
		});
		for (const [question, name, args] of cases) {
			test(`"${question}" calls ${name} with arguments from the question`, async (t) => {
				const sandbox = await sandboxFor(t);
				const message = await messageOf(await complete(sandbox, { messages: ask(question) }));
				assert.deepEqual(callsOf(message), [{ name, arguments: args }]);
				assert.equal(sandbox.chatModel.requests[0].scripted, false);
			});
		}

		test('after the tool ran it answers with what the tool returned and says it is the stand-in', async (t) => {
			const sandbox = await sandboxFor(t);
			const result = JSON.stringify([{ credit: 1289.52, currency: 'USD' }]);
			const message = await messageOf(
				await complete(sandbox, {
					messages: [
						...ask('What is my balance?'),
						{
							role: 'assistant',
							content: null,
							tool_calls: [
								{
									id: 'call_1',
									type: 'function',
									function: { name: 'Get_balance', arguments: '{}' },
								},
							],
						},
						{ role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: result }] },
					],
				}),
			);
			assert.equal(message.content, `${STAND_IN_NOTE}\nGet_balance returned: ${result}`);
		});

		test('a question without a keyword gets the list of keywords and tools', async (t) => {
			const sandbox = await sandboxFor(t);
			const message = await messageOf(await complete(sandbox, { messages: ask('Hello there') }));
			assert.equal(message.tool_calls, undefined);
			assert.ok(message.content.startsWith(STAND_IN_NOTE));
			for (const { keyword } of DEMO_KEYWORDS)
				assert.ok(message.content.includes(keyword), keyword);
			assert.match(
				message.content,
				/Get_balance, Get_campaigns, Get_agent, Search_contacts, Send_media, Send_media_to_phone\)/,
			);
			assert.doesNotMatch(message.content, /before this you wrote/);
		});

		test("with a conversation before the question (a memory's turns) it quotes the customer's latest earlier words", async (t) => {
			const sandbox = await sandboxFor(t);
			const messages = [
				{ role: 'system', content: 'You answer customers.' },
				{ role: 'user', content: 'My name is Ana' },
				{ role: 'assistant', content: 'Hello Ana' },
				{ role: 'user', content: [{ type: 'text', text: 'I ordered a blue chair' }] },
				{ role: 'user', content: 'Where is it?' },
			];
			const message = await messageOf(await complete(sandbox, { messages }));
			assert.match(
				message.content,
				/I see 3 earlier messages of this conversation; before this you wrote: "I ordered a blue chair"\./,
			);
		});
	});
});
