import type { INodeProperties } from 'n8n-workflow';

import * as getCallTrends from './getCallTrends.operation';

export { getCallTrends };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['report'] } },
		options: [
			{
				name: 'Get Call Trends',
				value: 'getCallTrends',
				description: 'Get calls, answered calls, minutes and cost per period',
				action: 'Get call trends',
			},
		],
		default: 'getCallTrends',
	},
	...getCallTrends.description,
];
