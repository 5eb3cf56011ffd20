import type { INodeProperties } from 'n8n-workflow';

import * as getStatus from './getStatus.operation';
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
				description: 'Get the delivery status of broadcast messages',
				action: 'Get the status of broadcast messages',
			},
			{
				name: 'Send',
				value: 'send',
				description:
					'Send a transactional message by WhatsApp, SMS or email to up to 1000 recipients',
				action: 'Send a broadcast',
			},
		],
		default: 'send',
	},
	...getStatus.description,
	...send.description,
];
