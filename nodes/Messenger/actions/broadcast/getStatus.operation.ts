import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';
import { idList, requireId } from '../../../shared/validation';
import { MAX_BROADCAST_RECIPIENTS } from './recipients';

const properties: INodeProperties[] = [
	{
		displayName: 'Broadcast Message IDs',
		name: 'messageIds',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. bcm_1a2b3, bcm_4c5d6',
		description:
			'One or more IDs, separated by commas, spaces or new lines, or an expression giving an array of IDs. One output item per ID.',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['broadcast'], operation: ['getStatus'] } },
	properties,
);

/** The status of each broadcast message: one request and one output item per ID. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const raw = idList(this.getNodeParameter('messageIds', itemIndex, ''));
	if (raw.length === 0) {
		throw new NodeOperationError(node, 'Broadcast Message IDs is empty', { itemIndex });
	}
	if (raw.length > MAX_BROADCAST_RECIPIENTS) {
		throw new NodeOperationError(
			node,
			`Broadcast Message IDs has ${raw.length} IDs; at most ${MAX_BROADCAST_RECIPIENTS} per item`,
			{ itemIndex },
		);
	}
	const ids = raw.map((id, index) =>
		requireId(
			node,
			id,
			raw.length > 1 ? `Broadcast Message ID ${index + 1}` : 'Broadcast Message ID',
			itemIndex,
		),
	);
	const statuses: IDataObject[] = [];
	for (const id of ids) {
		statuses.push(
			(await apiRequest.call(this, 'GET', path`/messenger/broadcast/messages/${id}`, {
				errorContext: { resource: 'Broadcast message', id, itemIndex },
			})) as IDataObject,
		);
	}
	return statuses;
}
