import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';
import { requireId } from '../../../shared/validation';
import { bodyOptions, captionOption, chatIdProperty, extraBody } from '../common';
import { mediaFileNameOption, mediaUrlBody, mediaUrlProperties } from './media';

const properties: INodeProperties[] = [
	chatIdProperty,
	...mediaUrlProperties,
	bodyOptions(captionOption, mediaFileNameOption),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['sendMedia'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const chatId = requireId(this.getNodeParameter('chatId', itemIndex), 'Chat ID');
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const body: IDataObject = { chatId, ...mediaUrlBody.call(this, itemIndex, options) };
	return (await apiRequest.call(this, 'POST', path`/messenger/messages/send/media`, {
		body: { ...body, ...extraBody(options) },
		errorContext: { resource: 'Chat', id: chatId },
	})) as IDataObject;
}
