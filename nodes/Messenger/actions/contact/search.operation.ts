import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import {
	listOptions,
	extraQuery,
	listLimits,
	returnAllOrLimit,
} from '../../../shared/descriptions';
import { apiRequestAllItems, path } from '../../../shared/transport';
import { requireText } from '../../../shared/validation';

const properties: INodeProperties[] = [
	{
		displayName: 'Search Term',
		name: 'customer',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. garcia',
		description: 'Text found in the name, phone or email of the contacts',
	},
	...returnAllOrLimit(),
	listOptions(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['contact'], operation: ['search'] } },
	properties,
);

/** One output item per contact found. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const term = requireText(
		node,
		this.getNodeParameter('customer', itemIndex),
		'Search Term',
		itemIndex,
		{
			maxLength: 200,
		},
	).trim();
	// The term is one path segment (percent-encoded), and a bare dot segment would be resolved away.
	if (term === '.' || term === '..' || /\p{Cc}/u.test(term)) {
		throw new NodeOperationError(node, `Search Term "${term}" cannot be searched for`, {
			itemIndex,
		});
	}
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	return await apiRequestAllItems.call(this, path`/messenger/contacts/search/${term}`, {
		...listLimits.call(this, itemIndex),
		qs: extraQuery.call(this, options, itemIndex),
		errorContext: { itemIndex },
	});
}
