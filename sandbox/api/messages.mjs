// Message endpoints: the sends (media by URL, to a phone, file, location), WhatsApp numbers,
// one message, reactions and chat history.
import { HttpError, failIfAny } from './errors.mjs';
import { requireChat, chatOfPhone } from './chats.mjs';
import { messageTypeOf, readMultipart } from './multipart.mjs';
import { withFreshLink } from './media.mjs';
import { findById, insert, nowIso } from './records.mjs';
import { createRandom, hashString } from '../data/random.mjs';
import { reportChatSend } from './sent.mjs';
import {
	checkMedia,
	checkPhone,
	checkString,
	pageOf,
	parsePaging,
	requireObjectBody,
} from './validation.mjs';

/**
 * @typedef {import('../api.mjs').ApiContext} ApiContext
 * @typedef {import('../api.mjs').RequestInput} RequestInput
 * @typedef {import('../api.mjs').ApiResult} ApiResult
 * @typedef {import('../api.mjs').Handler} Handler
 * @typedef {import('../data.mjs').Chat} Chat
 * @typedef {import('../data.mjs').Message} Message
 */

/**
 * Records an outbound message; every send endpoint goes through here.
 * @param {ApiContext} api @param {Chat} chat @param {Message['type']} type @param {Record<string, unknown>} content
 */
export function recordSend(api, chat, type, content) {
	const at = nowIso(api);
	/** @type {Message} */
	const message = {
		id: api.newId('msg'),
		chatId: chat.id,
		direction: 'outbound',
		type,
		content,
		status: 'sent',
		reaction: null,
		createdAt: at,
	};
	insert(api.state.messages, message);
	chat.updatedAt = at;
	reportChatSend(api, message, chat);
	return message;
}

/**
 * Copies the named optional string fields that are present.
 * @param {Record<string, unknown>} body @param {string[]} names
 */
function pickPresent(body, names) {
	/** @type {Record<string, unknown>} */
	const out = {};
	for (const name of names)
		if (body[name] !== undefined && body[name] !== null) out[name] = body[name];
	return out;
}

/** @param {ApiContext} api @param {unknown} id */
export function checkWhatsappNumber(api, id) {
	if (id === undefined || id === null) return;
	if (typeof id !== 'string') throw new HttpError(400, ['whatsappNumberId must be a string']);
	if (!findById(api.state.whatsappNumbers, id))
		throw new HttpError(404, 'WhatsApp number not found');
}

/** @type {Handler} */
export function sendMedia(api, { body: raw }) {
	const body = requireObjectBody(raw);
	/** @type {string[]} */
	const errors = [];
	checkString(body, 'chatId', errors);
	checkMedia(body, errors);
	failIfAny(errors);
	const chat = requireChat(api, /** @type {string} */ (body.chatId));
	const type = /** @type {Message['type']} */ (body.type);
	return {
		status: 200,
		body: recordSend(api, chat, type, pickPresent(body, ['url', 'caption', 'fileName'])),
	};
}

/** @type {Handler} */
export function sendMediaToPhone(api, { body: raw }) {
	const body = requireObjectBody(raw);
	/** @type {string[]} */
	const errors = [];
	checkPhone(body, 'phone', errors);
	checkMedia(body, errors);
	failIfAny(errors);
	checkWhatsappNumber(api, body.whatsappNumberId);
	const chat = chatOfPhone(api, /** @type {string} */ (body.phone));
	const type = /** @type {Message['type']} */ (body.type);
	return {
		status: 200,
		body: recordSend(api, chat, type, pickPresent(body, ['url', 'caption', 'fileName'])),
	};
}

/** @type {Handler} */
export function sendLocation(api, { body: raw }) {
	const body = requireObjectBody(raw);
	/** @type {string[]} */
	const errors = [];
	checkString(body, 'chatId', errors);
	const { latitude, longitude } = body;
	if (typeof latitude !== 'number' || !(latitude >= -90 && latitude <= 90)) {
		errors.push('latitude must be a number between -90 and 90');
	}
	if (typeof longitude !== 'number' || !(longitude >= -180 && longitude <= 180)) {
		errors.push('longitude must be a number between -180 and 180');
	}
	checkString(body, 'name', errors, { optional: true });
	checkString(body, 'address', errors, { optional: true });
	failIfAny(errors);
	const chat = requireChat(api, /** @type {string} */ (body.chatId));
	const content = pickPresent(body, ['latitude', 'longitude', 'name', 'address']);
	return { status: 200, body: recordSend(api, chat, 'location', content) };
}

