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
				description:
					'Create a contact from a name and a phone in international format, with an optional email and attributes; a phone that has a contact already is refused',
				action: 'Create a contact',
			},
			{
				name: 'Get',
				value: 'get',
				description:
					'Get a contact by ID (from Contact → Search): its name, phone, email and attributes',
				action: 'Get a contact',
			},
			{
				name: 'Replace Attributes',
				value: 'replaceAttributes',
				description:
					'Replace all custom attributes of a contact (ID from Contact → Search) with a JSON object; attributes not in it are removed',
				action: 'Replace the attributes of a contact',
			},
			{
				name: 'Search',
				value: 'search',
				description:
					'Find the contacts whose name, phone or email contains a text: one item per contact with its ID and phone, up to Limit unless Return All is on',
				action: 'Search contacts',
			},
			{
				name: 'Update Attribute',
				value: 'updateAttribute',
				description:
					'Set one custom attribute of a contact (ID from Contact → Search) to a text or JSON value; the other attributes stay',
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
