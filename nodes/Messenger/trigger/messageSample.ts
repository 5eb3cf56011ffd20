import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { listPages } from '../../shared/pagination';
import { chatIdOf, historyPath, unlessChatMissing } from './chatOfPhone';
import { byTime, checkedMessage, isOldestFirst, messageTime } from './messageCursor';
import type { MessageFilter, WatchEntry } from './messageSettings';
import { receivedMessage, wanted } from './messageSettings';

/** The newest messages of a chat: its first page, or every page when they come oldest first. */
async function newestMessages(
	context: IPollFunctions,
	chatId: string,
	filter: MessageFilter,
): Promise<IDataObject[]> {
	const messages: IDataObject[] = [];
	for await (const page of listPages.call(context, historyPath(chatId), { qs: { sort: 'desc' } })) {
		messages.push(...page.items.map((message) => checkedMessage(message, filter)));
		if (!isOldestFirst(page.items)) break;
	}
	return messages;
}

/** Fetch Test Event: the latest wanted message of the watched chats; nothing is recorded. */
export async function messageSample(
	context: IPollFunctions,
	entries: WatchEntry[],
	state: { chats: Record<string, { chatId?: string; missing?: unknown }> } | undefined,
	filter: MessageFilter,
): Promise<IDataObject[]> {
	let latest: IDataObject | undefined;
	for (const entry of entries) {
		const watch = state?.chats[entry.key];
		if (watch?.missing) continue;
		const chatId = await chatIdOf(context, entry, watch);
		if (!chatId) continue;
		const page = await unlessChatMissing(async () => await newestMessages(context, chatId, filter));
		if (!page) continue;
		const matches = page.filter((message) => wanted(filter, message)).sort(byTime);
		const match = matches[matches.length - 1];
		if (match && (!latest || messageTime(match) > messageTime(latest.message as IDataObject))) {
			latest = receivedMessage({ ...match, chatId: match.chatId ?? chatId }, entry.phone);
		}
	}
	return latest ? [latest] : [];
}
