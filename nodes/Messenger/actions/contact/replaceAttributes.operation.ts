import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';
import { locatorId, parseJsonObject } from '../../../shared/validation';
import { bodyOptions, contactLocator, extraBody } from '../common';

const properties: INodeProperties[] = [
	contactLocator,
	{
		displayName: 'Attributes (JSON)',
		name: 'attributes',
		type: 'json',
		required: true,
		default: '{}',
		description:
			'All attributes of the contact as a JSON object, e.g. {"plan": "gold", "city": "Madrid"}. Attributes not listed are removed.',
	},
	bodyOptions(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['contact'], operation: ['replaceAttributes'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = locatorId.call(this, 'contactId', 'Contact', itemIndex);
	const attributes = parseJsonObject(
		this.getNodeParameter('attributes', itemIndex, '{}'),
		'Attributes (JSON)',
	);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	return (await apiRequest.call(this, 'PUT', path`/messenger/contacts/${id}/attributes`, {
		body: { attributes, ...extraBody(options) },
		errorContext: { resource: 'Contact', id },
	})) as IDataObject;
}
