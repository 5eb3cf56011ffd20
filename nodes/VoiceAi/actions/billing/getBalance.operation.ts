import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';

const properties: INodeProperties[] = [];

export const description = updateDisplayOptions(
	{ show: { resource: ['billing'], operation: ['getBalance'] } },
	properties,
);

export async function execute(this: IExecuteFunctions): Promise<IDataObject> {
	return (await apiRequest.call(this, 'GET', path`/voice/billing/balance`, {})) as IDataObject;
}
