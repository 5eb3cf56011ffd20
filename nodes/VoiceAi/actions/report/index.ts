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
				description:
					'Get the number of calls, answered calls, minutes and cost per day, week or month between two dates: one item per period',
				action: 'Get call trends',
			},
		],
		default: 'getCallTrends',
	},
	...getCallTrends.description,
];
