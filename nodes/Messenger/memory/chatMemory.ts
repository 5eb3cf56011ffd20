import type { IDataObject, IPollFunctions, ISupplyDataFunctions } from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { asNodeError } from '../../shared/errors';
import { isPhoneEntry, normalizePhone } from '../../shared/phone';
import { requireId, requireNumberInRange, requireOneOf } from '../../shared/validation';
import { chatOfPhone } from '../trigger/chatOfPhone';
import type { SdkChatHistory, SdkChatMemory } from './aiSdk';
import type { Answering, ChatTurn } from './chatTurns';
import {
	answerAnchor,
	answeringOf,
	conversation,
	DEFAULT_MEMORY_WINDOW,
	MAX_MEMORY_WINDOW,
} from './chatTurns';
import type { HistoryRead } from './historyRead';
import { readLatestTurns } from './historyRead';
import type { KeptAnswer, KeptOnContact } from './keptAnswers';
import { keepAnswer, readKeptAnswers } from './keptAnswers';

/** Where the agent's answers sent by Broadcast are for the next turn (docs/api.md). */
export type BroadcastAnswers = 'contact' | 'chat';

/** The memory's settings for one item: the chat (an ID or a phone) and the window. */
export interface MemorySettings {
	chat: string;
	window: number;
	/** The item the agent answers (the trigger's), to leave its messages to the prompt. */
	item?: IDataObject;
	/** The customer's phone, whose contact keeps the answers (`broadcastAnswers: 'contact'`). */
	keepOn?: string;
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
	const item = answeredItem(context, itemIndex);
	const settings: MemorySettings = {
		chat: isPhoneEntry(chat) ? normalizePhone(chat, 'Chat') : requireId(chat, 'Chat'),
		window,
		item,
	};
	const answers = requireOneOf<BroadcastAnswers>(
		options.broadcastAnswers ?? 'contact',
		'Broadcast Answers',
		['contact', 'chat'],
	);
	if (answers === 'chat') return settings;
	const phone = String(options.customerPhone ?? '').trim();
	if (phone) return { ...settings, keepOn: normalizePhone(phone, 'Customer Phone') };
	if (isPhoneEntry(settings.chat)) return { ...settings, keepOn: settings.chat };
	// No phone (a chat watched by its ID): a Broadcast needs one, so the answers are sent in the chat.
	return isPhoneEntry(item?.phone)
		? { ...settings, keepOn: normalizePhone(item?.phone, 'phone') }
		: settings;
}

/**
 * A failed request as an error naming what it was for (`what`): the agent must not answer as if
 * the chat were new. The API's own error keeps its type and description; its message gains `what`.
 */
function failed(context: ISupplyDataFunctions, what: string, error: unknown): Error {
	const shown = asNodeError(context.getNode(), error);
	const said = shown.message;
	if (shown instanceof NodeApiError || shown instanceof NodeOperationError) {
		shown.message = `${what}: ${said}`;
	}
	return shown;
}

/** What the memory read for one answer: the turns, and where the answer goes when it is kept. */
export interface MemoryRead extends HistoryRead {
	/** The chat's ID (none: a phone with no chat yet). */
	chatId?: string;
	/** The place of the answer in the chat (see answerAnchor). */
	anchor: Pick<KeptAnswer, 'after' | 'afterId'>;
	/** The contact that keeps the answers (`keepOn`), as read. */
	contact?: KeptOnContact;
}

/** The answers kept on the contact of `phone`, read beside the history. */
async function keptOn(context: ISupplyDataFunctions, phone: string): Promise<KeptOnContact> {
	try {
		return await readKeptAnswers(context, phone);
	} catch (error) {
		throw failed(context, `The answers kept on the contact of ${phone} could not be read`, error);
	}
}

/**
 * The chat's latest turns: the chat of a phone is its open chat now (none: a new conversation).
 * Answers kept on the contact are read at the same time as the history (one more request).
 */
export async function latestTurns(
	context: ISupplyDataFunctions,
	settings: MemorySettings,
): Promise<MemoryRead> {
	const contact = settings.keepOn ? keptOn(context, settings.keepOn) : undefined;
	// Settled here too, so that a failed history read leaves no rejection unhandled.
	contact?.catch(() => undefined);
	let chatId = settings.chat;
	let requests = contact ? 1 : 0;
	let read: HistoryRead;
	let answering: Answering;
	try {
		if (isPhoneEntry(chatId)) {
			// Check Existing reads through the same transport; its context type is the poll's.
			const found = await chatOfPhone(context as unknown as IPollFunctions, chatId);
			requests++;
			if (found === undefined) {
				return { turns: [], requests, anchor: { after: '' }, contact: await contact };
			}
			chatId = found;
		}
		answering = answeringOf(settings.item, chatId);
		read = await readLatestTurns(context, chatId, answering, settings.window);
	} catch (error) {
		throw failed(context, `The history of chat ${settings.chat} could not be read`, error);
	}
	const messages = read.messages ?? [];
	const kept = await contact;
	return {
		turns: kept
			? conversation(messages, chatId, answering, settings.window, kept.answers, read.from)
			: read.turns,
		requests: read.requests + requests,
		chatId,
		anchor: answerAnchor(messages, chatId, answering),
		contact: kept,
	};
}

/**
 * The chat's history as n8n's AI SDK reads it. The API keeps the conversation: what the workflow
 * sends in the chat is in its history for the next turn; answers sent by Broadcast are kept on the
 * contact by the memory's saveTurn. Nothing is kept in the process, so every worker and every
 * restart sees the same chat.
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
 * no second request for it). A failed read is tried again at the next ask. With a phone to keep
 * answers on, the agent's answer is kept on its contact (one request), placed after the messages
 * it answered.
 */
export function messengerChatMemory(
	context: ISupplyDataFunctions,
	settings: MemorySettings,
): SdkChatMemory {
	let read: Promise<MemoryRead> | undefined;
	const memoryRead = async () => {
		read ??= latestTurns(context, settings).catch((error: unknown) => {
			read = undefined;
			throw error;
		});
		return await read;
	};
	const load = async () => [...(await memoryRead()).turns];
	const saveTurn = async (_input: string, output: string) => {
		const phone = settings.keepOn;
		const text = output.trim();
		if (!phone || !text) return;
		const found = await memoryRead();
		const answer = { chatId: found.chatId ?? phone, ...found.anchor, text };
		try {
			await keepAnswer(context, phone, found.contact ?? { answers: [] }, answer);
		} catch (error) {
			throw failed(context, `The answer could not be kept on the contact of ${phone}`, error);
		}
	};
	return {
		chatHistory: new MessengerChatHistory(load),
		loadMessages: load,
		saveTurn,
		clear: async () => {},
	};
}
