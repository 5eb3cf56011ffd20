import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { asNodeError } from '../../shared/errors';
import { listPages } from '../../shared/pagination';
import { runPoll, triggerSetting } from '../../shared/poll';
import { chatIdOf, historyPath, unlessChatMissing } from './chatOfPhone';
import type { ChatCursor } from './messageCursor';
import {
	advanceCursor,
	byTime,
	checkedMessage,
	isAfter,
	isOldestFirst,
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
): Promise<{ fresh: IDataObject[]; cursor: ChatCursor } | undefined> {
	// Pages may shift while they are read (a message arriving moves the others down): by ID, once.
	const read = new Map<string, IDataObject>();
	let boundary = cursor?.at;
	const found = await unlessChatMissing(context, async () => {
		let oldestFirst = false;
		for await (const page of listPages.call(context, historyPath(chatId), {
			qs: { sort: 'desc' },
			errorContext: { resource: 'Chat', id: chatId },
		})) {
			const items = page.items.map((message) => checkedMessage(message, filter));
			for (const message of items) read.set(String(message.id), message);
			// Pages oldest first (the API ignored `sort`) keep the newest for last: read them all.
			oldestFirst ||= isOldestFirst(items);
			if (oldestFirst) continue;
			boundary ??= newestTime(items);
			if (boundary === undefined || reachedOlder(items, boundary)) break;
		}
		return true;
	});
	if (!found) return undefined;
	const messages = [...read.values()];
	if (!cursor) return { fresh: [], cursor: advanceCursor({ at: '', ids: [] }, messages) };
	const fresh = messages.filter((message) => isAfter(cursor, message)).sort(byTime);
	return { fresh, cursor: advanceCursor(cursor, messages) };
}

/** One watched entry moved on by one poll: its new state and its new messages. */
export async function advanceEntry(
	context: IPollFunctions,
	entry: WatchEntry,
	watch: ChatWatch | undefined,
	now: string,
	filter: MessageFilter,
): Promise<{ watch: ChatWatch; fresh: IDataObject[] }> {
	if (watch?.missing) return { watch, fresh: [] };
	const chatId = await chatIdOf(context, entry, watch);
	// A phone without a chat yet: asked again next poll; its chat's messages from `at` on count.
	const waiting: ChatWatch = { at: watch?.at ?? now, ids: watch?.ids ?? [] };
	if (!chatId) return { watch: waiting, fresh: [] };
	// A phone matched just now starts at the time it began to be watched, not at a baseline.
	const cursor = watch ? { at: watch.at, ids: watch.ids, floor: watch.floor } : undefined;
	const read = await readChat(context, chatId, cursor, filter);
	if (!read) {
		context.logger.warn(
			entry.phone
				? `${context.getNode().name}: chat "${chatId}" of ${entry.phone} was not found; the phone is checked again at the next poll`
				: `${context.getNode().name}: chat "${chatId}" was not found; it is not watched`,
		);
		return { watch: entry.phone ? waiting : { at: '', ids: [], missing: true }, fresh: [] };
	}
	const next: ChatWatch = { ...read.cursor, ...(entry.phone ? { chatId } : {}) };
	return {
		watch: next,
		fresh: read.fresh.map((message) => ({ ...message, chatId: message.chatId ?? chatId })),
	};
}

/** Adds the wanted messages of one entry to `found`, by message ID (a chat listed twice by ID and by phone reports each message once, with the phone). */
function collect(
	found: Map<string, IDataObject>,
	fresh: IDataObject[],
	entry: WatchEntry,
	filter: MessageFilter,
): void {
	for (const message of fresh.filter((m) => wanted(filter, m))) {
		const known = found.get(String(message.id));
		if (!known || (known.phone === null && entry.phone)) {
			found.set(String(message.id), receivedMessage(message, entry.phone));
		}
	}
}

/**
 * One poll over every watched entry. Entries new to the state get a baseline of their own;
 * entries no longer listed leave it. With `isolate`, an entry that could not be read keeps its
 * state and is logged while the others move on (all failing fails the poll); without, the first
 * failure fails it (the first poll: activation shows the error).
 */
export async function pollMessages(
	context: IPollFunctions,
	entries: WatchEntry[],
	state: MessageWatchState,
	filter: MessageFilter,
	isolate: boolean,
): Promise<{ items: IDataObject[]; state: MessageWatchState }> {
	const now = new Date().toISOString();
	const chats: Record<string, ChatWatch> = {};
	const found = new Map<string, IDataObject>();
	const failed: string[] = [];
	for (const entry of entries) {
		const watch = state.chats[entry.key];
		try {
			const result = await advanceEntry(context, entry, watch, now, filter);
			chats[entry.key] = result.watch;
			collect(found, result.fresh, entry, filter);
		} catch (error) {
			if (!isolate || failed.length + 1 === entries.length) {
				throw asNodeError(context.getNode(), error);
			}
			failed.push(`chat ${entry.key}: ${(error as Error).message}`);
			if (watch) chats[entry.key] = watch;
		}
	}
	for (const failure of failed) {
		context.logger.warn(
			`${context.getNode().name}: ${failure}; it is read again at the next poll, nothing is lost`,
		);
	}
	const items = [...found.values()].sort((a, b) =>
		byTime(a.message as IDataObject, b.message as IDataObject),
	);
	return { items, state: { chats } };
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
	return await runPoll<MessageWatchState>(context, 'messageReceived', {
		baseline: async () =>
			(await pollMessages(context, entries, { chats: {} }, filter, false)).state,
		poll: async (state) => {
			const polled = await pollMessages(context, entries, state, filter, true);
			const { released, held } = releaseHeld(
				polled.items,
				state.held ?? {},
				delivery.pauseSeconds,
				Date.now(),
			);
			const items = await deliveredItems(context, released, delivery);
			const kept = Object.keys(held).length ? { held } : {};
			return { items, state: { ...polled.state, ...kept } };
		},
		sample: async (state) => {
			const sample = await messageSample(context, entries, state, filter);
			return await deliveredItems(context, sample.length ? [sample] : [], delivery);
		},
	});
}
