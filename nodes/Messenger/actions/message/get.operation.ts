import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';
import { requireId } from '../../../shared/validation';
import { messageIdProperty } from '../common';

const properties: INodeProperties[] = [messageIdProperty];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['get'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = requireId(this.getNodeParameter('messageId', itemIndex), 'Message ID');
	return (await apiRequest.call(this, 'GET', path`/messenger/messages/${id}`, {
		errorContext: { resource: 'Message', id },
	})) as IDataObject;
}
