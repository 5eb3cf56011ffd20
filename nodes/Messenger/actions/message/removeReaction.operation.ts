import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';
import { requireId } from '../../../shared/validation';
import { messageIdProperty } from '../common';

const properties: INodeProperties[] = [
	{ ...messageIdProperty, description: 'The message whose reaction is removed' },
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['removeReaction'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = requireId(this.getNodeParameter('messageId', itemIndex), 'Message ID');
	return (await apiRequest.call(this, 'DELETE', path`/messenger/messages/${id}/react`, {
		errorContext: { resource: 'Message', id },
	})) as IDataObject;
}
