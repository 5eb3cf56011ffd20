import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';
import { normalizePhone, requireId } from '../../../shared/validation';
import {
	bodyOptions,
	captionOption,
	extraBody,
	phoneProperty,
	whatsappNumberOption,
} from '../common';
import { mediaFileNameOption, mediaUrlBody, mediaUrlProperties } from '../media';

const properties: INodeProperties[] = [
	phoneProperty(
		'Recipient in international format. Their open chat is used, or a new chat is opened.',
	),
	...mediaUrlProperties,
	bodyOptions(captionOption, mediaFileNameOption, whatsappNumberOption),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['sendMediaToPhone'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const node = this.getNode();
	const phone = normalizePhone(node, this.getNodeParameter('phone', itemIndex), 'Phone', itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const body: IDataObject = { phone, ...mediaUrlBody.call(this, itemIndex, options) };
	if (options.whatsappNumberId !== undefined && options.whatsappNumberId !== '') {
		body.whatsappNumberId = requireId(node, options.whatsappNumberId, 'WhatsApp Number', itemIndex);
	}
	return (await apiRequest.call(this, 'POST', path`/messenger/messages/send/media-to-phone`, {
		body: { ...body, ...extraBody.call(this, options, itemIndex) },
		// The chat is found or opened by phone, so a 404 can only be about the sending number.
		errorContext: body.whatsappNumberId
			? { resource: 'WhatsApp number', id: String(body.whatsappNumberId), itemIndex }
			: { itemIndex },
	})) as IDataObject;
}
