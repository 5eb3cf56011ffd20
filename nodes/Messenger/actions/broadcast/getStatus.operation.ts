import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';
import {
	broadcastMessageIds,
	broadcastMessageIdsProperty,
	MAX_STATUS_IDS_PER_ITEM,
} from './messageIds';

const properties: INodeProperties[] = [broadcastMessageIdsProperty('One output item per ID')];

export const description = updateDisplayOptions(
	{ show: { resource: ['broadcast'], operation: ['getStatus'] } },
	properties,
);

/** The status of each broadcast message: one request and one output item per ID. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const ids = broadcastMessageIds(
		this.getNodeParameter('messageIds', itemIndex, ''),
		MAX_STATUS_IDS_PER_ITEM,
		'Split the IDs over several items, e.g. one item per ID.',
	);
	const statuses: IDataObject[] = [];
	for (const id of ids) {
		statuses.push(
			(await apiRequest.call(this, 'GET', path`/messenger/broadcast/messages/${id}`, {
				errorContext: { resource: 'Broadcast message', id },
			})) as IDataObject,
		);
	}
	return statuses;
}
