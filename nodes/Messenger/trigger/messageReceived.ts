import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { ApiClock } from '../../shared/answerClock';
import { InputError } from '../../shared/errors';
import type { MediaLink } from '../../shared/download';
import { mediaLinkOf } from '../../shared/mediaFiles';
import { unreadable } from '../../shared/poll';
import { apiRequest, path } from '../../shared/transport';
import { chatCursorOf, chatIdOf, chatMovedTo, entriesOfChat } from './chatOfPhone';
import type { ProgressBox } from './chatHistory';
import { readChat } from './chatHistory';
import type { ChatCursor } from './messageCursor';
import type { HeldChat } from './messageDelivery';
import type { MessageFilter, WatchEntry } from './messageSettings';
/** A watched chat ID the API did not know (404) is asked for again after this long, doubling while it stays unknown. */
export const MISSING_RETRY_MS = { min: 60_000, max: 3_600_000 };

/**
 * What the trigger keeps per entry (a few fields): the chat's cursor; `chatId` once a phone was
 * matched to its chat (no `chatId` for a phone: not matched yet, `at` is when watching began);
 * `missing` for a chat ID the API did not know at its last `times` reads: its cursor is kept and
 * it is asked for again from `retryAt` on (a 404 may pass). `true`: stored so by an earlier
 * version, with no cursor.
 */
export interface ChatWatch extends ChatCursor {
	chatId?: string;
	missing?: { times: number; retryAt: string } | boolean;
}

export interface MessageWatchState {
	chats: Record<string, ChatWatch>;
	/** Messages held by Wait for a Pause, by chat: kept with the cursors, so a restart loses none. */
	held?: Record<string, HeldChat>;
	/** The entry the next poll reads first: the last poll's time ended before it. */
	next?: string;
	/** Messages found and released whose files the last poll's time did not leave room for, by chat. */
	pending?: IDataObject[][];
}

/** A watched chat that the API does not know: someone has to change the trigger's list (an InputError: configuration-invalid). */
function chatGone(entry: WatchEntry, chatId: string): InputError {
	return new InputError(
		entry.phone
			? `The chat "${chatId}" of ${entry.phone} was not found`
			: `The watched chat "${chatId}" was not found`,
		entry.phone
			? 'The phone is matched to its chat again at the next poll.'
			: 'Correct the ID, or remove it from Chats. While it stays there it is asked for again after a growing delay (a 404 may pass), and its messages are reported once it is found.',
	);
}

/** A watched entry that could not be read for a reason of its own (403, an answer the trigger cannot read), named. */
export function chatUnreadable(context: IPollFunctions, entry: WatchEntry, error: unknown) {
	return unreadable(
		context,
		entry.phone ? `The chat of ${entry.phone}` : `The watched chat "${entry.chatId}"`,
		error,
		'The other chats are reported as usual; this one keeps its place and is read again at the next poll, so nothing is lost.',
	);
}

/** When a chat the API did not know `times` reads in a row at `now` is asked for again. */
function retryAt(now: string, times: number): string {
	const { min, max } = MISSING_RETRY_MS;
	return new Date(
		Date.parse(now) + Math.min(max, min * 2 ** Math.min(times - 1, 30)),
	).toISOString();
}

/** What one read of a watched entry did: the watches it moved, the chat's new messages and phone. */
export interface EntryRead {
	/** The entry's watch, and those of the other entries of its chat (one cursor: chatOfPhone.ts). */
	moved: Record<string, ChatWatch>;
	fresh: IDataObject[];
	/** The phone its messages go out with: the entry's, or a listed phone matched to the chat. */
	phone?: string;
	gone?: InputError;
}

/**
 * One watched entry moved on by one read, against the watches of the listed `entries` (one chat
 * listed twice has one cursor, moved for all its entries by whichever reads it). Every time it
 * keeps is the API's (`clock`: its answers' Date headers), never n8n's; only when a chat the API
 * did not know is asked for again is n8n's own (compared with n8n's). `box`: where a read cut off
 * by its time leaves its progress for the next (readChat).
 */
export async function advanceEntry(
	context: IPollFunctions,
	entry: WatchEntry,
	watches: Record<string, ChatWatch>,
	filter: MessageFilter,
	{
		entries = [entry],
		clock = new ApiClock(),
		box,
		matched,
	}: {
		entries?: WatchEntry[];
		clock?: ApiClock;
		box?: ProgressBox;
		/** Where a phone's chat, once found, waits for a read that ends (one cut off keeps it). */
		matched?: { chatId?: string };
	} = {},
): Promise<EntryRead> {
	// Stored missing for good by an earlier version, without a cursor: watched from a new baseline.
	const stored = watches[entry.key];
	const watch = stored?.missing === true ? undefined : stored;
	const missing = typeof watch?.missing === 'object' ? watch.missing : undefined;
	const now = new Date().toISOString();
	if (watch && missing && now < missing.retryAt) return { moved: {}, fresh: [] };
	const asked = Date.now();
	const known = watch?.chatId ?? matched?.chatId;
	const chatId = await chatIdOf(context, entry, { chatId: known }, clock.answerDate);
	if (matched) matched.chatId = chatId;
	// A phone without a chat (yet): asked again at its next read; its chat's messages count from
	// when watching began, or else from when the API said it had none, by the API's clock.
	const waiting = (): ChatWatch => ({ at: watch?.at ?? clock.since(asked), ids: watch?.ids ?? [] });
	if (!chatId) return { moved: { [entry.key]: waiting() }, fresh: [] };
	const group = entriesOfChat(entries, watches, chatId, entry);
	const phone = entry.phone ?? group.find((other) => other.phone !== undefined)?.phone;
	const cursor = chatCursorOf(group, watches, entry);
	// New to the state while another entry of the chat has its cursor: that one is the chat's, and
	// its reads report what came since. A phone matched just now starts where watching began.
	if (!watch && cursor) {
		return { moved: chatMovedTo(group, watches, chatId, cursor, entry), fresh: [], phone };
	}
	const read = await readChat(context, chatId, cursor, filter, box, clock.answerDate);
	if (!read) {
		// Its cursor is kept (from now on, for a chat never read): found again, nothing is lost.
		const times = (missing?.times ?? 0) + 1;
		const { at, ids, floor } = cursor ?? waiting();
		const kept = {
			at,
			ids,
			...(floor ? { floor } : {}),
			missing: { times, retryAt: retryAt(now, times) },
		};
		const moved = { [entry.key]: entry.phone ? waiting() : kept };
		return { moved, fresh: [], gone: chatGone(entry, chatId) };
	}
	return {
		moved: chatMovedTo(group, watches, chatId, read.cursor, entry),
		fresh: read.fresh.map((message) => ({ ...message, chatId: message.chatId ?? chatId })),
		phone,
	};
}

/** A message's current media link, read again (a signed link that expired gets a new one). */
export async function freshLink(
	context: IPollFunctions,
	messageId: string,
): Promise<MediaLink | undefined> {
	const message = await apiRequest.call(context, 'GET', path`/messenger/messages/${messageId}`, {
		missingAsUndefined: true,
	});
	return mediaLinkOf(message);
}
