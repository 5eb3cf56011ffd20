import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as get from './get.operation';
import * as replaceAttributes from './replaceAttributes.operation';
import * as search from './search.operation';
import * as updateAttribute from './updateAttribute.operation';

export { create, get, replaceAttributes, search, updateAttribute };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['contact'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Create a contact',
				action: 'Create a contact',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get a contact by ID',
				action: 'Get a contact',
			},
			{
				name: 'Replace Attributes',
				value: 'replaceAttributes',
				description: 'Replace all custom attributes of a contact',
				action: 'Replace the attributes of a contact',
			},
			{
				name: 'Search',
				value: 'search',
				description: 'Find contacts by name, phone or email',
				action: 'Search contacts',
			},
			{
				name: 'Update Attribute',
				value: 'updateAttribute',
				description: 'Set one custom attribute of a contact',
				action: 'Update an attribute of a contact',
			},
		],
		default: 'get',
	},
	...create.description,
	...get.description,
	...replaceAttributes.description,
	...search.description,
	...updateAttribute.description,
];
