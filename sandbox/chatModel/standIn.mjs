// The model's stand-in, when no test scripted an answer (e.g. under npm start): it picks a tool
// from keywords in the question, fills its arguments from the question, and after the tool ran
// answers with what the tool returned, saying it is no real AI.
import { textOf, toolResultsOf } from './openAi.mjs';

/**
 * @typedef {import('./openAi.mjs').ChatRequest} ChatRequest
 */

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
const MAX_RESULT_CHARS = 1500;

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

/**
 * What the stand-in says of the conversation it was sent (a memory's turns before the question):
 * how many earlier messages there are and the customer's latest one, so a demo shows the memory.
 * @param {ChatRequest} request
 */
function rememberedWords(request) {
	const last = request.messages.findLastIndex((message) => message?.role === 'user');
	const earlier = request.messages
		.slice(0, Math.max(0, last))
		.filter((message) => message?.role === 'user' || message?.role === 'assistant');
	const said = earlier.findLast((message) => message.role === 'user');
	if (!said) return '';
	return ` I see ${earlier.length} earlier message${earlier.length === 1 ? '' : 's'} of this conversation; before this you wrote: "${textOf(said.content)}".`;
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
		content: `${STAND_IN_NOTE}${rememberedWords(request)} Ask about ${DEMO_KEYWORDS.map((k) => k.keyword).join(', ')} and I call the matching tool (tools offered: ${offered}).`,
	};
}
