import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';
import { locatorId } from '../../../shared/validation';
import { agentLocator } from '../common';

const properties: INodeProperties[] = [agentLocator];

export const description = updateDisplayOptions(
	{ show: { resource: ['agent'], operation: ['get'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = locatorId.call(this, 'agentId', 'Agent', itemIndex);
	return (await apiRequest.call(this, 'GET', path`/voice/agents/${id}`, {
		errorContext: { resource: 'Agent', id },
	})) as IDataObject;
}
