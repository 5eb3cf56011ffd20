// An OpenAI-compatible chat model for tests and demos: POST /v1/chat/completions (plain JSON or
// `stream: true` server-sent events) and GET /v1/models. Its answers are scripted by a test
// (`script(...steps)`); with nothing scripted it plays a stand-in that picks a tool from keywords
// in the question and answers with what the tool returned. Every request is recorded (`requests`)
// with the tools offered, their JSON schemas and the tool results the model was sent.
import { standInReply } from './chatModel/standIn.mjs';
import {
	CHAT_MODEL,
	CHAT_MODEL_PATHS,
	completionBody,
	completionOf,
	openAiError,
	readJson,
	recordOf,
	sendJson,
	streamChunks,
} from './chatModel/openAi.mjs';

export { CHAT_MODEL, CHAT_MODEL_PATHS } from './chatModel/openAi.mjs';
export { DEMO_KEYWORDS, STAND_IN_NOTE, standInReply } from './chatModel/standIn.mjs';

/**
 * @typedef {import('./chatModel/openAi.mjs').ChatRequest} ChatRequest
 * @typedef {import('./chatModel/openAi.mjs').ScriptStep} ScriptStep
 */

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
