import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { ApiClock } from '../../shared/answerClock';
import { InputError } from '../../shared/errors';
import type { MediaLink } from '../../shared/download';
import { mediaLinkOf } from '../../shared/mediaFiles';
import { listPages } from '../../shared/pagination';
import {
	activatedByPerson,
	PartialBaseline,
	pollError,
	readingOrder,
	readInTurn,
	runPoll,
	triggerSetting,
	unreadable,
} from '../../shared/poll';
import { OutputItems } from '../../shared/router';
import { apiRequest, path } from '../../shared/transport';
import {
	chatCursorOf,
	chatIdOf,
	chatMovedTo,
	entriesOfChat,
	historyPath,
	unlessChatMissing,
} from './chatOfPhone';
import type { ChatCursor } from './messageCursor';
import {
	advanceCursor,
	byTime,
	checkedMessage,
	isAfter,
	isOldestFirst,
	messageTime,
	newestTime,
	reachedOlder,
} from './messageCursor';
import type { HeldChat } from './messageDelivery';
import { deliveredItems, deliverySettings, releaseHeld } from './messageDelivery';
import type { MessageFilter, WatchEntry } from './messageSettings';
import { messageSample } from './messageSample';
import { messageFilter, receivedMessage, wanted, watchEntries } from './messageSettings';

/**
 * What the trigger keeps per entry (a few fields): the chat's cursor; `chatId` once a phone was
 * matched to its chat (no `chatId` for a phone: not matched yet, `at` is when watching began);
 * `missing` for a chat ID the API does not know (no longer asked for while it stays listed).
 */
export interface ChatWatch extends ChatCursor {
	chatId?: string;
	missing?: boolean;
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
			: 'Correct the ID, or remove it from Chats. Found gone after activation, it is reported once and no longer asked for while it stays there.',
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

/**
 * The messages of a chat after `cursor`, oldest first, and the cursor after them; without a
 * cursor, a baseline (the newest messages are recorded, none is new). Pages come newest first
 * and are followed until one reaches messages older than the cursor. Undefined: the chat is gone.
 */
export async function readChat(
	context: IPollFunctions,
	chatId: string,
	cursor: ChatCursor | undefined,
	filter: MessageFilter,
	answerDate?: (second: number) => void,
): Promise<{ fresh: IDataObject[]; cursor: ChatCursor } | undefined> {
	// Pages shift while they are read (a message arriving moves the others down, so that a page
	// may hold only messages read already): by ID, once, and a page of repeats does not end the read.
	const read = new Map<string, IDataObject>();
	const behind = new ArrivalsBehind();
	let boundary = cursor?.at;
	const found = await unlessChatMissing(async () => {
		let oldestFirst = false;
		let first = true;
		for await (const page of listPages.call(context, historyPath(chatId), {
			qs: { sort: 'desc' },
			pagesMayShift: true,
			errorContext: { resource: 'Chat', id: chatId },
			answerDate,
		})) {
			const items = page.items.map((message) => checkedMessage(message, filter));
			behind.note(items, read);
			for (const message of items) read.set(String(message.id), message);
			// Pages oldest first (the API ignored `sort`) keep the newest for last: read them all.
			// A page too small to show its order tells it too when it is the first and older than
			// the cursor's messages (newest first, it would hold the newest message there is).
			oldestFirst ||= isOldestFirst(items) || (first && startsBefore(items, cursor));
			first = false;
			if (oldestFirst) continue;
			boundary ??= newestTime(items);
			if (boundary === undefined || reachedOlder(items, boundary)) break;
		}
		return true;
	});
	if (!found) return undefined;
	if (!cursor) return { fresh: [], cursor: advanceCursor({ at: '', ids: [] }, [...read.values()]) };
	// Messages after the time where some came in behind the read wait for the next poll's read.
	const until = behind.readUpTo();
	const messages = [...read.values()].filter(
		(message) => until === undefined || until < cursor.at || messageTime(message) <= until,
	);
	const fresh = messages.filter((message) => isAfter(cursor, message)).sort(byTime);
	return { fresh, cursor: advanceCursor(cursor, messages) };
}

/**
 * Messages that came in behind a read. Pages oldest first (by createdAt, then ID) put a message
 * that arrives with the createdAt of messages read already among them, on a page read already,
 * and the pages after it repeat messages: such a read is whole only up to the earliest repeated
 * time (the cursor may not pass it, or that message is lost). Newest first, a new message goes
 * before everything and is read at the next poll; there repeats are no sign of it.
 */
class ArrivalsBehind {
	private last = '';
	private ascending = true;
	private repeatedAt: string | undefined;

