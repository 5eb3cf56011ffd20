import type { IDataObject } from 'n8n-workflow';

import { listPage, listPages, MAX_PAGE_SIZE } from '../../shared/pagination';
import type { RequestContext } from '../../shared/transport';
import { historyPath } from '../trigger/chatOfPhone';
import { isOldestFirst, messageTime } from '../trigger/messageCursor';
import type { Answering, ChatTurn } from './chatTurns';
import { conversation } from './chatTurns';

/**
 * Messages read beyond the window: a few may hold no words (a failed send) or come after the ones
 * answered, and one page should still give the whole window.
 */
const SPARE_MESSAGES = 5;

export interface HistoryRead {
	turns: ChatTurn[];
	/** Requests sent (for the docs' measurements and the tests). */
	requests: number;
	/** The messages read (of any chat the API put in), for answers kept outside the history. */
	messages?: IDataObject[];
	/** The oldest message's time when the read stopped before the chat's first message. */
	from?: string;
}

/** The oldest time among `messages` read. */
const oldestOf = (messages: IDataObject[]) =>
	messages.map((message) => messageTime(message)).sort()[0];

/**
 * The latest turns of a chat for the agent. The history comes newest first (docs/api.md, Chat
 * history): one page of the window's size is one request, a second page only when the first had
 * too few messages with words. Pages oldest first (an API that ignores `sort`) keep the newest
 * for last: the last pages are read directly when the answer says how many there are, else all.
 */
export async function readLatestTurns(
	context: RequestContext,
	chatId: string,
	answering: Answering,
	window: number,
): Promise<HistoryRead> {
	const request = {
		qs: { sort: 'desc' },
		pagesMayShift: true,
		errorContext: { resource: 'Chat', id: chatId },
		pageSize: Math.min(MAX_PAGE_SIZE, window + answering.ids.size + SPARE_MESSAGES),
	};
	const read: IDataObject[] = [];
	let requests = 0;
	const turns = () => conversation(read, chatId, answering, window);
	for await (const page of listPages.call(context, historyPath(chatId), request)) {
		requests++;
		read.push(...page.items);
		if (page.page === 1 && isOldestFirst(page.items) && page.nextPage !== undefined) {
			const lastPage = page.totalPages;
			if (lastPage === undefined || lastPage <= 1) continue;
			// Oldest first with a page count: the newest are on the last pages.
			read.length = 0;
			for (let number = lastPage; number >= 1 && turns().length < window; number--) {
				const older = await listPage.call(context, historyPath(chatId), {
					...request,
					firstPage: number,
				});
				requests++;
				read.push(...older.items);
				if (number === 1) return { turns: turns(), requests, messages: read };
			}
			return { turns: turns(), requests, messages: read, from: oldestOf(read) };
		}
		if (isOldestFirst(read)) continue;
		if (turns().length >= window && page.nextPage !== undefined) {
			return { turns: turns(), requests, messages: read, from: oldestOf(read) };
		}
	}
	return { turns: turns(), requests, messages: read };
}
