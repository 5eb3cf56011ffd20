import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { normalizePhone, parseJsonObject, requireEmail } from '../../../shared/validation';

export const BROADCAST_CHANNELS = ['whatsapp', 'sms', 'email'] as const;
export type BroadcastChannel = (typeof BROADCAST_CHANNELS)[number];

/** The most recipients one broadcast request takes. */
export const MAX_BROADCAST_RECIPIENTS = 1000;

/** The recipients given as JSON text, an array from an expression, or one object. */
export function recipientsFromJson(node: INode, value: unknown, itemIndex: number): unknown[] {
	let parsed = value;
	if (typeof value === 'string') {
		const text = value.trim();
		if (text === '') return [];
		try {
			parsed = JSON.parse(text);
		} catch (error) {
			throw new NodeOperationError(node, 'Recipients (JSON) is not valid JSON', {
				itemIndex,
				description: `${(error as Error).message}. Example: [{"phone": "+34600123456", "variables": {"name": "Lucia"}}]`,
			});
		}
	}
	if (Array.isArray(parsed)) return parsed;
	if (parsed && typeof parsed === 'object') return [parsed];
	throw new NodeOperationError(node, 'Recipients (JSON) must be an array of recipients', {
		itemIndex,
		description:
			'Example: [{"phone": "+34600123456", "variables": {"name": "Lucia"}}], or an expression that gives such an array.',
	});
}

/**
 * Each recipient checked for the channel: a phone in E.164 for WhatsApp and SMS, an email for
 * email, variables as an object. A plain string is taken as the address. Other fields pass
 * through unchanged, for API options this node does not know.
 */
export function checkRecipients(
	node: INode,
	channel: BroadcastChannel,
	entries: unknown[],
	itemIndex: number,
): IDataObject[] {
	if (entries.length === 0) {
		throw new NodeOperationError(node, 'Recipients is empty: add at least one recipient', {
			itemIndex,
		});
	}
	if (entries.length > MAX_BROADCAST_RECIPIENTS) {
		throw new NodeOperationError(
			node,
			`Recipients has ${entries.length} entries; one broadcast takes at most ${MAX_BROADCAST_RECIPIENTS}`,
			{
				itemIndex,
				description: `Split the list into batches of ${MAX_BROADCAST_RECIPIENTS}, e.g. with the Loop Over Items node.`,
			},
		);
	}
	const addressField = channel === 'email' ? 'email' : 'phone';
	return entries.map((entry, index) => {
		const label = `Recipient ${index + 1}`;
		const recipient: IDataObject =
			typeof entry === 'string' || typeof entry === 'number'
				? { [addressField]: entry }
				: entry && typeof entry === 'object' && !Array.isArray(entry)
					? { ...(entry as IDataObject) }
					: (() => {
							throw new NodeOperationError(
								node,
								`${label} must be an object like {"${addressField}": "..."}`,
								{ itemIndex },
							);
						})();
		if (channel === 'email') {
			recipient.email = requireEmail(node, recipient.email, `${label} email`, itemIndex);
		} else {
			recipient.phone = normalizePhone(node, recipient.phone, `${label} phone`, itemIndex);
		}
		if (
			recipient.variables === undefined ||
			recipient.variables === null ||
			recipient.variables === ''
		) {
			delete recipient.variables;
		} else {
			if (Array.isArray(recipient.variables)) {
				throw new NodeOperationError(node, `${label} variables must be a JSON object`, {
					itemIndex,
				});
			}
			const variables = parseJsonObject(node, recipient.variables, `${label} variables`, itemIndex);
			if (Object.keys(variables).length > 0) recipient.variables = variables;
			else delete recipient.variables;
		}
		return recipient;
	});
}