/**
 * @param {ApiContext} api @param {RequestInput} input
 * @returns {Promise<ApiResult>}
 */
export async function sendMediaFile(api, { req }) {
	const limit = api.maxUploadBytes();
	const { fields, file, tooLarge } = await readMultipart(req, limit);
	if (tooLarge) {
		const mb = Math.round((limit / 2 ** 20) * 10) / 10;
		throw new HttpError(413, `file must not be larger than ${limit} bytes (${mb} MB)`);
	}
	/** @type {string[]} */
	const errors = [];
	if (!file) errors.push('file must be provided');
	checkString(fields, 'chatId', errors);
	failIfAny(errors);
	const uploaded = /** @type {NonNullable<typeof file>} */ (file);
	const chat = requireChat(api, fields.chatId);
	const caption = fields.caption ?? null;
	/** @type {Record<string, unknown>} */
	const content = { fileName: uploaded.fileName, mimeType: uploaded.mimeType, size: uploaded.size };
	if (caption !== null) content.caption = caption;
	const message = recordSend(api, chat, messageTypeOf(uploaded.mimeType), content);
	insert(api.state.uploads, {
		id: api.newId('upl'),
		fileName: uploaded.fileName,
		mimeType: uploaded.mimeType,
		size: uploaded.size,
		sha256: uploaded.sha256,
		chatId: chat.id,
		caption,
		messageId: message.id,
		createdAt: message.createdAt,
	});
	return { status: 200, body: message };
}

/** @type {Handler} */
export function listWhatsappNumbers(api) {
	return { status: 200, body: api.state.whatsappNumbers };
}

/** @param {ApiContext} api @param {string} id */
function requireMessage(api, id) {
	const message = findById(api.state.messages, id);
	if (!message) throw new HttpError(404, 'Message not found');
	return message;
}

/** @type {Handler} */
export function getMessage(api, { params }) {
	return { status: 200, body: withFreshLink(api, requireMessage(api, params.id)) };
}

/** @type {Handler} */
export function removeReaction(api, { params }) {
	requireMessage(api, params.id).reaction = null;
	return { status: 200, body: { success: true } };
}

/**
 * Per sandbox state, per chat: the reads of its history begun and the order of the current one,
 * and the requests answered (the `historyReorder` option).
 * @type {WeakMap<object, Map<string, { reads: number, sort: 'asc' | 'desc', requests: number }>>}
 */
const reorders = new WeakMap();

/** @param {ApiContext} api @param {string} chatId */
function reorderOf(api, chatId) {
	let chats = reorders.get(api.state);
	if (!chats) reorders.set(api.state, (chats = new Map()));
	let chat = chats.get(chatId);
	if (!chat) chats.set(chatId, (chat = { reads: 0, sort: 'desc', requests: 0 }));
	return chat;
}

/** @type {Handler} */
export function chatHistory(api, input) {
	const chat = requireChat(api, input.params.chatId);
	const paging = parsePaging(input.query);
	if (api.options.historyOrder === 'asc') paging.sort = 'asc';
	failIfAny(paging.errors);
	const reorder = /** @type {{ historyReorder?: string }} */ (api.options).historyReorder;
	const turns = reorder === 'none' || reorder === undefined ? undefined : reorderOf(api, chat.id);
	if (turns && reorder === 'alternate') {
		// A read begins with its first page (or, following next links, without a cursor).
		if (paging.page === 1 && input.query.cursor === undefined) {
			turns.sort = turns.reads++ % 2 === 0 ? 'desc' : 'asc';
		}
		paging.sort = turns.sort;
	}
	// By createdAt, then id: messages may share a createdAt (docs/api.md).
	const history = api.state.messages
		.filter((m) => m.chatId === chat.id)
		.sort((a, b) => compare(a.createdAt, b.createdAt) || compare(a.id, b.id))
		.map((message) => withFreshLink(api, message));
	const body = pageOf(api, input, history, paging);
	if (turns && reorder === 'shuffle') {
		const items = Array.isArray(body)
			? body
			: (/** @type {any} */ (body).items ?? /** @type {any} */ (body).data);
		createRandom(hashString(`${api.seed}:${chat.id}:${turns.requests++}`)).shuffle(items);
	}
	return { status: 200, body };
}

/** @param {string} a @param {string} b */
const compare = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
