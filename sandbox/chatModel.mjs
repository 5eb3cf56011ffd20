// An OpenAI-compatible chat model for tests and demos: POST /v1/chat/completions (plain JSON or
// `stream: true` server-sent events) and GET /v1/models. Its answers are scripted by a test
// (`script(...steps)`); with nothing scripted it plays a stand-in that picks a tool from keywords
// in the question and answers with what the tool returned. Every request is recorded (`requests`)
// with the tools offered, their JSON schemas and the tool results the model was sent.
import { randomUUID } from 'node:crypto';

/** The API key and model name the sandbox's model answers to (any other key is a 401). */
export const CHAT_MODEL = Object.freeze({
	apiKey: 'sandbox-chat-model-key',
	model: 'sandbox-stand-in',
});
export const CHAT_MODEL_PATHS = Object.freeze({
	completions: '/v1/chat/completions',
	models: '/v1/models',
});
/** What the stand-in says about itself in every answer. */
export const STAND_IN_NOTE =
	"Sandbox stand-in model, not a real AI: this is the sandbox's demo answer.";
/** Keywords of the stand-in, in the order it tries them, and what a tool's name or description must contain. */
export const DEMO_KEYWORDS = Object.freeze([
	{ keyword: 'send', tool: /send/i },
	{ keyword: 'balance', tool: /balance/i },
	{ keyword: 'campaign', tool: /campaign/i },
	{ keyword: 'agent', tool: /agent/i },
	{ keyword: 'contact', tool: /contact/i },
]);
const MAX_BODY_BYTES = 8 * 1024 * 1024;
const MAX_RESULT_CHARS = 1500;

/**
 * @typedef {{ name: string, description: string, parameters: Record<string, any> }} OfferedTool
 * @typedef {{ toolCallId: string, name: string | undefined, content: string }} ToolResult
 * @typedef {{ name: string, arguments: Record<string, unknown> | string }} ScriptedToolCall
 * @typedef {{
 *   at: string, stream: boolean, includeUsage: boolean, model: string, messages: any[], tools: OfferedTool[],
 *   toolResults: ToolResult[], question: string, reply?: { content?: string, toolCalls?: ScriptedToolCall[] },
 *   scripted: boolean,
 * }} ChatRequest
 * @typedef {{ answer: string | ((request: ChatRequest) => string) }
 *   | { toolCalls: ScriptedToolCall[] }
 *   | ((request: ChatRequest) => { answer: string } | { toolCalls: ScriptedToolCall[] })} ScriptStep
 */

/** Text of a message's content: a string, or an array of parts. @param {unknown} content */
function textOf(content) {
	if (typeof content === 'string') return content;
	if (Array.isArray(content))
		return content.map((part) => (typeof part === 'string' ? part : (part?.text ?? ''))).join('');
	return content == null ? '' : JSON.stringify(content);
}

/** @param {any[]} messages @returns {ToolResult[]} */
function toolResultsOf(messages) {
	/** @type {Map<string, string>} */
	const names = new Map();
	for (const message of messages)
		for (const call of message?.tool_calls ?? []) names.set(call.id, call.function?.name);
	return messages
		.filter((message) => message?.role === 'tool')
		.map((message) => ({
			toolCallId: message.tool_call_id,
			name: names.get(message.tool_call_id),
			content: textOf(message.content),
		}));
}

/** @param {any} body @returns {ChatRequest} */
function recordOf(body) {
	const messages = Array.isArray(body?.messages) ? body.messages : [];
	const lastUser = [...messages].reverse().find((message) => message?.role === 'user');
	return {
		at: new Date().toISOString(),
		stream: body?.stream === true,
		includeUsage: body?.stream_options?.include_usage === true,
		model: String(body?.model ?? ''),
		messages,
		tools: (Array.isArray(body?.tools) ? body.tools : []).map((tool) => ({
			name: tool?.function?.name,
			description: tool?.function?.description ?? '',
			parameters: tool?.function?.parameters ?? {},
		})),
		toolResults: toolResultsOf(messages),
		question: textOf(lastUser?.content),
		scripted: false,
	};
}

