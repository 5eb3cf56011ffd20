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
				description:
					'Cancel a pending or in-progress campaign by ID (from Campaign → Get Many); a finished campaign cannot be cancelled',
				action: 'Cancel a campaign',
			},
			{
				name: 'Get',
				value: 'get',
				description:
					'Get one mass-call campaign by ID (from Campaign → Get Many): its name, status, agent and dates',
				action: 'Get a campaign',
			},
			{
				name: 'Get Data',
				value: 'getData',
				description:
					'Get the call result of each number of a campaign (ID from Campaign → Get Many): one item per number, up to Limit unless Return All is on',
				action: 'Get the call results of a campaign',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'List the campaigns of the workspace, newest first, optionally only those in one status: one item per campaign with its ID, up to Limit unless Return All is on',
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
