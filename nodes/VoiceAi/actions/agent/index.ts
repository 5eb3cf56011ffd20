import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';
import * as getAll from './getAll.operation';

export { get, getAll };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['agent'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description:
					'Get one AI voice agent by ID (from Agent → Get Many): its name, status and provider',
				action: 'Get an agent',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'List the AI voice agents of the workspace, newest first: one item per agent with its ID, up to Limit unless Return All is on',
				action: 'Get many agents',
			},
		],
		default: 'get',
	},
	...get.description,
	...getAll.description,
];
