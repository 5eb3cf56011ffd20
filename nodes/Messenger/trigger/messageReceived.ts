import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { ApiClock } from '../../shared/answerClock';
import { InputError } from '../../shared/errors';
import type { MediaLink } from '../../shared/download';
import { mediaLinkOf } from '../../shared/mediaFiles';
import {
	activatedByPerson,
	failsThePoll,
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
import { failuresTogether } from './chatFailures';
import { chatCursorOf, chatIdOf, chatMovedTo, entriesOfChat } from './chatOfPhone';
import type { ProgressBox } from './chatHistory';
import { readChat } from './chatHistory';
import type { ChatCursor } from './messageCursor';
import { byTime } from './messageCursor';
import type { HeldChat } from './messageDelivery';
import { deliveredItems, deliverySettings, releaseHeld } from './messageDelivery';
import type { MessageFilter, WatchEntry } from './messageSettings';
import { messageSample } from './messageSample';
import { messageFilter, receivedMessage, wanted, watchEntries } from './messageSettings';

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
 * `everyCause` (with `isolate`: the live trigger started by n8n): a chat whose read fails for any
 * cause (a 5xx, a 429, the network) is the chat's failure, named in `failures` and `failed`; only
 * when no chat was read and every failure was one every read would meet (the API down, the time
 * up) does the poll fail.
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
		everyCause = false,
	}: {
		isolate: boolean;
		readBefore?: boolean;
		clock?: ApiClock;
		listed?: WatchEntry[];
		everyCause?: boolean;
	},
): Promise<{
	items: IDataObject[];
	state: MessageWatchState;
	failures: unknown[];
	/** The keys of the entries whose read failed (with `isolate`). */
	failed: string[];
}> {
	const chats: Record<string, ChatWatch> = {};
	for (const entry of listed) {
		if (state.chats[entry.key]) chats[entry.key] = state.chats[entry.key];
	}
	const found = new Map<string, IDataObject>();
	const failures: unknown[] = [];
	const failed: string[] = [];
	const wide: unknown[] = [];
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
			everyCause: isolate && everyCause,
			isolate: (entry, error) => {
				const all = read === 0 && failures.length + 1 === entries.length;
				if (!isolate || (all && !everyCause)) throw pollError(context, error);
				if (failsThePoll(error)) wide.push(error);
				failures.push(chatUnreadable(context, entry, error));
				failed.push(entry.key);
			},
		},
	);
	// Nothing read, and only failures every read would meet: the API is down (or too slow).
	if (read === 0 && wide.length && wide.length === failures.length) {
		throw pollError(context, wide[0]);
	}
	const items = [...found.values()].sort((a, b) =>
		byTime(a.message as IDataObject, b.message as IDataObject),
	);
	return { items, state: { chats, ...(next ? { next: next.key } : {}) }, failures, failed };
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
			const together = failuresTogether(context, first.failures);
			return new PartialBaseline(first.state, together ? [together] : []);
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
