import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { valueOptions } from '../shared/descriptions';
import { broadcastMessageIdsProperty } from './actions/broadcast/messageIds';
import {
	BROADCAST_STATUSES,
	MAX_WATCHED_MESSAGES,
	pollBroadcastStatusEvent,
} from './trigger/broadcastStatus';
import { pollMessageReceivedEvent } from './trigger/messagePoll';
import { messageReceivedProperties } from './trigger/messageReceivedDescription';

const broadcastOnly = { show: { event: ['broadcastStatusChanged'] } };

export class MessengerTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messenger Trigger',
		name: 'messengerTrigger',
		icon: { light: 'file:messenger.svg', dark: 'file:messenger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["event"] }}',
		description:
			'WhatsApp messages, chats, contacts and broadcasts: start a workflow when a customer writes or a broadcast message changes status',
		defaults: { name: 'Messenger Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'voiceMessagingApi', required: true }],
		properties: [
			{
				displayName:
					'The API has no webhooks and no list of broadcast messages, so this trigger watches the message IDs you give it, with one request per message at every poll. To follow many messages, store the IDs that Broadcast → Send returns (e.g. in a table) and run Broadcast → Get Status on a schedule instead.',
				name: 'pollingNotice',
				type: 'notice',
				default: '',
				displayOptions: broadcastOnly,
			},
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				noDataExpression: true,
				default: 'broadcastStatusChanged',
				options: [
					{
						name: 'Broadcast Message Status Changed',
						value: 'broadcastStatusChanged',
						description: 'A watched broadcast message moved to another status',
					},
					{
						name: 'Message Received',
						value: 'messageReceived',
						description:
							'A new message in one of the watched chats (by default: from the customer)',
					},
				],
			},
			{
				...broadcastMessageIdsProperty(
					`At most ${MAX_WATCHED_MESSAGES}. A message is no longer watched once it is read or failed`,
				),
				displayOptions: broadcastOnly,
			},
			{
				displayName: 'Only These Statuses',
				name: 'statuses',
				type: 'multiOptions',
				default: [],
				options: valueOptions(BROADCAST_STATUSES),
				description:
					'Fire only when a message reaches one of these statuses; none chosen means any status',
				displayOptions: broadcastOnly,
			},
			...messageReceivedProperties,
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const event = this.getNodeParameter('event') as string;
		if (event === 'broadcastStatusChanged') return await pollBroadcastStatusEvent(this);
		if (event === 'messageReceived') return await pollMessageReceivedEvent(this);
		throw new NodeOperationError(this.getNode(), `Unknown event "${event}"`);
	}
}
