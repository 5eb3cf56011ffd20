import type { IDataObject } from 'n8n-workflow';

import { byTime, messageTime } from '../trigger/messageCursor';
import type { KeptAnswer } from './keptAnswers';

/** The most messages the memory hands the agent (one page of the history holds them all). */
export const MAX_MEMORY_WINDOW = 100;
/** Messages of the chat the agent sees by default: a long chat's request stays small. */
export const DEFAULT_MEMORY_WINDOW = 20;

/** A turn as n8n's AI SDK takes it (its `Message` with one text part). */
export interface ChatTurn {
	role: 'user' | 'assistant';
	content: Array<{ type: 'text'; text: string }>;
}

/**
 * The messages an execution answers (the trigger's item: one message, or a chat's group): they
 * reach the agent as its prompt, so the memory leaves them out, and everything after the newest of
 * them (what the customer writes meanwhile is the next execution's prompt).
 */
export interface Answering {
	ids: Set<string>;
	/** The newest answered message's time, when its ID is not (yet) in the history read. */
	until?: string;
}

const isRecord = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

/**
 * What an item from the Messenger triggers answers, when it is of the chat the memory reads: its
 * `messageId`, a group's `messageIds` (and its messages' IDs), and its newest time.
 */
export function answeringOf(item: IDataObject | undefined, chatId: string): Answering {
	const ids = new Set<string>();
	if (!item || String(item.chatId ?? '') !== chatId) return { ids };
	const add = (value: unknown) => {
		if (typeof value === 'string' || typeof value === 'number') ids.add(String(value));
	};
	add(item.messageId);
	if (Array.isArray(item.messageIds)) item.messageIds.forEach(add);
	if (Array.isArray(item.messages)) {
		for (const message of item.messages.filter(isRecord)) add(message.messageId ?? message.id);
	}
	const until = text(item.lastAt) || text(item.createdAt);
	return until && ids.size > 0 ? { ids, until: messageTime({ createdAt: until }) } : { ids };
}

/** A media message in words: its type, file name and caption (`[image: menu.jpg] Our menu`). */
function mediaWords(type: string, content: IDataObject): string {
	const name = text(content.fileName) || text(content.filename);
	const caption = text(content.caption) || text(content.text);
	return `[${type}${name ? `: ${name}` : ''}]${caption ? ` ${caption}` : ''}`;
}

/** A location in words: its name and address, then the coordinates. */
function locationWords(content: IDataObject): string {
	const place = [text(content.name), text(content.address)].filter(Boolean).join(', ');
	const at =
		content.latitude !== undefined && content.longitude !== undefined
			? `${String(content.latitude)}, ${String(content.longitude)}`
			: '';
	return `[location${place ? `: ${place}` : ''}${at ? ` (${at})` : ''}]`;
}

/** A message's words for the agent (docs/api.md, Messages): text as it is, the rest described. */
export function messageWords(message: IDataObject): string {
	const type = text(message.type).toLowerCase() || 'text';
	const content = message.content;
	if (typeof content === 'string') {
		return type === 'text' ? content.trim() : `[${type}] ${content.trim()}`.trim();
	}
	if (!isRecord(content)) return type === 'text' ? '' : `[${type}]`;
	if (type === 'location') return locationWords(content);
	if (type === 'text') return text(content.text) || text(content.body);
	return mediaWords(type, content);
}

/**
 * A history message as a turn: the customer's (inbound) as the user's, the team's (outbound: the
 * workflow's answers and a person's) as the assistant's. Undefined for what the customer never
 * saw (a failed send) or holds no words.
 */
export function turnOf(message: IDataObject): ChatTurn | undefined {
	const direction = text(message.direction).toLowerCase();
	if (direction !== 'inbound' && direction !== 'outbound') return undefined;
	if (direction === 'outbound' && text(message.status).toLowerCase() === 'failed') return undefined;
	const words = messageWords(message);
	if (!words) return undefined;
	return {
		role: direction === 'inbound' ? 'user' : 'assistant',
		content: [{ type: 'text', text: words }],
	};
}

/** Whether a message says `words`: as its text, or as a file's caption (an answer sent in the chat). */
function saysSame(message: IDataObject, words: string): boolean {
	if (messageWords(message) === words) return true;
	const content = message.content;
	return isRecord(content) && (text(content.caption) === words || text(content.text) === words);
}

