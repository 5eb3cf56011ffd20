import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { requireList, requireListId } from '../../shared/lists';
import { requireOneOf } from '../../shared/validation';
import { isPhoneEntry, normalizePhone } from '../../shared/phone';
import { MEDIA_TYPES } from '../actions/message/media';

/** One request per watched chat and poll: keep a poll well under the API's 100 requests a minute. */
export const MAX_WATCHED_CHATS = 50;
export const MESSAGE_TYPES = ['text', ...MEDIA_TYPES, 'location'] as const;
export const MESSAGE_DIRECTIONS = ['inbound', 'outbound', 'both'] as const;
export type MessageDirection = (typeof MESSAGE_DIRECTIONS)[number];

/** A watched chat: given by its ID, or by a phone that Check Existing turns into a chat. */
export interface WatchEntry {
	key: string;
	chatId?: string;
	phone?: string;
}

/**
 * The entries of the Chats parameter (a list, see requireList): `+` or `00` starts a phone, which
 * normalizePhone reads as every phone field does; anything else is a chat ID.
 */
export function watchEntries(value: unknown): WatchEntry[] {
	const list = requireList(value, 'Chats', {
		max: MAX_WATCHED_CHATS,
		advice: `Each watched chat costs one request per poll and the API allows 100 a minute: split the chats over several triggers with longer poll intervals, or watch the chats that matter most.`,
	});
	const entries = new Map<string, WatchEntry>();
	list.forEach((raw, index) => {
		const field = list.length > 1 ? `Chat ${index + 1}` : 'Chat';
		if (isPhoneEntry(raw)) {
			const phone = normalizePhone(raw, field);
			entries.set(phone, { key: phone, phone });
		} else {
			const chatId = requireListId(raw, field);
			entries.set(chatId, { key: chatId, chatId });
		}
	});
	return [...entries.values()];
}

export interface MessageFilter {
	direction: MessageDirection;
	types: string[];
}

/** Direction and Message Types, checked (a bad value from an expression names the field). */
export function messageFilter(context: IPollFunctions): MessageFilter {
	return {
		direction: requireOneOf(
			context.getNodeParameter('direction', 'inbound'),
			'Direction',
			MESSAGE_DIRECTIONS,
		),
		types: (context.getNodeParameter('messageTypes', []) as unknown[]).map((type) =>
			requireOneOf(type, 'Message Types', MESSAGE_TYPES),
		),
	};
}

/** Whether a message passes the Direction and Message Types settings. */
export function wanted(filter: MessageFilter, message: IDataObject): boolean {
	if (filter.direction !== 'both' && message.direction !== filter.direction) return false;
	return filter.types.length === 0 || filter.types.includes(String(message.type));
}

/** The text of a message: the text itself, a media caption, or null (location, no caption). */
function textOf(content: unknown): string | null {
	if (typeof content === 'string') return content;
	if (!content || typeof content !== 'object') return null;
	const { caption, text } = content as IDataObject;
	return typeof caption === 'string' ? caption : typeof text === 'string' ? text : null;
}

/** One output item: the fields workflows use most, and the whole record. */
export function receivedMessage(message: IDataObject, phone: string | undefined): IDataObject {
	return {
		messageId: message.id,
		chatId: message.chatId,
		phone: phone ?? null,
		direction: message.direction,
		type: message.type,
		text: textOf(message.content),
		createdAt: message.createdAt ?? message.created_at,
		message,
	};
}
