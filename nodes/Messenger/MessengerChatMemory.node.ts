import type {
	INodeType,
	INodeTypeDescription,
	ISupplyDataFunctions,
	SupplyData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { optionsCollection } from '../shared/descriptions';
import { asNodeError } from '../shared/errors';
import { loadMemorySdk } from './memory/aiSdk';
import { messengerChatMemory, memorySettings } from './memory/chatMemory';
import { DEFAULT_MEMORY_WINDOW, MAX_MEMORY_WINDOW } from './memory/chatTurns';
import { KEPT_ANSWERS_ATTRIBUTE } from './memory/keptAnswers';

/**
 * Memory for n8n's AI Agent from the chat's own history in the API: no database, the same on
 * every worker and after a restart, and the whole conversation (the team's replies included).
 */
export class MessengerChatMemory implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messenger Chat Memory',
		name: 'messengerChatMemory',
		icon: { light: 'file:messenger.svg', dark: 'file:messenger.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["chat"] }}',
		description:
			"Give an AI Agent the WhatsApp chat's own history as its memory: the customer's messages and the team's replies, read from the API (n8n 2.x)",
		defaults: { name: 'Messenger Chat Memory' },
		codex: {
			categories: ['AI'],
			subcategories: { AI: ['Memory'], Memory: ['Other memories'] },
			resources: {
				primaryDocumentation: [
					{
						url: 'https://github.com/voice-messaging/n8n-nodes-voice-messaging#whatsapp-chatbot-with-memory',
					},
				],
			},
		},
		inputs: [],
		outputs: [NodeConnectionTypes.AiMemory],
		outputNames: ['Memory'],
		credentials: [{ name: 'voiceMessagingApi', required: true }],
		properties: [
			{
				displayName: 'Chat',
				name: 'chat',
				type: 'string',
				required: true,
				default: '={{ $json.chatId ?? $json.phone }}',
				placeholder: 'e.g. cht_9d3f1 or +34600123456',
				description:
					"The chat whose history the agent remembers: its ID, or a phone (its open chat). By default the chat of the Messenger trigger's message.",
			},
			optionsCollection([
				{
					displayName: 'Broadcast Answers',
					name: 'broadcastAnswers',
					type: 'options',
					default: 'contact',
					options: [
						{
							name: "In the Chat's History",
							value: 'chat',
							description:
								"The answers are sent in the chat (a file or a place), or this API shows Broadcast texts in the chat's history: one request an answer",
						},
						{
							name: 'Keep on the Contact',
							value: 'contact',
							description: `Keep each answer in the customer's contact (attribute ${KEPT_ANSWERS_ATTRIBUTE}) for the next turn: one more request to read it and one to write it. For answers sent as WhatsApp texts by Broadcast, which the API may not show in the chat's history.`,
						},
					],
					description:
						"Where the agent's own earlier answers are found on the next turn. Without a phone (a chat watched by its ID) the chat's history alone is read.",
				},
				{
					displayName: 'Context Window (Messages)',
					name: 'contextWindow',
					type: 'number',
					default: DEFAULT_MEMORY_WINDOW,
					typeOptions: { minValue: 1, maxValue: MAX_MEMORY_WINDOW },
					description:
						"How many of the chat's latest messages the agent sees, besides the ones it answers. Fewer keep each model request smaller.",
				},
				{
					displayName: 'Customer Phone',
					name: 'customerPhone',
					type: 'string',
					default: '',
					placeholder: 'e.g. +34600123456',
					description:
						"With Broadcast Answers: Keep on the Contact, the contact that keeps the answers. By default Chat when it is a phone, else the phone of the Messenger trigger's message. A phone with no contact gets one, named by its phone.",
				},
			]),
		],
	};

	async supplyData(this: ISupplyDataFunctions, itemIndex: number): Promise<SupplyData> {
		const sdk = await loadMemorySdk(this.getNode());
		let settings;
		try {
			settings = memorySettings(this, itemIndex);
		} catch (error) {
			throw asNodeError(this.getNode(), error, itemIndex);
		}
		return sdk.supplyMemory(this, messengerChatMemory(this, settings));
	}
}
