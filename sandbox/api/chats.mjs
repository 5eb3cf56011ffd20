// Chat endpoints (check existing, mark important, reopen) and the chat lookups sends share.
import { HttpError, failIfAny } from './errors.mjs';
import { findById, insert, nowIso } from './records.mjs';
import { checkPhone, requireObjectBody } from './validation.mjs';

/**
 * @typedef {import('../api.mjs').ApiContext} ApiContext
 * @typedef {import('../api.mjs').Handler} Handler
 * @typedef {import('../data.mjs').Chat} Chat
 */

/** @param {ApiContext} api @param {string} id */
export function requireChat(api, id) {
	const chat = findById(api.state.chats, id);
	if (!chat) throw new HttpError(404, 'Chat not found');
	return chat;
}

/**
 * The chat of a phone: its open chat, else its latest chat, else a new open chat.
 * @param {ApiContext} api @param {string} phone
 */
export function chatOfPhone(api, phone) {
	const chats = api.state.chats;
	const chat =
		chats.find((c) => c.phone === phone && c.status === 'open') ??
		chats.findLast((c) => c.phone === phone);
	if (chat) return chat;
	const contact = api.state.contacts.find((c) => c.phone === phone);
	/** @type {Chat} */
	const created = {
		id: api.newId('cht'),
		contactId: contact?.id ?? null,
		phone,
		status: 'open',
		important: false,
		updatedAt: nowIso(api),
	};
	return insert(chats, created);
}

/** @type {Handler} */
export function checkExistingChat(api, { query }) {
	/** @type {string[]} */
	const errors = [];
	checkPhone(query, 'phone', errors);
	failIfAny(errors);
	const chat = api.state.chats.find((c) => c.phone === query.phone && c.status === 'open');
	return { status: 200, body: { exists: chat !== undefined, chatId: chat?.id ?? null } };
}

/** @type {Handler} */
export function markImportant(api, { params, body }) {
	const chat = requireChat(api, params.id);
	let important = true;
	if (body !== undefined) {
		const object = requireObjectBody(body);
		if (object.important !== undefined) {
			if (typeof object.important !== 'boolean')
				throw new HttpError(400, ['important must be a boolean value']);
			important = object.important;
		}
	}
	chat.important = important;
	chat.updatedAt = nowIso(api);
	return { status: 200, body: chat };
}

/** @type {Handler} */
export function reopenChat(api, { params }) {
	const chat = requireChat(api, params.id);
	if (chat.status === 'open') throw new HttpError(409, 'Chat is already open');
	chat.status = 'open';
	chat.updatedAt = nowIso(api);
	return { status: 200, body: chat };
}
