import type { INodeProperties } from 'n8n-workflow';

import * as getBalance from './getBalance.operation';

export { getBalance };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['billing'] } },
		options: [
			{
				name: 'Get Balance',
				value: 'getBalance',
				description:
					'Get the balance of the workspace: available credit, currency, minutes of calls left and rate per minute',
				action: 'Get the balance',
			},
		],
		default: 'getBalance',
	},
	...getBalance.description,
];
