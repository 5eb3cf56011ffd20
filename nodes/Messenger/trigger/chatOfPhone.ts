import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { fieldValue, missingField } from '../../shared/answerFields';
import { describeFailure } from '../../shared/errors';
import { apiRequest, path } from '../../shared/transport';
import type { ChatCursor } from './messageCursor';
import type { ChatWatch } from './messageReceived';
import type { WatchEntry } from './messageSettings';

/** Where Check Existing may put the chat's ID: docs/api.md's `chatId` first. */
const CHAT_ID_FIELDS = ['chatId', 'chat_id'];

/**
 * The open chat of a phone (Check Existing), or undefined while it has none. An answer that says
 * a chat exists (or says nothing) without an ID fails, naming the field: a phone that is never
 * matched would make the trigger silent for good.
 */
export async function chatOfPhone(
	context: IPollFunctions,
	phone: string,
	answerDate?: (second: number) => void,
): Promise<string | undefined> {
	const answer = (await apiRequest.call(context, 'GET', path`/messenger/chats/check-existing`, {
		qs: { phone },
		answerDate,
	})) as IDataObject | undefined;
	if (answer?.exists === false) return undefined;
	const id = fieldValue(answer, CHAT_ID_FIELDS) ?? fieldValue(answer?.chat, ['id']);
	if ((typeof id === 'string' && id !== '') || typeof id === 'number') return String(id);
	throw missingField(answer, [...CHAT_ID_FIELDS, 'chat.id'], 'text', {
		subject: 'The Check Existing answer for a watched phone',
		workaround: 'Watch the chat by its ID instead of the phone (Chat → Check Existing gives it).',
	});
}

/** The path of a chat's history. */
export const historyPath = (chatId: string) => path`/messenger/messages/chat/${chatId}`;

/** The chat an entry stands for: its ID, the chat its phone was matched to, or the phone's open chat now. */
export async function chatIdOf(
	context: IPollFunctions,
	entry: WatchEntry,
	watch: { chatId?: string } | undefined,
	answerDate?: (second: number) => void,
): Promise<string | undefined> {
	return (
		entry.chatId ??
		watch?.chatId ??
		(entry.phone && (await chatOfPhone(context, entry.phone, answerDate)))
	);
}

/**
 * A chat listed twice (by its ID and by a phone matched to it, or by two phones) is one chat: the
 * listed entries that read chat `chatId` (`entry` among them: it was matched to it now), by what
 * `watches` holds.
 */
export function entriesOfChat(
	entries: WatchEntry[],
	watches: Record<string, ChatWatch>,
	chatId: string,
	entry: WatchEntry,
): WatchEntry[] {
	return entries.filter(
		(other) =>
			other.key === entry.key ||
			other.chatId === chatId ||
			(other.phone !== undefined && watches[other.key]?.chatId === chatId),
	);
}

/**
 * The one cursor of a chat listed several times: its ID entry's (what was reported of the chat
 * by its ID), else `entry`'s own, else a matched phone's, else the one `entry` keeps while its
 * chat is unknown (404). Undefined: no entry of it has one yet.
 */
export function chatCursorOf(
	group: WatchEntry[],
	watches: Record<string, ChatWatch>,
	entry: WatchEntry,
): ChatCursor | undefined {
	const byId = group.find((other) => other.chatId !== undefined && !watches[other.key]?.missing);
	const own = byId ? [byId, entry] : [entry];
	const cursorOf = (watch: ChatWatch): ChatCursor => ({
		at: watch.at,
		ids: watch.ids,
		...(watch.floor ? { floor: true } : {}),
	});
	for (const other of [...own, ...group]) {
		const watch = watches[other.key];
		if (watch && !watch.missing) return cursorOf(watch);
	}
	// Else the entry's own, kept while the API did not know its chat (a 404 may pass).
	const kept = watches[entry.key];
	return kept && typeof kept.missing === 'object' ? cursorOf(kept) : undefined;
}

/** The watches of a chat's entries after a read moved its cursor: all of them at `cursor`. */
export function chatMovedTo(
	group: WatchEntry[],
	watches: Record<string, ChatWatch>,
	chatId: string,
	cursor: ChatCursor,
	entry: WatchEntry,
): Record<string, ChatWatch> {
	const moved: Record<string, ChatWatch> = {};
	for (const other of group) {
		// A chat ID found missing (404) stays so: its own read says when it is back.
		if (other.key !== entry.key && watches[other.key]?.missing) continue;
		moved[other.key] = {
			at: cursor.at,
			ids: [...cursor.ids],
			...(cursor.floor ? { floor: true } : {}),
			...(other.phone ? { chatId } : {}),
		};
	}
	return moved;
}

/**
 * What `read` gets from a chat's history, or undefined when the API does not know the chat (404).
 * Any other failure goes on as it came: the end of the poll's time (PollTimeUp) and an outage must
 * reach the poll's reading loop as what they are, not as a failure of this chat.
 */
export async function unlessChatMissing<T>(read: () => Promise<T>): Promise<T | undefined> {
	let failed: unknown;
	try {
		return await read();
	} catch (error) {
		failed = error;
	}
	if (describeFailure(failed).status === 404) return undefined;
	throw failed;
}

/**
 * The keys of the entries the live loop reads, one per chat: a chat listed twice is read as often
 * as any other (whichever entry reads it moves the cursor of both: chatMovedTo). Its ID entry reads
 * it, else the first phone listed that was matched to it; an entry whose chat is not known yet
 * reads on its own. `unknown`: ID entries the API did not know at their last read: a phone matched
 * to that chat reads on its own too, so that its read matches it again (Check Existing).
 */
export function readersOfChats(
	entries: WatchEntry[],
	watches: Record<string, ChatWatch>,
	unknown: ReadonlySet<string>,
): string[] {
	const readBy = new Map<string, string>();
	for (const entry of entries) {
		if (entry.chatId !== undefined && !unknown.has(entry.key)) readBy.set(entry.chatId, entry.key);
	}
	return entries
		.filter((entry) => {
			const chatId = entry.chatId ?? watches[entry.key]?.chatId;
			if (chatId === undefined || entry.chatId !== undefined) return true;
			if (!readBy.has(chatId)) readBy.set(chatId, entry.key);
			return readBy.get(chatId) === entry.key;
		})
		.map((entry) => entry.key);
}
