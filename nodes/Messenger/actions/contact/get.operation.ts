import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';
import { locatorId } from '../../../shared/validation';
import { contactLocator } from '../common';

const properties: INodeProperties[] = [contactLocator];

export const description = updateDisplayOptions(
	{ show: { resource: ['contact'], operation: ['get'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = locatorId.call(this, 'contactId', 'Contact', itemIndex);
	return (await apiRequest.call(this, 'GET', path`/messenger/contacts/${id}`, {
		errorContext: { resource: 'Contact', id },
	})) as IDataObject;
}
