import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listOptions, listRequest, returnAllOrLimit } from '../../../shared/descriptions';
import { apiRequestAllItems } from '../../../shared/pagination';
import { path } from '../../../shared/transport';
import { campaignStatusOptions, sortOption } from '../common';

const properties: INodeProperties[] = [
	...returnAllOrLimit(),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				default: 'in_progress',
				description: 'Only campaigns in this status',
				options: campaignStatusOptions,
			},
		],
	},
	listOptions(sortOption),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['campaign'], operation: ['getAll'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const status = filters.status ? String(filters.status) : undefined;
	return await apiRequestAllItems.call(this, path`/voice/campaigns`, {
		...listRequest.call(this, itemIndex, status ? { status } : {}),
		// An API that ignores the filter costs more pages, never campaigns of another status.
		keep: status ? (campaign) => campaign.status === status : undefined,
	});
}
