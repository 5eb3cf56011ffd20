import type { IDataObject, IPollFunctions, ISupplyDataFunctions } from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { asNodeError } from '../../shared/errors';
import { isPhoneEntry, normalizePhone } from '../../shared/phone';
import { requireId, requireNumberInRange } from '../../shared/validation';
import { chatOfPhone } from '../trigger/chatOfPhone';
import type { SdkChatHistory, SdkChatMemory } from './aiSdk';
import type { ChatTurn } from './chatTurns';
import { answeringOf, DEFAULT_MEMORY_WINDOW, MAX_MEMORY_WINDOW } from './chatTurns';
import type { HistoryRead } from './historyRead';
import { readLatestTurns } from './historyRead';

/** The memory's settings for one item: the chat (an ID or a phone) and the window. */
export interface MemorySettings {
	chat: string;
	window: number;
	/** The item the agent answers (the trigger's), to leave its messages to the prompt. */
	item?: IDataObject;
}

/**
 * The item the agent answers, as the memory's expressions see it (`$json`): a sub-node's own input
 * (`getInputData()`) is its connection to the agent, which carries no items.
 */
function answeredItem(context: ISupplyDataFunctions, itemIndex: number): IDataObject | undefined {
	const proxy =
		typeof context.getWorkflowDataProxy === 'function'
			? context.getWorkflowDataProxy(itemIndex)
			: undefined;
	const json = proxy?.$json as unknown;
	if (json && typeof json === 'object' && !Array.isArray(json)) return json as IDataObject;
	return context.getInputData(0, NodeConnectionTypes.Main)?.[itemIndex]?.json;
}

/** The settings of item `itemIndex`, checked (bad input names the field). */
export function memorySettings(context: ISupplyDataFunctions, itemIndex: number): MemorySettings {
	const chat = String(context.getNodeParameter('chat', itemIndex, '') ?? '').trim();
	const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const window = requireNumberInRange(
		options.contextWindow ?? DEFAULT_MEMORY_WINDOW,
		'Context Window (Messages)',
		1,
		MAX_MEMORY_WINDOW,
	);
	return {
		chat: isPhoneEntry(chat) ? normalizePhone(chat, 'Chat') : requireId(chat, 'Chat'),
		window,
		item: answeredItem(context, itemIndex),
	};
}

/**
 * A failed read as an error naming the chat: the agent must not answer as if the chat were new.
 * The API's own error keeps its type and description; its message gains the chat.
 */
function failedRead(context: ISupplyDataFunctions, chat: string, error: unknown): Error {
	const shown = asNodeError(context.getNode(), error);
	const said = shown.message;
	if (shown instanceof NodeApiError || shown instanceof NodeOperationError) {
		shown.message = `The history of chat ${chat} could not be read: ${said}`;
	}
	return shown;
}

/** The chat's latest turns: the chat of a phone is its open chat now (none: a new conversation). */
export async function latestTurns(
	context: ISupplyDataFunctions,
	settings: MemorySettings,
): Promise<HistoryRead> {
	try {
		let chatId = settings.chat;
		let requests = 0;
		if (isPhoneEntry(chatId)) {
			// Check Existing reads through the same transport; its context type is the poll's.
			const found = await chatOfPhone(context as unknown as IPollFunctions, chatId);
			requests++;
			if (found === undefined) return { turns: [], requests };
			chatId = found;
		}
		const answering = answeringOf(settings.item, chatId);
		const read = await readLatestTurns(context, chatId, answering, settings.window);
		return { turns: read.turns, requests: read.requests + requests };
	} catch (error) {
		throw failedRead(context, settings.chat, error);
	}
}

/**
 * The chat's history as n8n's AI SDK reads it. The API keeps the conversation: what the workflow
 * sends is in the chat's history for the next turn, so nothing is written here (and nothing is
 * kept in the process, so every worker and every restart sees the same chat).
 */
class MessengerChatHistory implements SdkChatHistory {
	constructor(private readonly read: () => Promise<ChatTurn[]>) {}

	async getMessages(): Promise<ChatTurn[]> {
		return await this.read();
	}

	async addMessage(): Promise<void> {}

	async addMessages(): Promise<void> {}

	async clear(): Promise<void> {}
}

/**
 * The memory the agent gets for one item: the chat's latest turns, read once when the agent first
 * asks and then reused (n8n reads the history again after each turn to show it in the run data:
 * no second request for it). A failed read is tried again at the next ask.
 */
export function messengerChatMemory(
	context: ISupplyDataFunctions,
	settings: MemorySettings,
): SdkChatMemory {
	let read: Promise<ChatTurn[]> | undefined;
	const load = async () => {
		read ??= latestTurns(context, settings).then(
			(found) => found.turns,
			(error: unknown) => {
				read = undefined;
				throw error;
			},
		);
		return [...(await read)];
	};
	return {
		chatHistory: new MessengerChatHistory(load),
		loadMessages: load,
		saveTurn: async () => {},
		clear: async () => {},
	};
}
