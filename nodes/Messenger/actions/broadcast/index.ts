import type { INodeProperties } from 'n8n-workflow';

import * as getStatus from './getStatus.operation';
import { MAX_STATUS_IDS_PER_ITEM } from './messageIds';
import { MAX_BROADCAST_RECIPIENTS } from './recipients';
import * as send from './send.operation';

export { getStatus, send };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['broadcast'] } },
		options: [
			{
				name: 'Get Status',
				value: 'getStatus',
				description: `Get the delivery status of broadcast messages by ID (from Broadcast → Send), up to ${MAX_STATUS_IDS_PER_ITEM} IDs per item: one item per message`,
				action: 'Get the status of broadcast messages',
			},
			{
				name: 'Send',
				value: 'send',
				description: `Send a transactional message (template or text) by WhatsApp, SMS or email to up to ${MAX_BROADCAST_RECIPIENTS} recipients: one item per message, with the ID Broadcast → Get Status takes`,
				action: 'Send a broadcast',
			},
		],
		default: 'send',
	},
	...getStatus.description,
	...send.description,
];
