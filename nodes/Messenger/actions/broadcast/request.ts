import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { toListPage } from '../../../shared/pagination';
import { apiRequest, path } from '../../../shared/transport';
import { extraBody, sendingNumber } from '../common';
import type { BroadcastChannel } from './recipients';

/**
 * One transactional send (POST /messenger/broadcast/messages): the channel, checked recipients,
 * the content (`{ text }` or `{ templateId }`) and the sending number and Additional Body Fields
 * of an Options collection; the sending number applies to WhatsApp only. Answers one
 * BroadcastMessage per recipient.
 */
export async function sendBroadcast(
	this: IExecuteFunctions,
	channel: BroadcastChannel,
	recipients: IDataObject[],
	content: IDataObject,
	options: IDataObject,
): Promise<IDataObject[]> {
	const number = sendingNumber(channel === 'whatsapp' ? options : {});
	const body: IDataObject = { channel, recipients, ...content, ...number.body };
	const response = await apiRequest.call(this, 'POST', path`/messenger/broadcast/messages`, {
		body: { ...body, ...extraBody(options) },
		errorContext: number.errorContext,
	});
	return toListPage(response).items;
}
