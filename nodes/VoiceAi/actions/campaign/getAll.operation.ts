import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	listOptions,
	extraQuery,
	listLimits,
	returnAllOrLimit,
} from '../../../shared/descriptions';
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
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const qs: IDataObject = { ...extraQuery(options) };
	if (filters.status) qs.status = filters.status;
	if (options.sort) qs.sort = options.sort;
	return await apiRequestAllItems.call(this, path`/voice/campaigns`, {
		...listLimits.call(this, itemIndex),
		qs,
	});
}
