import type {
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { runPoll } from '../shared/poll';
import { idList, requireId } from '../shared/validation';
import type { BroadcastWatchState } from './trigger/broadcastStatus';
import {
	broadcastBaseline,
	broadcastSample,
	BROADCAST_STATUSES,
	pollBroadcastStatuses,
} from './trigger/broadcastStatus';

/** One GET per watched message and poll: keep a poll well under the API's 100 requests a minute. */
export const MAX_WATCHED_MESSAGES = 50;

export class MessengerTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messenger Trigger',
		name: 'messengerTrigger',
		icon: { light: 'file:messenger.svg', dark: 'file:messenger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["event"] }}',
		description:
			'WhatsApp messages, chats, contacts and broadcasts: start a workflow when a broadcast message changes status',
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
				],
			},
			{
				displayName: 'Broadcast Message IDs',
				name: 'messageIds',
				type: 'string',
				required: true,
				default: '',
				placeholder: 'e.g. bcm_1a2b3, bcm_4c5d6',
				description: `IDs separated by commas, spaces or new lines, or an expression giving an array of IDs (at most ${MAX_WATCHED_MESSAGES}). A message is no longer watched once it is read or failed.`,
			},
			{
				displayName: 'Only These Statuses',
				name: 'statuses',
				type: 'multiOptions',
				default: [],
				options: BROADCAST_STATUSES.map((status) => ({
					name: status.charAt(0).toUpperCase() + status.slice(1),
					value: status,
				})),
				description:
					'Fire only when a message reaches one of these statuses; none chosen means any status',
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const node = this.getNode();
		const raw = idList(this.getNodeParameter('messageIds', ''));
		if (raw.length === 0) {
			throw new NodeOperationError(node, 'Broadcast Message IDs is empty', {
				description: 'Enter the IDs that Messenger → Broadcast → Send returned.',
			});
		}
		if (raw.length > MAX_WATCHED_MESSAGES) {
			throw new NodeOperationError(
				node,
				`Broadcast Message IDs has ${raw.length} IDs; this trigger watches at most ${MAX_WATCHED_MESSAGES}`,
				{ description: 'Use Broadcast → Get Status on a schedule to follow more messages.' },
			);
		}
		const ids = [
			...new Set(
				raw.map((id, index) => requireId(node, id, `Broadcast Message ID ${index + 1}`, 0)),
			),
		];
		const statuses = (this.getNodeParameter('statuses', []) as string[]).map(String);
		return await runPoll<BroadcastWatchState>(this, 'broadcastStatusChanged', {
			baseline: async () => await broadcastBaseline(this, ids),
			poll: async (state) => {
				const { changes, state: next } = await pollBroadcastStatuses(this, ids, state);
				return {
					items: changes.filter(
						(change) => statuses.length === 0 || statuses.includes(change.status),
					),
					state: next,
				};
			},
			sample: async (state) => await broadcastSample(this, ids, state),
		});
	}
}
