import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';
import { locatorId } from '../../../shared/validation';
import { campaignLocator } from '../common';

const properties: INodeProperties[] = [campaignLocator];

export const description = updateDisplayOptions(
	{ show: { resource: ['campaign'], operation: ['get'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = locatorId.call(this, 'campaignId', 'Campaign', itemIndex);
	return (await apiRequest.call(this, 'GET', path`/voice/campaigns/${id}`, {
		errorContext: { resource: 'Campaign', id },
	})) as IDataObject;
}
