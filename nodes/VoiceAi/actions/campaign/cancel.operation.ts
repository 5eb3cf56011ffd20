import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';
import { locatorId } from '../../../shared/validation';
import { campaignLocator } from '../common';

const properties: INodeProperties[] = [
	{
		...campaignLocator,
		description: 'The campaign to cancel. Only a pending or in-progress campaign can be cancelled.',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['campaign'], operation: ['cancel'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = locatorId.call(this, 'campaignId', 'Campaign', itemIndex);
	return (await apiRequest.call(this, 'POST', path`/voice/campaigns/${id}/cancel`, {
		errorContext: {
			resource: 'Campaign',
			id,
			conflictMessage: `Campaign "${id}" is already finished (completed, cancelled or failed), so it cannot be cancelled (409).`,
		},
	})) as IDataObject;
}
