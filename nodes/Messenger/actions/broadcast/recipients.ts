import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { valueOptions } from '../../../shared/descriptions';
import { InputError } from '../../../shared/errors';
import { parseJson, parseJsonObject, requireEmail } from '../../../shared/validation';
import { normalizePhone } from '../../../shared/phone';

export const BROADCAST_CHANNELS = ['whatsapp', 'sms', 'email'] as const;
export type BroadcastChannel = (typeof BROADCAST_CHANNELS)[number];

export const channelOptions = valueOptions(BROADCAST_CHANNELS, {
	labels: { whatsapp: 'WhatsApp', sms: 'SMS' },
	sortByName: true,
});

/** The Channel parameter of a transactional send. */
export const channelProperty: INodeProperties = {
	displayName: 'Channel',
	name: 'channel',
	type: 'options',
	default: 'whatsapp',
	options: channelOptions,
};

/** The most recipients one broadcast request takes. */
export const MAX_BROADCAST_RECIPIENTS = 1000;

const RECIPIENTS_EXAMPLE = '[{"phone": "+34600123456", "variables": {"name": "Lucia"}}]';

/** The recipients given as JSON text, an array from an expression, or one object. */
export function recipientsFromJson(value: unknown): unknown[] {
	let parsed = value;
	if (typeof value === 'string') {
		const text = value.trim();
		if (text === '') return [];
		const json = parseJson(text);
		if (json.reason !== undefined) {
			throw new InputError(
				'Recipients (JSON) is not valid JSON',
				`${json.reason}. Example: ${RECIPIENTS_EXAMPLE}`,
			);
		}
		parsed = json.parsed;
	}
	if (Array.isArray(parsed)) return parsed;
	if (parsed && typeof parsed === 'object') return [parsed];
	throw new InputError(
		'Recipients (JSON) must be an array of recipients',
		`Example: ${RECIPIENTS_EXAMPLE}, or an expression that gives such an array.`,
	);
}

/**
 * Each recipient checked for the channel: a phone in E.164 for WhatsApp and SMS, an email for
 * email, variables as an object. A plain string is taken as the address. Other fields pass
 * through unchanged, for API options this node does not know.
 */
export function checkRecipients(channel: BroadcastChannel, entries: unknown[]): IDataObject[] {
	if (entries.length === 0) throw new InputError('Recipients is empty: add at least one recipient');
	if (entries.length > MAX_BROADCAST_RECIPIENTS) {
		throw new InputError(
			`Recipients has ${entries.length} entries; one broadcast takes at most ${MAX_BROADCAST_RECIPIENTS}`,
			`Split the list into batches of ${MAX_BROADCAST_RECIPIENTS}, e.g. with the Loop Over Items node.`,
		);
	}
	return entries.map((entry, index) => checkRecipient(channel, entry, `Recipient ${index + 1}`));
}

/**
 * One recipient checked for the channel (see checkRecipients); `label` names it in errors, e.g.
 * "Recipient 2" gives "Recipient 2 phone is empty".
 */
export function checkRecipient(
	channel: BroadcastChannel,
	entry: unknown,
	label: string,
): IDataObject {
	const addressField = channel === 'email' ? 'email' : 'phone';
	let recipient: IDataObject;
	if (typeof entry === 'string' || typeof entry === 'number') {
		recipient = { [addressField]: entry };
	} else if (entry && typeof entry === 'object' && !Array.isArray(entry)) {
		recipient = { ...(entry as IDataObject) };
	} else {
		throw new InputError(`${label} must be an object like {"${addressField}": "..."}`);
	}
	if (channel === 'email') recipient.email = requireEmail(recipient.email, `${label} email`);
	else recipient.phone = normalizePhone(recipient.phone, `${label} phone`);
	const variables = recipient.variables;
	delete recipient.variables;
	if (variables === undefined || variables === null || variables === '') return recipient;
	if (Array.isArray(variables)) throw new InputError(`${label} variables must be a JSON object`);
	const parsed = parseJsonObject(variables, `${label} variables`);
	return Object.keys(parsed).length > 0 ? { ...recipient, variables: parsed } : recipient;
}
