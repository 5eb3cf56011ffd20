// A chat-history API in memory for the chat memory's suites, answering in each order the package
// reads (docs/api.md, Chat history): newest first as asked, oldest first with a page count
// (`sort` ignored), oldest first saying nothing of its pages, or the whole history as one bare
// array in no order.
import { byTime } from '../../../../nodes/Messenger/trigger/messageCursor.ts';
import { createExecuteContext, httpError, scriptedHttp } from '../../../../tools/context.mjs';
import { UNPACED } from '../../../support/unit.mjs';

export const HISTORY_ORDERS = Object.freeze([
	'newestFirst',
	'oldestFirst',
	'oldestFirstSilent',
	'bareArray',
]);

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
/** A time `second` seconds into the test day. */
export const at = (second) => new Date(T0 + second * 1000).toISOString();

/**
 * A chat of `directions` ('in' or 'out', oldest first); message `i` says `m<i>` and is stamped
 * `timeOf(i)` seconds in (several may share one time).
 */
export function chatOf(chatId, directions, timeOf = (i) => i) {
	return directions.map((direction, i) => ({
		id: `msg_${String(i).padStart(5, '0')}`,
		chatId,
		direction: direction === 'in' ? 'inbound' : 'outbound',
		type: 'text',
		content: `m${i}`,
		status: 'delivered',
		createdAt: at(timeOf(i)),
	}));
}

/** A page of `sorted` for `qs` as the API in `order` answers it. */
function answer(sorted, qs, order, shuffle) {
	const { page = 1, limit = 10, sort = 'desc' } = qs ?? {};
	if (order === 'bareArray') return shuffle([...sorted]);
	const listed = order === 'newestFirst' && sort === 'desc' ? [...sorted].reverse() : sorted;
	const items = listed.slice((page - 1) * limit, page * limit);
	if (order === 'oldestFirstSilent') return items;
	return {
		items,
		total: listed.length,
		page,
		totalPages: Math.max(1, Math.ceil(listed.length / limit)),
	};
}

/**
 * The API: `chats` by ID (messages in any order), `phones` to chat IDs, `failing` chat IDs to the
 * status their history answers with. `order` is how it lists; `shuffle` orders a bare array.
 */
export function memoryApi({ order = 'newestFirst', shuffle = (list) => list.reverse() } = {}) {
	const chats = new Map();
	const phones = new Map();
	const failing = new Map();
	const contacts = new Map();
	const { http, calls } = scriptedHttp(async (options) => {
		const contact = contactCall(contacts, options);
		if (contact !== undefined) return contact;
		if (options.url === '/api/v1/messenger/chats/check-existing') {
			const chatId = phones.get(options.qs.phone) ?? null;
			return { exists: chatId !== null, chatId };
		}
		const id = decodeURIComponent(/\/messenger\/messages\/chat\/([^/]+)$/.exec(options.url)[1]);
		if (failing.has(id)) throw httpError(failing.get(id), { message: 'Service Unavailable' });
		if (!chats.has(id)) throw httpError(404, { statusCode: 404, message: 'Chat not found' });
		return answer([...chats.get(id)].sort(byTime), options.qs, order, shuffle);
	});
	return { http, calls, chats, phones, failing, contacts };
}

/**
 * The contact endpoints the memory uses to keep answers (docs/api.md, Contacts): search, create,
 * update one attribute. `contacts` maps phones to contacts; a contact `failing` answers that status.
 */
function contactCall(contacts, options) {
	const search = /\/messenger\/contacts\/search\/([^/]+)$/.exec(options.url);
	if (search) {
		const term = decodeURIComponent(search[1]);
		const found = [...contacts.values()].filter((c) => c.phone.includes(term));
		if (found.some((c) => c.failing)) throw httpError(found[0].failing, { message: 'Bad Gateway' });
		return found;
	}
	if (options.method === 'POST' && options.url === '/api/v1/messenger/contacts') {
		const contact = { id: `ctc_${contacts.size + 1}`, ...options.body };
		contacts.set(contact.phone, contact);
		return contact;
	}
	const attribute = /\/messenger\/contacts\/([^/]+)\/attributes\/([^/]+)$/.exec(options.url);
	if (attribute && options.method === 'PATCH') {
		const contact = [...contacts.values()].find((c) => c.id === attribute[1]);
		if (!contact) throw httpError(404, { statusCode: 404, message: 'Contact not found' });
		if (contact.failing) throw httpError(contact.failing, { message: 'Bad Gateway' });
		contact.attributes = { ...contact.attributes, [attribute[2]]: options.body.value };
		return contact;
	}
	return undefined;
}

/**
 * `context` as n8n gives it to a sub-node: its own input is the connection to the agent (no
 * items); the agent's item is what its expressions see as `$json`.
 */
export function supplyContext(context) {
	const items = context.getInputData();
	return Object.assign(context, {
		getInputData: (inputIndex = 0, type = 'ai_memory') => (type === 'main' ? items : []),
		getWorkflowDataProxy: (itemIndex) => ({ $json: items[itemIndex]?.json ?? {} }),
	});
}

/** A supply-data context for the memory node: its parameters, the agent's input item, the API. */
export function memoryContext(api, { params = {}, item = {} } = {}) {
	return supplyContext(
		createExecuteContext({
			params: { chat: item.chatId ?? '', options: {}, ...params },
			items: [{ json: item }],
			http: api.http,
			credentials: UNPACED,
		}),
	);
}

/** The texts of turns, as `role: text`. */
export const said = (turns) => turns.map((turn) => `${turn.role}: ${turn.content[0].text}`);
