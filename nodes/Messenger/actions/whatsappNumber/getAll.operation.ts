import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listOptions, listRequest, returnAllOrLimit } from '../../../shared/descriptions';
import { apiRequestAllItems } from '../../../shared/pagination';
import { path } from '../../../shared/transport';

const properties: INodeProperties[] = [...returnAllOrLimit(), listOptions()];

export const description = updateDisplayOptions(
	{ show: { resource: ['whatsappNumber'], operation: ['getAll'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	return await apiRequestAllItems.call(
		this,
		path`/messenger/messages/whatsapp-numbers`,
		listRequest.call(this, itemIndex),
	);
}
