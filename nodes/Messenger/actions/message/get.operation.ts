import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionsCollection } from '../../../shared/descriptions';
import { downloadMediaOptions, mediaSettings, messageItems } from '../../../shared/mediaFiles';
import { OutputItems } from '../../../shared/router';
import { apiRequest, path } from '../../../shared/transport';
import { requireId } from '../../../shared/validation';
import { messageIdProperty } from '../common';

const properties: INodeProperties[] = [
	messageIdProperty,
	optionsCollection(downloadMediaOptions('message')),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['get'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<IDataObject | OutputItems> {
	const id = requireId(this.getNodeParameter('messageId', itemIndex), 'Message ID');
	const settings = mediaSettings(this.getNodeParameter('options', itemIndex, {}) as IDataObject);
	const message = (await apiRequest.call(this, 'GET', path`/messenger/messages/${id}`, {
		errorContext: { resource: 'Message', id },
	})) as IDataObject;
	if (!settings.download) return message;
	return new OutputItems(await messageItems(this, [message], settings, false));
}
