import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { listPages } from '../../shared/pagination';
import { PollTimeUp } from '../../shared/pollClock';
import { historyPath, unlessChatMissing } from './chatOfPhone';
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
	showsOrder,
} from './messageCursor';
import type { MessageFilter } from './messageSettings';

/**
 * Where a read of a chat's history stopped when its time ran out, for the next read of the chat
 * to go on from (with the same cursor): a history longer than one read's time (pages oldest
 * first, or a great many new messages) is read over several reads instead of never to its end.
 * Kept in memory by the reader (the live loop); `pages`: pages read so far.
 */
export interface ReadProgress {
	chatId: string;
	cursor: ChatCursor;
	pages: number;
	next: { page: number; query?: IDataObject };
	read: Map<string, IDataObject>;
	behind: ArrivalsBehind;
	oldestFirst: boolean;
	ordered: boolean;
	boundary?: string;
}

/** A chat's read progress between reads (empty: the next read starts at the first page). */
export interface ProgressBox {
	progress?: ReadProgress;
}

/** Whether `progress` was made reading `chatId` after `cursor`, so that a read may go on from it. */
function goesOn(
	progress: ReadProgress | undefined,
	chatId: string,
	cursor: ChatCursor | undefined,
) {
	return progress !== undefined &&
		cursor !== undefined &&
		progress.chatId === chatId &&
		progress.cursor.at === cursor.at &&
		progress.cursor.ids.join() === cursor.ids.join()
		? progress
		: undefined;
}

/**
 * The messages of a chat after `cursor`, oldest first, and the cursor after them; without a
 * cursor, a baseline (the newest messages are recorded, none is new). Pages come newest first
 * and are followed until one reaches messages older than the cursor, once the read knows their
 * order (below); pages oldest first are read to the end. Undefined: the chat is gone.
 * With `box`, a read cut off by its time leaves its progress there and the next goes on from it.
 * `answerDate`: told each answer's Date (the API's clock, shared/answerClock.ts).
 */
export async function readChat(
	context: IPollFunctions,
	chatId: string,
	cursor: ChatCursor | undefined,
	filter: MessageFilter,
	box?: ProgressBox,
	answerDate?: (second: number) => void,
): Promise<{ fresh: IDataObject[]; cursor: ChatCursor } | undefined> {
	const resumed = goesOn(box?.progress, chatId, cursor);
	if (box) box.progress = undefined;
	// Pages shift while they are read (a message arriving moves the others down, so that a page
	// may hold only messages read already): by ID, once, and a page of repeats does not end the read.
	const read = resumed?.read ?? new Map<string, IDataObject>();
	const behind = resumed?.behind ?? new ArrivalsBehind();
	let boundary = resumed ? resumed.boundary : cursor?.at;
	let oldestFirst = resumed?.oldestFirst ?? false;
	// Whether the read knows the pages' order: from a page that shows it, or from a cursor at
	// messages read (newest first, the first page holds them or newer; older, it is oldest first).
	// Else (a first read, a chat never read: its cursor is a time) pages too small to show it may
	// be oldest first with late messages (a createdAt older than messages already there) shifted in
	// between, looking newest first: such a read goes on to the last page, missing nothing.
	let ordered = resumed?.ordered ?? (cursor !== undefined && cursor.ids.length > 0);
	let pages = resumed?.pages ?? 0;
	let next = resumed?.next ?? { page: 1 };
	const found = await unlessChatMissing(async () => {
		let first = !resumed;
		let failed: unknown;
		try {
			for await (const page of listPages.call(context, historyPath(chatId), {
				qs: { sort: 'desc' },
				pagesMayShift: true,
				firstPage: next.page,
				startQuery: next.query,
				errorContext: { resource: 'Chat', id: chatId },
				answerDate,
			})) {
				const items = page.items.map((message) => checkedMessage(message, filter));
				behind.note(items, read);
				for (const message of items) read.set(String(message.id), message);
				pages++;
				if (page.nextPage !== undefined) next = { page: page.nextPage, query: page.nextQuery };
				// Pages oldest first (the API ignored `sort`) keep the newest for last: read them all.
				// A page too small to show its order tells it too when it is the first and older than
				// the cursor's messages (newest first, it would hold the newest message there is).
				oldestFirst ||= isOldestFirst(items) || (first && startsBefore(items, cursor));
				ordered ||= showsOrder(items);
				first = false;
				if (oldestFirst) continue;
				boundary ??= newestTime(items);
				if (boundary === undefined || (ordered && reachedOlder(items, boundary))) break;
			}
		} catch (error) {
			failed = error;
		}
		if (failed === undefined) return true;
		if (box && cursor && failed instanceof PollTimeUp && pages > 0) {
			// Messages older than the cursor are no longer needed: what is kept stays small.
			const kept = new Map([...read].filter(([, message]) => messageTime(message) >= cursor.at));
			const order = { oldestFirst, ordered, boundary };
			box.progress = { chatId, cursor, pages, next, read: kept, behind, ...order };
		}
		throw failed;
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
export class ArrivalsBehind {
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
