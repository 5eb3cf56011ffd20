import type { INodeProperties } from 'n8n-workflow';

import * as cancel from './cancel.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as getData from './getData.operation';

export { cancel, get, getAll, getData };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['campaign'] } },
		options: [
			{
				name: 'Cancel',
				value: 'cancel',
				description: 'Cancel a pending or in-progress campaign',
				action: 'Cancel a campaign',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get a mass-call campaign',
				action: 'Get a campaign',
			},
			{
				name: 'Get Data',
				value: 'getData',
				description: 'Get the numbers of a campaign and the result of each call',
				action: 'Get the call results of a campaign',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the campaigns of the workspace',
				action: 'Get many campaigns',
			},
		],
		default: 'get',
	},
	...cancel.description,
	...get.description,
	...getAll.description,
	...getData.description,
];
