import type { INodeProperties } from 'n8n-workflow';

import * as getAll from './getAll.operation';

export { getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['whatsappNumber'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'List the WhatsApp numbers of the workspace, with the ID to send from a chosen number',
				action: 'Get many numbers',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
];
