// A chat-history API in memory for the Message Received suites (the poll trigger's and the live
// trigger's): pages newest first, as docs/api.md says, phones with an open chat, chats that fail.
import { byTime } from '../../../../nodes/Messenger/trigger/messageCursor.ts';
import { httpError, scriptedHttp } from '../../../../tools/context.mjs';

export const T0 = Date.parse('2026-03-01T10:00:00.000Z');
export const at = (second) => new Date(T0 + second * 1000).toISOString();
let counter = 0;
export const message = (chatId, second, extra = {}) => ({
	id: `msg_${String(++counter).padStart(5, '0')}`,
	chatId,
	direction: 'inbound',
	type: 'text',
	content: `hello ${counter}`,
	status: 'delivered',
	createdAt: at(second),
	...extra,
});

/**
 * A chat-history API in memory: chats by id, phones with an open chat, chats that fail. Its clock
 * is `aheadMs` ahead of the test's (negative: behind): answers asked for in full carry it in their
 * Date header (whole seconds, as HTTP has it), and `written(chatId, ms)` stamps a message by it,
 * `ms` from now.
 */
export function fakeApi({ aheadMs = 0 } = {}) {
	const chats = new Map();
	const phones = new Map();
	/** Chat ID → the HTTP status its history answers with (503 for a chat added with `add`). */
	const failing = new Map();
	failing.add = (id, status = 503) => failing.set(id, status);
	const now = () => Date.now() + aheadMs;
	const { http, calls } = scriptedHttp(async (options) => {
		const body = await answer(options);
		if (!options.returnFullResponse) return body;
		return { body, headers: { date: new Date(now()).toUTCString() }, statusCode: 200 };
	});
	async function answer(options) {
		const url = options.url;
		if (url === '/api/v1/messenger/chats/check-existing') {
			const chatId = phones.get(options.qs.phone) ?? null;
			return { exists: chatId !== null, chatId };
		}
		const id = decodeURIComponent(/\/messenger\/messages\/chat\/([^/]+)$/.exec(url)[1]);
		if (failing.has(id)) {
			const status = failing.get(id);
			throw httpError(status, { message: status === 403 ? 'Forbidden' : 'Service Unavailable' });
		}
		if (!chats.has(id)) throw httpError(404, { statusCode: 404, message: 'Chat not found' });
		const { page = 1, limit = 10, sort = 'desc' } = options.qs ?? {};
		const sorted = [...chats.get(id)].sort(byTime);
		if (sort === 'desc') sorted.reverse();
		const items = sorted.slice((page - 1) * limit, page * limit);
		return { items, total: sorted.length, page, totalPages: Math.ceil(sorted.length / limit) };
	}
	const add = (chatId, ...messages) => {
		if (!chats.has(chatId)) chats.set(chatId, []);
		chats.get(chatId).push(...messages);
		return messages;
	};
	const historyCalls = (chatId) =>
		calls.filter((c) => c.url.endsWith(`/messages/chat/${chatId}`)).length;
	const written = (chatId, ms = 0) =>
		add(chatId, message(chatId, 0, { createdAt: new Date(now() + ms).toISOString() }))[0];
	return { http, calls, chats, phones, failing, add, historyCalls, now, written };
}
