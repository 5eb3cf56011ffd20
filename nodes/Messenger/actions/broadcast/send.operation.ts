import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requireOneOf, requireText } from '../../../shared/validation';
import { PHONE_FORMAT_HINT } from '../../../shared/phone';
import { bodyOptions, TEXT_MAX_LENGTH, whatsappNumberOption } from '../common';
import type { BroadcastChannel } from './recipients';
import { sendBroadcast } from './request';
import {
	BROADCAST_CHANNELS,
	channelProperty,
	checkRecipients,
	MAX_BROADCAST_RECIPIENTS,
	recipientsFromJson,
} from './recipients';

const properties: INodeProperties[] = [
	channelProperty,
	{
		displayName: 'Recipients Input',
		name: 'recipientsInput',
		type: 'options',
		default: 'rows',
		options: [
			{
				name: 'Define Below',
				value: 'rows',
				description: 'One row per recipient',
			},
			{
				name: 'JSON',
				value: 'json',
				description:
					'A JSON array, or an expression giving an array (e.g. built from earlier items)',
			},
		],
	},
	{
		displayName: 'Recipients',
		name: 'recipients',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Recipient',
		default: {},
		description: `Up to ${MAX_BROADCAST_RECIPIENTS} recipients; each gets its own message`,
		displayOptions: { show: { recipientsInput: ['rows'] } },
		options: [
			{
				displayName: 'Recipient',
				name: 'recipient',
				values: [
					{
						displayName: 'Phone',
						name: 'phone',
						type: 'string',
						default: '',
						placeholder: 'e.g. +34 600 123 456',
						description: `In ${PHONE_FORMAT_HINT}`,
						displayOptions: { show: { '/channel': ['whatsapp', 'sms'] } },
					},
					{
						displayName: 'Email',
						name: 'email',
						type: 'string',
						default: '',
						placeholder: 'e.g. name@example.com',
						displayOptions: { show: { '/channel': ['email'] } },
					},
					{
						displayName: 'Variables (JSON)',
						name: 'variables',
						type: 'json',
						default: '{}',
						description:
							'Values for this recipient’s template placeholders, e.g. {"name": "Lucia"}',
					},
				],
			},
		],
	},
	{
		displayName: 'Recipients (JSON)',
		name: 'recipientsJson',
		type: 'json',
		default: '[]',
		placeholder: '[{"phone": "+34600123456", "variables": {"name": "Lucia"}}]',
		description: `Array of recipients, each with "phone" (WhatsApp, SMS; in ${PHONE_FORMAT_HINT}) or "email" (email) and optional "variables". Up to ${MAX_BROADCAST_RECIPIENTS}.`,
		displayOptions: { show: { recipientsInput: ['json'] } },
	},
	{
		displayName: 'Message',
		name: 'messageContent',
		type: 'options',
		default: 'template',
		options: [
			{ name: 'Template', value: 'template', description: 'An approved template by ID' },
			{ name: 'Text', value: 'text', description: 'Free text' },
		],
	},
	{
		displayName: 'Template ID',
		name: 'templateId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. order_confirmation',
		displayOptions: { show: { messageContent: ['template'] } },
	},
	{
		displayName: 'Text',
		name: 'text',
		type: 'string',
		required: true,
		default: '',
		typeOptions: { rows: 4 },
		description: `Up to ${TEXT_MAX_LENGTH} characters`,
		displayOptions: { show: { messageContent: ['text'] } },
	},
	bodyOptions({ ...whatsappNumberOption, displayOptions: { show: { '/channel': ['whatsapp'] } } }),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['broadcast'], operation: ['send'] } },
	properties,
);

/** The recipients as entered: rows of the collection, or the JSON list. */
function recipientEntries(
	this: IExecuteFunctions,
	itemIndex: number,
	channel: BroadcastChannel,
): unknown[] {
	if (this.getNodeParameter('recipientsInput', itemIndex, 'rows') === 'json') {
		return recipientsFromJson(this.getNodeParameter('recipientsJson', itemIndex, '[]'));
	}
	const rows =
		(this.getNodeParameter('recipients', itemIndex, {}) as { recipient?: IDataObject[] })
			.recipient ?? [];
	const addressField = channel === 'email' ? 'email' : 'phone';
	return rows.map((row) => ({ [addressField]: row[addressField], variables: row.variables }));
}

/** `{ text }` or `{ templateId }`, as the Message parameter says. */
function messageContent(this: IExecuteFunctions, itemIndex: number): IDataObject {
	if (this.getNodeParameter('messageContent', itemIndex, 'template') === 'text') {
		const text = this.getNodeParameter('text', itemIndex, '');
		return { text: requireText(text, 'Text', { maxLength: TEXT_MAX_LENGTH }) };
	}
	const templateId = this.getNodeParameter('templateId', itemIndex, '');
	return { templateId: requireText(templateId, 'Template ID', { maxLength: 200 }).trim() };
}

/** Sends one transactional message per recipient; one output item per BroadcastMessage. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const channel = requireOneOf(
		this.getNodeParameter('channel', itemIndex),
		'Channel',
		BROADCAST_CHANNELS,
	);
	const recipients = checkRecipients(channel, recipientEntries.call(this, itemIndex, channel));
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	return await sendBroadcast.call(
		this,
		channel,
		recipients,
		messageContent.call(this, itemIndex),
		options,
	);
}
