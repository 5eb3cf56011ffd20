import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';
import { requireId } from '../../../shared/validation';
import { contactLocator } from '../common';

const properties: INodeProperties[] = [contactLocator];

export const description = updateDisplayOptions(
	{ show: { resource: ['contact'], operation: ['get'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = requireId(
		this.getNode(),
		this.getNodeParameter('contactId', itemIndex, '', { extractValue: true }),
		'Contact',
		itemIndex,
	);
	return (await apiRequest.call(this, 'GET', path`/messenger/contacts/${id}`, {
		errorContext: { resource: 'Contact', id, itemIndex },
	})) as IDataObject;
}
