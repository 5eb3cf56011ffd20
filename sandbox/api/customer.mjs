// A customer writes (a control of the sandbox, not an API endpoint): inbound messages in a chat.
import { INBOUND_TEXTS } from '../data.mjs';
import { failIfAny } from './errors.mjs';
import { chatOfPhone, requireChat } from './chats.mjs';
import { insert } from './records.mjs';
import { MEDIA_TYPES, checkPhone, checkString, oneOf, requireObjectBody } from './validation.mjs';

/**
 * @typedef {import('../api.mjs').ApiContext} ApiContext
 * @typedef {import('../data.mjs').Chat} Chat
 * @typedef {import('../data.mjs').Message} Message
 */

/** Types a customer can write through the control endpoint: every message type. */
export const CUSTOMER_MESSAGE_TYPES = Object.freeze(['text', ...MEDIA_TYPES, 'location']);
/** Most messages one control call adds. */
export const MAX_CUSTOMER_MESSAGES = 1000;

/**
 * The content a customer writes: the text, a media object with the text as caption, or a place.
 * @param {ApiContext} api @param {Message['type']} type @param {string} text
 * @returns {Message['content']}
 */
function customerContent(api, type, text) {
	if (type === 'text') return text;
	if (type === 'location') return { latitude: 40.4168, longitude: -3.7038, name: text };
	const extension = { image: 'jpg', video: 'mp4', audio: 'ogg', document: 'pdf' }[type];
	return { url: `https://example.com/media/${api.random.hex(8)}.${extension}`, caption: text };
}

/**
 * Control (sandbox only, not an API endpoint): a customer writes `count` inbound messages (1 to
 * MAX_CUSTOMER_MESSAGES) into the chat `chatId`, or the chat of `phone` (a closed one is reopened,
 * none opens one), or else the demo chat (the first one). `type` (text) and `text` (a seeded
 * customer text; numbered when there are several) make the content; the first `createdAt` is
 * `createdAt` (default now), each next one 1 ms later, or the same with `sameCreatedAt: true`.
 * @param {ApiContext} api @param {unknown} raw
 * @returns {{ chat: Chat, items: Message[] }}
 */
export function customerWrites(api, raw) {
	const body = raw === undefined || raw === null ? {} : requireObjectBody(raw);
	/** @type {string[]} */
	const errors = [];
	for (const name of ['chatId', 'text', 'createdAt'])
		checkString(body, name, errors, { optional: true });
	if (body.phone !== undefined) checkPhone(body, 'phone', errors);
	const type = /** @type {Message['type']} */ (body.type ?? 'text');
	if (!CUSTOMER_MESSAGE_TYPES.includes(type)) errors.push(oneOf('type', CUSTOMER_MESSAGE_TYPES));
	const count = body.count ?? 1;
	if (!Number.isInteger(count) || Number(count) < 1 || Number(count) > MAX_CUSTOMER_MESSAGES)
		errors.push(`count must be an integer from 1 to ${MAX_CUSTOMER_MESSAGES}`);
	const first = body.createdAt === undefined ? Date.now() : Date.parse(String(body.createdAt));
	if (Number.isNaN(first)) errors.push('createdAt must be an ISO 8601 date');
	failIfAny(errors);
	const chat = body.chatId
		? requireChat(api, String(body.chatId))
		: body.phone
			? chatOfPhone(api, String(body.phone))
			: api.state.chats[0];
	chat.status = 'open';
	const base = typeof body.text === 'string' ? body.text : api.random.pick(INBOUND_TEXTS);
	const items = Array.from({ length: Number(count) }, (_, i) => {
		const text = Number(count) > 1 ? `${base} (${i + 1}/${count})` : base;
		/** @type {Message} */
		const message = {
			id: api.newId('msg'),
			chatId: chat.id,
			direction: 'inbound',
			type,
			content: customerContent(api, type, text),
			status: 'delivered',
			reaction: null,
			createdAt: new Date(body.sameCreatedAt === true ? first : first + i).toISOString(),
		};
		return insert(api.state.messages, message);
	});
	chat.updatedAt = items[items.length - 1].createdAt;
	return { chat, items };
}
