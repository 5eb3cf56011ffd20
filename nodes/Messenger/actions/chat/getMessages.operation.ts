import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	additionalQueryParameters,
	listRequest,
	optionsCollection,
	returnAllOrLimit,
	sortOrderOption,
} from '../../../shared/descriptions';
import { downloadMediaOptions, mediaSettings, messageItems } from '../../../shared/mediaFiles';
import { apiRequestAllItems } from '../../../shared/pagination';
import { OutputItems } from '../../../shared/router';
import { path } from '../../../shared/transport';
import { requireId } from '../../../shared/validation';
import { chatIdProperty } from '../common';

const properties: INodeProperties[] = [
	chatIdProperty,
	...returnAllOrLimit(),
	optionsCollection([
		additionalQueryParameters,
		sortOrderOption('Order by the time the message was sent or received'),
		...downloadMediaOptions('message'),
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['chat'], operation: ['getMessages'] } },
	properties,
);

/**
 * One output item per message of the chat. With Download Media, each media message carries its
 * file; one that cannot be downloaded carries `mediaError` instead, so the list is still whole.
 */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<IDataObject[] | OutputItems> {
	const chatId = requireId(this.getNodeParameter('chatId', itemIndex), 'Chat ID');
	const settings = mediaSettings(this.getNodeParameter('options', itemIndex, {}) as IDataObject);
	const messages = await apiRequestAllItems.call(this, path`/messenger/messages/chat/${chatId}`, {
		...listRequest.call(this, itemIndex),
		errorContext: { resource: 'Chat', id: chatId },
	});
	if (!settings.download) return messages;
	return new OutputItems(await messageItems(this, messages, settings, true));
}