	note(items: IDataObject[], read: Map<string, IDataObject>): void {
		for (const message of items) {
			const at = messageTime(message);
			if (at < this.last) this.ascending = false;
			this.last = at;
			if (read.has(String(message.id)) && (this.repeatedAt === undefined || at < this.repeatedAt)) {
				this.repeatedAt = at;
			}
		}
	}

	/** The time up to which the read is whole, when messages came in behind it; else undefined. */
	readUpTo(): string | undefined {
		return this.ascending ? this.repeatedAt : undefined;
	}
}

/** Whether a chat's first page is older than the messages its cursor was read at (IDs kept at `at`). */
function startsBefore(items: IDataObject[], cursor: ChatCursor | undefined): boolean {
	const newest = newestTime(items);
	return (
		cursor !== undefined && cursor.ids.length > 0 && newest !== undefined && newest < cursor.at
	);
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
 * keeps is the API's (`clock`: its answers' Date headers), never n8n's.
 */
export async function advanceEntry(
	context: IPollFunctions,
	entry: WatchEntry,
	watches: Record<string, ChatWatch>,
	filter: MessageFilter,
	{ entries = [entry], clock = new ApiClock() }: { entries?: WatchEntry[]; clock?: ApiClock } = {},
): Promise<EntryRead> {
	const watch = watches[entry.key];
	if (watch?.missing) return { moved: {}, fresh: [] };
	const asked = Date.now();
	const chatId = await chatIdOf(context, entry, watch, clock.answerDate);
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
	const read = await readChat(context, chatId, cursor, filter, clock.answerDate);
	if (!read) {
		const kept: ChatWatch = entry.phone ? waiting() : { at: '', ids: [], missing: true };
		return { moved: { [entry.key]: kept }, fresh: [], gone: chatGone(entry, chatId) };
	}
	return {
		moved: chatMovedTo(group, watches, chatId, read.cursor, entry),
		fresh: read.fresh.map((message) => ({ ...message, chatId: message.chatId ?? chatId })),
		phone,
	};
}

/** Adds the wanted messages of one entry to `found`, by message ID (a chat listed twice by ID and by phone reports each message once, with the phone). */
function collect(
	found: Map<string, IDataObject>,
	fresh: IDataObject[],
	phone: string | undefined,
	filter: MessageFilter,
): void {
	for (const message of fresh.filter((m) => wanted(filter, m))) {
		const known = found.get(String(message.id));
		if (!known || (known.phone === null && phone)) {
			found.set(String(message.id), receivedMessage(message, phone));
		}
	}
}

/**
 * One poll over the watched entries, within the poll's time: entries new to the state get a
 * baseline of their own; entries no longer listed leave it; when the time is up, the entry not
 * read is where the next poll starts (`next`), and the others keep their state. With `isolate`,
 * an entry that could not be read keeps its state and is returned in `failures` while the others
 * move on (all failing fails the poll); without, the first failure fails it (the first poll:
 * activation shows the error). `readBefore`: the poll already handed something over (held
 * files), so that a poll whose time ends before any chat is read still succeeds. `listed`: all the
watched entries, when only some are read (their chats' cursors are shared: chatOfPhone.ts).
 */
export async function pollMessages(
	context: IPollFunctions,
	entries: WatchEntry[],
	state: MessageWatchState,
	filter: MessageFilter,
	{
		isolate,
		readBefore = false,
		clock = new ApiClock(),
		listed = entries,
	}: { isolate: boolean; readBefore?: boolean; clock?: ApiClock; listed?: WatchEntry[] },
): Promise<{ items: IDataObject[]; state: MessageWatchState; failures: unknown[] }> {
	const chats: Record<string, ChatWatch> = {};
	for (const entry of listed) {
		if (state.chats[entry.key]) chats[entry.key] = state.chats[entry.key];
	}
	const found = new Map<string, IDataObject>();
	const failures: unknown[] = [];
	let read = 0;
	const order = readingOrder(entries, state.next, (entry) => entry.key);
	const [next] = await readInTurn(
		context,
		order,
		async (entry) => {
			const result = await advanceEntry(context, entry, chats, filter, { entries: listed, clock });
			Object.assign(chats, result.moved);
			collect(found, result.fresh, result.phone, filter);
			if (result.gone) failures.push(result.gone);
			read++;
		},
		{
			readBefore,
			isolate: (entry, error) => {
				if (!isolate || (read === 0 && failures.length + 1 === entries.length)) {
					throw pollError(context, error);
				}
				failures.push(chatUnreadable(context, entry, error));
			},
		},
	);
	const items = [...found.values()].sort((a, b) =>
		byTime(a.message as IDataObject, b.message as IDataObject),
	);
	return { items, state: { chats, ...(next ? { next: next.key } : {}) }, failures };
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

/** The Message Received event: new messages of the watched chats, oldest first. */
export async function pollMessageReceivedEvent(
	context: IPollFunctions,
): Promise<INodeExecutionData[][] | null> {
	const entries = triggerSetting(context, () =>
		watchEntries(context.getNodeParameter('chats', '')),
	);
	const filter = triggerSetting(context, () => messageFilter(context));
	const delivery = triggerSetting(context, () => deliverySettings(context));
	const refresh = async (messageId: string) => await freshLink(context, messageId);
	return await runPoll<MessageWatchState>(context, 'messageReceived', {
		baseline: async () => {
			// A person activating sees what is wrong with the list there and then; n8n starting or
			// changing its leader goes on with the chats it can read, naming the others.
			const person = activatedByPerson(context);
			const first = await pollMessages(context, entries, { chats: {} }, filter, {
				isolate: !person,
			});
			if (person && first.failures.length) throw first.failures[0];
			return new PartialBaseline(first.state, first.failures);
		},
		poll: async (state) => {
			// Files the last poll had no time for go first, with the whole of this poll's time.
			const first = await deliveredItems(context, state.pending ?? [], delivery, {
				freshLink: refresh,
				mustDeliverFirst: true,
				fetchFailsPoll: true,
			});
			if (first.undelivered.length) {
				return {
					items: first.output,
					state: { ...state, pending: first.undelivered },
				};
			}
			// Delivering them counts as having read something: the time may end before any chat.
			const polled = await pollMessages(context, entries, state, filter, {
				isolate: true,
				readBefore: (state.pending ?? []).length > 0,
			});
			const { released, held } = releaseHeld(
				polled.items,
				state.held ?? {},
				delivery.pauseSeconds,
				Date.now(),
			);
			const rest = await deliveredItems(context, released, delivery, {
				freshLink: refresh,
				fetchFailsPoll: true,
			});
			const kept = Object.keys(held).length ? { held } : {};
			const pending = rest.undelivered.length ? { pending: rest.undelivered } : {};
			return {
				items: new OutputItems([...first.output.items, ...rest.output.items]),
				state: { ...polled.state, ...kept, ...pending },
				failures: polled.failures,
			};
		},
		sample: async (state) => {
			const sample = await messageSample(context, entries, state, filter);
			return (await deliveredItems(context, sample.length ? [sample] : [], delivery)).output;
		},
	});
}
