import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listOptions, listRequest, returnAllOrLimit } from '../../../shared/descriptions';
import { apiRequestAllItems } from '../../../shared/pagination';
import { path } from '../../../shared/transport';
import { sortOption } from '../common';

const properties: INodeProperties[] = [...returnAllOrLimit(), listOptions(sortOption)];

export const description = updateDisplayOptions(
	{ show: { resource: ['agent'], operation: ['getAll'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	return await apiRequestAllItems.call(
		this,
		path`/voice/agents`,
		listRequest.call(this, itemIndex),
	);
}
