import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';
import { normalizePhone } from '../../../shared/phone';
import {
	bodyOptions,
	captionOption,
	extraBody,
	phoneProperty,
	sendingNumber,
	whatsappNumberOption,
} from '../common';
import { mediaFileNameOption, mediaUrlBody, mediaUrlProperties } from './media';

const properties: INodeProperties[] = [
	phoneProperty('The recipient (their open chat is used, or a new chat is opened)'),
	...mediaUrlProperties,
	bodyOptions(captionOption, mediaFileNameOption, whatsappNumberOption),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['sendMediaToPhone'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const phone = normalizePhone(this.getNodeParameter('phone', itemIndex), 'Phone');
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const number = sendingNumber(options);
	const body: IDataObject = {
		phone,
		...mediaUrlBody.call(this, itemIndex, options),
		...number.body,
	};
	return (await apiRequest.call(this, 'POST', path`/messenger/messages/send/media-to-phone`, {
		body: { ...body, ...extraBody(options) },
		errorContext: number.errorContext,
	})) as IDataObject;
}
