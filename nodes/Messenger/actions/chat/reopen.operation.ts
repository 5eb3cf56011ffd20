import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';
import { requireId } from '../../../shared/validation';
import { chatIdProperty } from '../common';

const properties: INodeProperties[] = [
	{ ...chatIdProperty, description: 'The closed chat to reopen' },
];

export const description = updateDisplayOptions(
	{ show: { resource: ['chat'], operation: ['reopen'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const chatId = requireId(this.getNodeParameter('chatId', itemIndex), 'Chat ID');
	return (await apiRequest.call(this, 'PATCH', path`/messenger/chats/${chatId}/reopen`, {
		errorContext: {
			resource: 'Chat',
			id: chatId,
			conflictMessage: `Chat "${chatId}" is already open, so it cannot be reopened (409).`,
		},
	})) as IDataObject;
}
