import type {
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { LIVE_SCHEDULE } from './trigger/liveSchedule';
import { startMessageLive } from './trigger/messageLive';
import { messageReceivedProperties } from './trigger/messageReceivedDescription';

const seconds = (ms: number) => ms / 1000;

/**
 * Message Received within seconds: a long-running trigger (n8n's Poll Times cannot go under a
 * minute) that reads chats in conversation every few seconds within a budget of requests.
 */
export class MessengerLiveTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messenger Live Trigger',
		name: 'messengerLiveTrigger',
		icon: { light: 'file:messenger.svg', dark: 'file:messenger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["event"] }}',
		description:
			"Start a workflow within seconds when a customer writes in a watched WhatsApp chat: for chatbots. Spends up to the credential's Live Trigger Requests per Minute",
		defaults: { name: 'Messenger Live Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'voiceMessagingApi', required: true }],
		properties: [
			{
				displayName: `Reads the chats you name without waiting for Poll Times: chats in conversation as often as every ${seconds(LIVE_SCHEDULE.activeGapMs)} s, quiet chats in turn, all within the credential's Live Trigger Requests per Minute (shared by every live trigger on it). Messenger Trigger's Message Received reads once a minute for fewer requests.`,
				name: 'liveNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				noDataExpression: true,
				default: 'messageReceived',
				options: [
					{
						name: 'Message Received',
						value: 'messageReceived',
						description:
							'A new message in one of the watched chats (by default: from the customer), within seconds',
					},
				],
			},
			...messageReceivedProperties.filter((property) => property.type !== 'notice'),
		],
	};

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		return await startMessageLive(this);
	}
}
