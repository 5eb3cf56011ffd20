import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { DownloadError } from '../../shared/download';
import type { FreshLink, MediaSettings } from '../../shared/mediaFiles';
import { attachFiles, mediaLinkOf, mediaSettings } from '../../shared/mediaFiles';
import { failsThePoll, isPollWide, rethrowUnlessTimeUp } from '../../shared/poll';
import type { PollTimeUp } from '../../shared/pollClock';
import { OutputItems } from '../../shared/router';
import { requireNumberInRange } from '../../shared/validation';
import { byTime } from './messageCursor';

/** The longest Wait for a Pause, in seconds (a day). */
export const MAX_PAUSE_SECONDS = 86_400;
/**
 * Most messages held for one chat: a chat that never pauses is released at this many, so the
 * trigger's state stays bounded.
 */
export const MAX_HELD_MESSAGES = 50;

/** How Message Received hands its messages to the workflow. */
export interface DeliverySettings {
	media: MediaSettings;
	groupByChat: boolean;
	pauseSeconds: number;
}

/** A chat's messages held until the customer pauses: the items, and when the last one was found. */
export interface HeldChat {
	items: IDataObject[];
	lastFoundAt: string;
}

/** The Options of Message Received, checked (a bad value names the field). */
export function deliverySettings(context: IPollFunctions): DeliverySettings {
	const options = context.getNodeParameter('options', {}) as IDataObject;
	return {
		media: mediaSettings(options),
		groupByChat: options.groupByChat === true,
		pauseSeconds: requireNumberInRange(
			options.waitForPause ?? 0,
			'Wait for a Pause (Seconds)',
			0,
			MAX_PAUSE_SECONDS,
		),
	};
}

/** One item for a chat's messages, oldest first: their texts joined for an AI Agent, the messages kept. */
export function chatGroup(items: IDataObject[]): IDataObject {
	const messages = [...items].sort((a, b) =>
		byTime(a.message as IDataObject, b.message as IDataObject),
	);
	const first = messages[0];
	const last = messages[messages.length - 1];
	const texts = messages
		.map((item) => item.text)
		.filter((text): text is string => typeof text === 'string' && text !== '');
	return {
		chatId: first.chatId,
		phone: messages.find((item) => item.phone)?.phone ?? null,
		messageCount: messages.length,
		text: texts.join('\n'),
		firstAt: first.createdAt,
		lastAt: last.createdAt,
		messageIds: messages.map((item) => item.messageId),
		messages,
	};
}

/** Items by chat, in the order each chat's first item comes. */
export function byChat(items: IDataObject[]): IDataObject[][] {
	const chats = new Map<string, IDataObject[]>();
	for (const item of items) {
		const key = String(item.chatId);
		chats.set(key, [...(chats.get(key) ?? []), item]);
	}
	return [...chats.values()];
}

/**
 * The messages to hand over now and the chats still held: new items join their chat's held
 * ones; a chat is released once nothing new came for `pauseSeconds` (or it holds
 * MAX_HELD_MESSAGES). Without a pause everything is released, what was held included.
 */
export function releaseHeld(
	fresh: IDataObject[],
	held: Record<string, HeldChat>,
	pauseSeconds: number,
	now: number,
): { released: IDataObject[][]; held: Record<string, HeldChat> } {
	const chats: Record<string, HeldChat> = {};
	for (const [key, chat] of Object.entries(held)) chats[key] = { ...chat, items: [...chat.items] };
	const foundAt = new Date(now).toISOString();
	for (const item of fresh) {
		const key = String(item.chatId);
		const chat = (chats[key] ??= { items: [], lastFoundAt: foundAt });
		chat.items.push(item);
		chat.lastFoundAt = foundAt;
	}
	const released: IDataObject[][] = [];
	for (const [key, chat] of Object.entries(chats)) {
		const quiet = now - Date.parse(chat.lastFoundAt) >= pauseSeconds * 1000;
		if (pauseSeconds === 0 || quiet || chat.items.length >= MAX_HELD_MESSAGES) {
			released.push(chat.items);
			delete chats[key];
		}
	}
	return { released, held: chats };
}

/**
 * A download failure that is not the message's own: an outage of the API (reading a fresh link)
 * or of the file's host. The poll fails with its cause and the file is asked for at the next one;
 * a file that is gone, expired or too large is the message's, which comes with `mediaError`.
 */
function failsDelivery(error: unknown): boolean {
	return failsThePoll(error) || (error instanceof DownloadError && isPollWide(error.failure));
}

/** A message as it was found, without what a download that was cut off left on it. */
function asFound(item: IDataObject): IDataObject {
	const found = { ...item };
	delete found.binaryProperty;
	delete found.mediaError;
	return found;
}

/**
 * Output items for released messages: one per chat with Group by Chat, else one per message;
 * with Download Media each carries its files (a failed download leaves `mediaError` on its
 * message, never loses it; a link that expired while the message was held is read again).
 * When the poll's time ends during a download, that item and the ones after it are returned
 * as `undelivered` (by chat) for the next poll, which delivers them first; with
 * `mustDeliverFirst` (they had a whole poll's time) the first is delivered with `mediaError`.
 * With `fetchFailsPoll` an outage while fetching a file fails the poll (failsDelivery).
 */
export async function deliveredItems(
	context: IPollFunctions,
	released: IDataObject[][],
	settings: DeliverySettings,
	options: { freshLink?: FreshLink; mustDeliverFirst?: boolean; fetchFailsPoll?: boolean } = {},
): Promise<{ output: OutputItems; undelivered: IDataObject[][] }> {
	const units = settings.groupByChat
		? released.flatMap((items) => byChat(items)).map((items) => chatGroup(items))
		: released.flat().sort((a, b) => byTime(a.message as IDataObject, b.message as IDataObject));
	const output: INodeExecutionData[] = [];
	const messagesOf = (json: IDataObject) =>
		settings.groupByChat ? (json.messages as IDataObject[]) : [json];
	for (const [index, json] of units.entries()) {
		const messages = messagesOf(json);
		let binary: INodeExecutionData['binary'];
		try {
			binary = settings.media.download
				? await attachFiles(
						context,
						messages,
						settings.media,
						true,
						options.freshLink,
						options.fetchFailsPoll ? failsDelivery : undefined,
					)
				: undefined;
		} catch (error) {
			rethrowUnlessTimeUp(error, true);
			if (index > 0 || !options.mustDeliverFirst) {
				const rest = units.slice(index).flatMap(messagesOf).map(asFound);
				return { output: new OutputItems(output), undelivered: byChat(rest) };
			}
			for (const message of messages) {
				if (!mediaLinkOf(message.message ?? message)) continue;
				delete message.binaryProperty;
				const { message: said, description } = error as PollTimeUp;
				message.mediaError = { message: said, description };
			}
		}
		output.push(binary ? { json, binary } : { json });
	}
	return { output: new OutputItems(output), undelivered: [] };
}
