import type { IDataObject } from 'n8n-workflow';

import type { FieldContext } from '../../shared/answerFields';
import { dateField, textField } from '../../shared/answerFields';
import { MAX_PAGE_SIZE } from '../../shared/pagination';
import type { MessageFilter } from './messageSettings';

/**
 * Most message IDs a cursor keeps for the messages that share its newest `createdAt`. Past it the
 * greatest IDs are kept and `floor` says the smaller ones at that time were seen too, so the
 * state stays bounded even for a burst of messages stamped with one time.
 */
export const MAX_TIED_IDS = MAX_PAGE_SIZE;

/**
 * Where a chat stands: the newest `createdAt` seen and the IDs seen at exactly that time (the API
 * may stamp several messages with one time, and one of them may arrive after a poll read the
 * others). A message is new when it is later, or at that time with an ID not seen.
 */
export interface ChatCursor {
	at: string;
	ids: string[];
	/** More than MAX_TIED_IDS shared `at`: IDs below ids[0] at `at` were seen too. */
	floor?: boolean;
}

const MESSAGE_RECORD: FieldContext = {
	subject: 'A message in the chat history',
	workaround:
		'The trigger orders messages by their id and creation time, and filters them by direction and type. If your API names them differently, run Messenger → Chat → Get Messages on a Schedule Trigger instead.',
};

/**
 * A history message the trigger can order (an ID and a creation time) and filter (a direction
 * and a type when the settings choose some), or the error naming the field: a filter on a field
 * the API does not send would drop every message, and the trigger would never fire.
 */
export function checkedMessage(message: IDataObject, filter?: MessageFilter): IDataObject {
	textField(message, ['id'], MESSAGE_RECORD);
	dateField(message, ['createdAt', 'created_at'], MESSAGE_RECORD);
	if (filter && filter.direction !== 'both') textField(message, ['direction'], MESSAGE_RECORD);
	if (filter && filter.types.length > 0) textField(message, ['type'], MESSAGE_RECORD);
	return message;
}

/** Whether a page runs oldest first (an API that ignores `sort`): the newest are then on the last page. */
export function isOldestFirst(messages: IDataObject[]): boolean {
	return (
		messages.length > 1 && messageTime(messages[0]) < messageTime(messages[messages.length - 1])
	);
}

/**
 * Whether a page shows the order of its pages: two different times (its first and last
 * message). A page of one message, or of messages sharing one `createdAt`, does not.
 */
export function showsOrder(messages: IDataObject[]): boolean {
	return (
		messages.length > 1 && messageTime(messages[0]) !== messageTime(messages[messages.length - 1])
	);
}

/** A message's time as a comparable ISO string (text that is no date is compared as it is). */
export function messageTime(message: IDataObject): string {
	const text = String(message.createdAt ?? message.created_at ?? '');
	const ms = Date.parse(text);
	return Number.isNaN(ms) ? text : new Date(ms).toISOString();
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Oldest first: by `createdAt`, then by ID (the order docs/api.md gives for equal times). */
export function byTime(a: IDataObject, b: IDataObject): number {
	return compareText(messageTime(a), messageTime(b)) || compareText(String(a.id), String(b.id));
}

/** Whether a message is after the cursor, i.e. not reported yet. */
export function isAfter(cursor: ChatCursor, message: IDataObject): boolean {
	const at = messageTime(message);
	if (at !== cursor.at) return at > cursor.at;
	const id = String(message.id);
	if (cursor.ids.includes(id)) return false;
	return !(cursor.floor && cursor.ids.length > 0 && id < cursor.ids[0]);
}

/** Whether a newest-first page reached messages older than `at`: later pages hold only older ones. */
export function reachedOlder(items: IDataObject[], at: string): boolean {
	return items.some((message) => messageTime(message) < at);
}

/** The newest time among messages, or undefined for none. */
export function newestTime(messages: IDataObject[]): string | undefined {
	let newest: string | undefined;
	for (const message of messages) {
		const at = messageTime(message);
		if (newest === undefined || at > newest) newest = at;
	}
	return newest;
}

/** The cursor after `messages` were read (the old cursor's IDs are kept when the time stays). */
export function advanceCursor(cursor: ChatCursor, messages: IDataObject[]): ChatCursor {
	const newest = newestTime(messages);
	if (newest === undefined || newest < cursor.at) return cursor;
	const tied = messages
		.filter((message) => messageTime(message) === newest)
		.map((m) => String(m.id));
	const ids = [...new Set(newest === cursor.at ? [...cursor.ids, ...tied] : tied)].sort();
	const floor = (newest === cursor.at && cursor.floor) || ids.length > MAX_TIED_IDS;
	const kept = ids.slice(-MAX_TIED_IDS);
	return floor ? { at: newest, ids: kept, floor: true } : { at: newest, ids: kept };
}
