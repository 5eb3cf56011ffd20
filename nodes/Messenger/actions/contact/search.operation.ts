import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listOptions, listRequest, returnAllOrLimit } from '../../../shared/descriptions';
import { apiRequestAllItems } from '../../../shared/pagination';
import { path } from '../../../shared/transport';
import { InputError } from '../../../shared/errors';
import { isPathSegment, requireText } from '../../../shared/validation';

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
	const term = requireText(this.getNodeParameter('customer', itemIndex), 'Search Term', {
		maxLength: 200,
	}).trim();
	// The term is one path segment (percent-encoded).
	if (!isPathSegment(term)) throw new InputError(`Search Term "${term}" cannot be searched for`);
	return await apiRequestAllItems.call(
		this,
		path`/messenger/contacts/search/${term}`,
		listRequest.call(this, itemIndex),
	);
}
