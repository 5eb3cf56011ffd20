// OpenAI's chat completions on the wire, as the sandbox's model speaks them: what a request
// holds, the completion body, its server-sent-event chunks and OpenAI's error shape.
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
const MAX_BODY_BYTES = 8 * 1024 * 1024;

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
export function textOf(content) {
	if (typeof content === 'string') return content;
	if (Array.isArray(content))
		return content.map((part) => (typeof part === 'string' ? part : (part?.text ?? ''))).join('');
	return content == null ? '' : JSON.stringify(content);
}

/** @param {any[]} messages @returns {ToolResult[]} */
export function toolResultsOf(messages) {
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
export function recordOf(body) {
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

/** @param {string} text */
const tokenEstimate = (text) => Math.ceil(text.length / 4);

/**
 * The body of a chat completion (or its stream's chunks) for `reply`.
 * @param {ChatRequest} request @param {{ content?: string, toolCalls?: ScriptedToolCall[] }} reply
 */
export function completionOf(request, reply) {
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
export function completionBody(c) {
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
export function streamChunks(
	/** @type {ReturnType<typeof completionOf>} */ c,
	includeUsage = false,
) {
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
export function sendJson(res, status, body) {
	const payload = JSON.stringify(body);
	res.writeHead(status, {
		'Content-Type': 'application/json; charset=utf-8',
		'Content-Length': Buffer.byteLength(payload),
	});
	res.end(payload);
}

/** OpenAI's error shape. @param {string} message @param {string} type @param {string | null} [code] */
export const openAiError = (message, type, code = null) => ({
	error: { message, type, param: null, code },
});

/** @param {import('node:http').IncomingMessage} req @returns {Promise<any>} */
export async function readJson(req) {
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