const compareKeys = (a: [string, string, number], b: [string, string, number]) => {
	for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
	return 0;
};

/** The chat's messages (of this chat only, each once), oldest first. */
function chatMessages(messages: IDataObject[], chatId: string): IDataObject[] {
	const byId = new Map<string, IDataObject>();
	for (const message of messages) {
		if (!isRecord(message)) continue;
		if (message.chatId !== undefined && String(message.chatId) !== chatId) continue;
		byId.set(String(message.id ?? JSON.stringify(message)), message);
	}
	return [...byId.values()].sort(byTime);
}

/** The newest of the answered messages that the read holds (`ordered`: oldest first). */
function newestAnswered(ordered: IDataObject[], answering: Answering): IDataObject | undefined {
	for (let i = ordered.length - 1; i >= 0; i--) {
		if (answering.ids.has(String(ordered[i].id))) return ordered[i];
	}
	return undefined;
}

/** The API's time of the newest answered message (else the item's time; none: no limit). */
function answeredUntil(ordered: IDataObject[], answering: Answering): string | undefined {
	const newest = newestAnswered(ordered, answering);
	return newest ? messageTime(newest) : answering.until;
}

/**
 * Where the answer to `answering` goes in the chat: after the newest message it answers, by the
 * API's time and then ID (the place of an answer kept on the contact, see keptAnswers.ts); the
 * newest message read when the item names none, the start of a chat with none.
 */
export function answerAnchor(
	messages: IDataObject[],
	chatId: string,
	answering: Answering,
): Pick<KeptAnswer, 'after' | 'afterId'> {
	const ordered = chatMessages(messages, chatId);
	const newest = newestAnswered(ordered, answering);
	if (newest) return { after: messageTime(newest), afterId: String(newest.id) };
	if (answering.until !== undefined) return { after: answering.until };
	const last = ordered[ordered.length - 1];
	return last ? { after: messageTime(last), afterId: String(last.id) } : { after: '' };
}

/**
 * The turns the agent sees, oldest first: the chat's messages (of this chat only, each once) up to
 * the ones being answered and without them, with the answers kept outside the history (`kept`)
 * each after the message it answered, the latest `window` of them. A kept answer the history shows
 * too (an outbound message with its words, at or after its place) comes once, from the history;
 * one placed before `from` (the oldest message of a read that stopped early) is left out, as the
 * messages around it were not read.
 */
export function conversation(
	messages: IDataObject[],
	chatId: string,
	answering: Answering,
	window: number,
	kept: KeptAnswer[] = [],
	from?: string,
): ChatTurn[] {
	const ordered = chatMessages(messages, chatId);
	const until = answeredUntil(ordered, answering);
	const shown = ordered
		.filter((message) => !answering.ids.has(String(message.id)))
		.filter((message) => until === undefined || messageTime(message) <= until);
	// Sorted by time, then ID; a kept answer after every message of its time when it names none.
	const entries: Array<{ key: [string, string, number]; turn: ChatTurn | undefined }> = shown.map(
		(message) => ({ key: [messageTime(message), String(message.id), 0], turn: turnOf(message) }),
	);
	const inHistory = (answer: KeptAnswer) =>
		shown.some(
			(message) =>
				text(message.direction).toLowerCase() === 'outbound' &&
				messageTime(message) >= answer.after &&
				saysSame(message, answer.text.trim()),
		);
	for (const answer of kept) {
		if (answer.chatId !== chatId || !answer.text.trim()) continue;
		if (until !== undefined && answer.after > until) continue;
		if (from !== undefined && answer.after < from) continue;
		if (inHistory(answer)) continue;
		entries.push({
			key: [answer.after, answer.afterId ?? '\uffff', 1],
			turn: { role: 'assistant', content: [{ type: 'text', text: answer.text.trim() }] },
		});
	}
	// Stable: answers kept at one place keep the order they were kept in.
	entries.sort((a, b) => compareKeys(a.key, b.key));
	return entries
		.map((entry) => entry.turn)
		.filter((turn): turn is ChatTurn => turn !== undefined)
		.slice(-window);
}
