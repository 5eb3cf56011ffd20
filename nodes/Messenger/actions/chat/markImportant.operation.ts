import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { InputError } from '../../../shared/errors';

import { apiRequest, path } from '../../../shared/transport';
import { requireId } from '../../../shared/validation';
import { bodyOptions, chatIdProperty, extraBody } from '../common';

const properties: INodeProperties[] = [
	chatIdProperty,
	{
		displayName: 'Important',
		name: 'important',
		type: 'boolean',
		default: true,
		description: 'Whether to mark the chat as important; turn off to remove the mark',
	},
	bodyOptions(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['chat'], operation: ['markImportant'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const chatId = requireId(this.getNodeParameter('chatId', itemIndex), 'Chat ID');
	const important = this.getNodeParameter('important', itemIndex, true);
	if (typeof important !== 'boolean') {
		throw new InputError(`Important must be true or false, got "${String(important)}"`);
	}
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	return (await apiRequest.call(this, 'PATCH', path`/messenger/chats/${chatId}/mark-important`, {
		body: { important, ...extraBody(options) },
		errorContext: { resource: 'Chat', id: chatId },
	})) as IDataObject;
}
