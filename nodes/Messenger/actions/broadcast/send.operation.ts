import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path, toListPage } from '../../../shared/transport';
import { requireId, requireOneOf, requireText } from '../../../shared/validation';
import { bodyOptions, extraBody, TEXT_MAX_LENGTH, whatsappNumberOption } from '../common';
import {
	BROADCAST_CHANNELS,
	checkRecipients,
	MAX_BROADCAST_RECIPIENTS,
	recipientsFromJson,
} from './recipients';

const properties: INodeProperties[] = [
	{
		displayName: 'Channel',
		name: 'channel',
		type: 'options',
		default: 'whatsapp',
		options: [
			{ name: 'Email', value: 'email' },
			{ name: 'SMS', value: 'sms' },
			{ name: 'WhatsApp', value: 'whatsapp' },
		],
	},
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
						placeholder: 'e.g. +34600123456',
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
		description: `Array of recipients, each with "phone" (WhatsApp, SMS) or "email" (email) and optional "variables". Up to ${MAX_BROADCAST_RECIPIENTS}.`,
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

/** Sends one transactional message per recipient; one output item per BroadcastMessage. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const node = this.getNode();
	const channel = requireOneOf(
		node,
		this.getNodeParameter('channel', itemIndex),
		'Channel',
		BROADCAST_CHANNELS,
		itemIndex,
	);
	const input = this.getNodeParameter('recipientsInput', itemIndex, 'rows') as string;
	const entries =
		input === 'json'
			? recipientsFromJson(
					node,
					this.getNodeParameter('recipientsJson', itemIndex, '[]'),
					itemIndex,
				)
			: (
					(
						this.getNodeParameter('recipients', itemIndex, {}) as {
							recipient?: IDataObject[];
						}
					).recipient ?? []
				).map((row) =>
					channel === 'email'
						? { email: row.email, variables: row.variables }
						: { phone: row.phone, variables: row.variables },
				);
	const recipients = checkRecipients(node, channel, entries, itemIndex);

	const body: IDataObject = { channel, recipients };
	const content = this.getNodeParameter('messageContent', itemIndex, 'template') as string;
	if (content === 'text') {
		body.text = requireText(node, this.getNodeParameter('text', itemIndex, ''), 'Text', itemIndex, {
			maxLength: TEXT_MAX_LENGTH,
		});
	} else {
		body.templateId = requireText(
			node,
			this.getNodeParameter('templateId', itemIndex, ''),
			'Template ID',
			itemIndex,
			{ maxLength: 200 },
		).trim();
	}
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	if (
		channel === 'whatsapp' &&
		options.whatsappNumberId !== undefined &&
		options.whatsappNumberId !== ''
	) {
		body.whatsappNumberId = requireId(node, options.whatsappNumberId, 'WhatsApp Number', itemIndex);
	}
	const response = await apiRequest.call(this, 'POST', path`/messenger/broadcast/messages`, {
		body: { ...body, ...extraBody.call(this, options, itemIndex) },
		errorContext: body.whatsappNumberId
			? { resource: 'WhatsApp number', id: String(body.whatsappNumberId), itemIndex }
			: { itemIndex },
	});
	return toListPage(response).items;
}
