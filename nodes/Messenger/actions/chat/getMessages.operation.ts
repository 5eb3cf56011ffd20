import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	additionalQueryParameters,
	listRequest,
	optionsCollection,
	returnAllOrLimit,
	sortOrderOption,
} from '../../../shared/descriptions';
import { apiRequestAllItems } from '../../../shared/pagination';
import { path } from '../../../shared/transport';
import { requireId } from '../../../shared/validation';
import { chatIdProperty } from '../common';

const properties: INodeProperties[] = [
	chatIdProperty,
	...returnAllOrLimit(),
	optionsCollection([
		additionalQueryParameters,
		sortOrderOption('Order by the time the message was sent or received'),
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['chat'], operation: ['getMessages'] } },
	properties,
);

/** One output item per message of the chat. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const chatId = requireId(this.getNodeParameter('chatId', itemIndex), 'Chat ID');
	return await apiRequestAllItems.call(this, path`/messenger/messages/chat/${chatId}`, {
		...listRequest.call(this, itemIndex),
		errorContext: { resource: 'Chat', id: chatId },
	});
}
