import type { INodeProperties } from 'n8n-workflow';

import { LIST_SEPARATORS_TEXT, requireList, requireListId } from '../../../shared/lists';

/** The Broadcast Message IDs parameter: how to give them, then what its operation or event does with them. */
export function broadcastMessageIdsProperty(description: string): INodeProperties {
	return {
		displayName: 'Broadcast Message IDs',
		name: 'messageIds',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. bcm_1a2b3, bcm_4c5d6',
		description: `One or more IDs separated by ${LIST_SEPARATORS_TEXT}, or an expression giving an array of IDs. ${description}.`,
	};
}

/** Most broadcast message IDs Get Status takes per item: one request each. */
export const MAX_STATUS_IDS_PER_ITEM = 100;

/**
 * Broadcast message IDs from one parameter (see requireList for the forms it takes), each checked
 * as an ID, at most `max`; `advice` says what to do with more.
 */
export function broadcastMessageIds(value: unknown, max: number, advice?: string): string[] {
	const entries = requireList(value, 'Broadcast Message IDs', { max, advice });
	return entries.map((id, index) =>
		requireListId(
			id,
			entries.length > 1 ? `Broadcast Message ID ${index + 1}` : 'Broadcast Message ID',
		),
	);
}
