import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listOptions, extraQuery } from '../../../shared/descriptions';
import { apiRequest, path } from '../../../shared/transport';
import { normalizePhone } from '../../../shared/phone';
import { phoneProperty } from '../common';

const properties: INodeProperties[] = [phoneProperty('Phone number of the contact'), listOptions()];

export const description = updateDisplayOptions(
	{ show: { resource: ['chat'], operation: ['checkExisting'] } },
	properties,
);

/** Whether the phone has an active chat: `{ exists, chatId }`. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const phone = normalizePhone(this.getNodeParameter('phone', itemIndex), 'Phone');
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	return (await apiRequest.call(this, 'GET', path`/messenger/chats/check-existing`, {
		qs: { ...extraQuery(options), phone },
	})) as IDataObject;
}
