import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listOptions, listRequest, returnAllOrLimit } from '../../../shared/descriptions';
import { apiRequestAllItems } from '../../../shared/pagination';
import { path } from '../../../shared/transport';
import { locatorId } from '../../../shared/validation';
import { campaignLocator } from '../common';

const properties: INodeProperties[] = [campaignLocator, ...returnAllOrLimit(), listOptions()];

export const description = updateDisplayOptions(
	{ show: { resource: ['campaign'], operation: ['getData'] } },
	properties,
);

/** One output item per number called by the campaign, with its result. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const id = locatorId.call(this, 'campaignId', 'Campaign', itemIndex);
	return await apiRequestAllItems.call(this, path`/voice/campaigns/${id}/data`, {
		...listRequest.call(this, itemIndex),
		errorContext: { resource: 'Campaign', id },
	});
}