/**
 * The stand-in's value for one tool parameter, taken from the question: by the parameter's name
 * (url, phone, …Id, caption) or, for a description listing choices ("…: a, b or c"), the choice
 * the question mentions.
 * @param {string} key @param {any} schema @param {string} question @param {string} keyword
 */
function demoArgument(key, schema, question, keyword) {
	const description = String(schema?.description ?? '');
	const lower = question.toLowerCase();
	if (schema?.type === 'number' || schema?.type === 'integer')
		return Number(/\b\d+\b/.exec(question)?.[0] ?? schema.default ?? 10);
	if (schema?.type === 'boolean') return false;
	const choices = /:\s*([^.;:]+\bor\b[^.;:]+)/
		.exec(description)?.[1]
		.split(/,|\bor\b/)
		.map((choice) => choice.trim())
		.filter(Boolean);
	if (choices) {
		const named = choices.find((c) => lower.includes(c) || lower.includes(c.replaceAll('_', ' ')));
		return named ?? (/empty/i.test(description) ? '' : choices[0]);
	}
	const quoted = /["“]([^"”]+)["”]/.exec(question)?.[1];
	if (/url/i.test(key)) return /https?:\/\/[^\s"”]+/.exec(question)?.[0] ?? '';
	if (/phone/i.test(key)) return /\+\d{6,15}/.exec(question)?.[0] ?? '';
	if (/id$/i.test(key)) {
		const ids = question.match(/\b[a-z]{3}_[0-9a-z]+\b/gi) ?? [];
		return ids.find((id) => id.startsWith(key.slice(0, 2).toLowerCase())) ?? ids[0] ?? '';
	}
	if (/caption|text|message/i.test(key)) return quoted ?? '';
	const after = new RegExp(`${keyword}s?\\s+(?:named\\s+|called\\s+)?([^\\s?.,!]+)`, 'i').exec(
		question,
	)?.[1];
	return quoted ?? after ?? lower.match(/[a-z0-9_+@.-]+/g)?.at(-1) ?? '';
}

/** The stand-in's reply, from keywords in the question. @param {ChatRequest} request */
export function standInReply(request) {
	const lastMessage = request.messages.at(-1);
	if (lastMessage?.role === 'tool') {
		const lastUser = request.messages.findLastIndex((message) => message?.role === 'user');
		const results = toolResultsOf(request.messages.slice(lastUser + 1));
		const text = results
			.map(({ name, content }) => {
				const shown =
					content.length > MAX_RESULT_CHARS ? `${content.slice(0, MAX_RESULT_CHARS)}…` : content;
				return `${name ?? 'The tool'} returned: ${shown}`;
			})
			.join('\n');
		return { content: `${STAND_IN_NOTE}\n${text}` };
	}
	const question = request.question.toLowerCase();
	for (const { keyword, tool: pattern } of DEMO_KEYWORDS) {
		if (!question.includes(keyword)) continue;
		const byName = request.tools.filter((t) => pattern.test(t.name));
		const candidates = byName.length
			? byName
			: request.tools.filter((t) => pattern.test(t.description));
		// Of several matching tools, the one whose arguments the question fills best.
		const calls = candidates.map((tool) => ({
			name: tool.name,
			arguments: Object.fromEntries(
				Object.entries(tool.parameters?.properties ?? {}).map(([key, schema]) => [
					key,
					demoArgument(key, schema, request.question, keyword),
				]),
			),
		}));
		const filled = (call) => Object.values(call.arguments).filter((v) => v !== '').length;
		const best = calls.reduce((a, b) => (filled(b) > filled(a) ? b : a), calls[0]);
		if (best) return { toolCalls: [best] };
	}
	const offered = request.tools.map((t) => t.name).join(', ') || 'none';
	return {
		content: `${STAND_IN_NOTE} Ask about ${DEMO_KEYWORDS.map((k) => k.keyword).join(', ')} and I call the matching tool (tools offered: ${offered}).`,
	};
}

/** @param {string} text */
const tokenEstimate = (text) => Math.ceil(text.length / 4);

/**
 * The body of a chat completion (or its stream's chunks) for `reply`.
 * @param {ChatRequest} request @param {{ content?: string, toolCalls?: ScriptedToolCall[] }} reply
 */
function completionOf(request, reply) {
	const toolCalls = reply.toolCalls?.map((call) => ({
		id: `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
		type: 'function',
		function: {
			name: call.name,
			arguments:
				typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
		},
	}));
	const promptTokens = tokenEstimate(JSON.stringify(request.messages));
	const completionTokens = tokenEstimate(reply.content ?? JSON.stringify(toolCalls ?? ''));
	return {
		id: `chatcmpl-${randomUUID()}`,
		created: Math.floor(Date.now() / 1000),
		model: request.model || CHAT_MODEL.model,
		content: toolCalls ? null : (reply.content ?? ''),
		toolCalls,
		finishReason: toolCalls ? 'tool_calls' : 'stop',
		usage: {
			prompt_tokens: promptTokens,
			completion_tokens: completionTokens,
			total_tokens: promptTokens + completionTokens,
		},
	};
}

/** @param {ReturnType<typeof completionOf>} c */
function completionBody(c) {
	return {
		id: c.id,
		object: 'chat.completion',
		created: c.created,
		model: c.model,
		choices: [
			{
				index: 0,
				message: {
					role: 'assistant',
					content: c.content,
					refusal: null,
					...(c.toolCalls ? { tool_calls: c.toolCalls } : {}),
				},
				logprobs: null,
				finish_reason: c.finishReason,
			},
		],
		usage: c.usage,
	};
}

/** The stream's chunks: role, content in pieces or each tool call, finish, usage when asked. */
function streamChunks(/** @type {ReturnType<typeof completionOf>} */ c, includeUsage = false) {
	const chunk = (delta, finishReason = null, extra = {}) => ({
		id: c.id,
		object: 'chat.completion.chunk',
		created: c.created,
		model: c.model,
		choices: delta ? [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] : [],
		...extra,
	});
	const chunks = [chunk({ role: 'assistant', content: c.toolCalls ? null : '' })];
	if (c.toolCalls) {
		c.toolCalls.forEach((call, index) => {
			chunks.push(
				chunk({
					tool_calls: [
						{
							index,
							id: call.id,
							type: 'function',
							function: { name: call.function.name, arguments: '' },
						},
					],
				}),
			);
			chunks.push(
				chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }),
			);
		});
	} else {
		for (const piece of c.content.match(/[\s\S]{1,24}/g) ?? [])
			chunks.push(chunk({ content: piece }));
	}
	chunks.push(chunk({}, c.finishReason));
	if (includeUsage) chunks.push(chunk(undefined, null, { usage: c.usage }));
	return chunks;
}

/**
 * @param {import('node:http').ServerResponse} res @param {number} status @param {unknown} body
 */
function sendJson(res, status, body) {
	const payload = JSON.stringify(body);
	res.writeHead(status, {
		'Content-Type': 'application/json; charset=utf-8',
		'Content-Length': Buffer.byteLength(payload),
	});
	res.end(payload);
}

/** OpenAI's error shape. @param {string} message @param {string} type @param {string | null} [code] */
const openAiError = (message, type, code = null) => ({
	error: { message, type, param: null, code },
});

/** @param {import('node:http').IncomingMessage} req @returns {Promise<any>} */
async function readJson(req) {
	const chunks = [];
	let size = 0;
	for await (const chunk of req) {
		size += chunk.length;
		if (size > MAX_BODY_BYTES) throw Object.assign(new Error('too large'), { status: 413 });
		chunks.push(chunk);
	}
	try {
		return JSON.parse(Buffer.concat(chunks).toString('utf8'));
	} catch {
		throw Object.assign(new Error('Malformed JSON in request body'), { status: 400 });
	}
}

/**
 * A scripted OpenAI-compatible chat model. Tests queue steps with `script()`, one consumed per
 * request; a step is `{ toolCalls: [{ name, arguments }] }`, `{ answer: text | (request) => text }`
 * or a function of the request returning either. With the queue empty the stand-in answers.
 */
export function createChatModel() {
	/** @type {ScriptStep[]} */
	const queue = [];
	/** @type {ChatRequest[]} */
	const requests = [];

	/** @param {ChatRequest} request */
	function replyTo(request) {
		const step = queue.shift();
		if (!step) return standInReply(request);
		request.scripted = true;
		const resolved = typeof step === 'function' ? step(request) : step;
		if ('toolCalls' in resolved) {
			const offered = new Set(request.tools.map((tool) => tool.name));
			const unknown = resolved.toolCalls.filter((call) => !offered.has(call.name));
			if (unknown.length) {
				throw Object.assign(
					new Error(
						`scripted tool ${unknown.map((c) => `"${c.name}"`).join(', ')} was not offered; offered: ${[...offered].join(', ') || 'none'}`,
					),
					{ status: 400 },
				);
			}
			return { toolCalls: resolved.toolCalls };
		}
		const { answer } = resolved;
		return { content: typeof answer === 'function' ? answer(request) : answer };
	}

	/**
	 * @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res
	 * @param {string} path
	 */
	async function handle(req, res, path) {
		const key = /^Bearer\s+(\S+)\s*$/i.exec(String(req.headers.authorization ?? ''))?.[1];
		if (key !== CHAT_MODEL.apiKey) {
			return sendJson(
				res,
				401,
				openAiError(
					'Incorrect API key provided for the sandbox model',
					'invalid_request_error',
					'invalid_api_key',
				),
			);
		}
		if (path === CHAT_MODEL_PATHS.models && req.method === 'GET') {
			return sendJson(res, 200, {
				object: 'list',
				data: [{ id: CHAT_MODEL.model, object: 'model', created: 0, owned_by: 'sandbox' }],
			});
		}
		if (path !== CHAT_MODEL_PATHS.completions || req.method !== 'POST') {
			const hint = path.endsWith('/responses')
				? ": turn off 'Use Responses API' in the OpenAI Chat Model node"
				: '';
			return sendJson(
				res,
				404,
				openAiError(
					`The sandbox model serves POST ${CHAT_MODEL_PATHS.completions} and GET ${CHAT_MODEL_PATHS.models} only${hint}`,
					'invalid_request_error',
					'unknown_url',
				),
			);
		}
		let request;
		let reply;
		try {
			const body = await readJson(req);
			request = recordOf(body);
			requests.push(request);
			reply = replyTo(request);
			request.reply = reply;
		} catch (error) {
			return sendJson(
				res,
				error.status ?? 500,
				openAiError(error.message, 'invalid_request_error'),
			);
		}
		const completion = completionOf(request, reply);
		if (!request.stream) return sendJson(res, 200, completionBody(completion));
		res.writeHead(200, {
			'Content-Type': 'text/event-stream; charset=utf-8',
			'Cache-Control': 'no-cache',
			Connection: 'keep-alive',
		});
		for (const chunk of streamChunks(completion, request.includeUsage))
			res.write(`data: ${JSON.stringify(chunk)}\n\n`);
		res.end('data: [DONE]\n\n');
	}

	return {
		/** Every request, oldest first. */
		requests,
		/** Queues answers for the next requests, one step per request. @param {ScriptStep[]} steps */
		script(...steps) {
			queue.push(...steps);
		},
		/** Scripted steps not used yet. */
		get pending() {
			return queue.length;
		},
		/** Forgets the queue and the recorded requests. */
		reset() {
			queue.length = 0;
			requests.length = 0;
		},
		/** @param {string} path */
		handles: (path) => path === '/v1' || path.startsWith('/v1/'),
		handle,
	};
}
