import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION, updateDisplayOptions } from 'n8n-workflow';

import { InputError } from '../../../shared/errors';
import { runsAsTool } from '../../../shared/router';
import { requireOneOf, requireText } from '../../../shared/validation';
import type { BroadcastChannel } from '../broadcast/recipients';
import { BROADCAST_CHANNELS, channelProperty, checkRecipient } from '../broadcast/recipients';
import { sendBroadcast } from '../broadcast/request';
import { phoneProperty, TEXT_MAX_LENGTH } from '../common';
import { responseProperties } from '../../sendAndWait/properties';
import { linkLabel, responseSettings } from '../../sendAndWait/settings';
import { waitTill } from '../../sendAndWait/waitLimit';

const properties: INodeProperties[] = [
	channelProperty,
	{
		...phoneProperty('The person who answers, in international format'),
		displayOptions: { show: { channel: ['whatsapp', 'sms'] } },
	},
	{
		displayName: 'Email',
		name: 'email',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. name@example.com',
		description: 'The person who answers',
		displayOptions: { show: { channel: ['email'] } },
	},
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		required: true,
		default: '',
		typeOptions: { rows: 4 },
		description: 'What the person is asked; the link to answer is added to it',
	},
	{
		displayName: 'Send As',
		name: 'sendAs',
		type: 'options',
		default: 'text',
		options: [
			{ name: 'Text', value: 'text', description: 'The message, then the link' },
			{
				name: 'Template',
				value: 'template',
				description:
					'An approved template, with the link and the message as its variables. WhatsApp delivers free text only within 24 hours of the person’s last message.',
			},
		],
	},
	{
		displayName: 'Template ID',
		name: 'templateId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. approval_request',
		displayOptions: { show: { sendAs: ['template'] } },
	},
	{
		displayName: 'Link Variable',
		name: 'linkVariable',
		type: 'string',
		default: 'link',
		description: 'The template variable that gets the link',
		displayOptions: { show: { sendAs: ['template'] } },
	},
	{
		displayName: 'Message Variable',
		name: 'messageVariable',
		type: 'string',
		default: 'message',
		description: 'The template variable that gets the message; empty to send none',
		displayOptions: { show: { sendAs: ['template'] } },
	},
	...responseProperties,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: [SEND_AND_WAIT_OPERATION] } },
	properties,
);

/** Runs once per execution: one message, whatever the number of input items. */
export const runsOnce = true;

/** `{ text }` with the link after the message, or `{ templateId }` with both as variables. */
function content(
	this: IExecuteFunctions,
	message: string,
	link: string,
	options: IDataObject,
): { content: IDataObject; variables?: IDataObject } {
	if (this.getNodeParameter('sendAs', 0, 'text') !== 'template') {
		const text = requireText(`${message.trim()}\n\n${linkLabel(options)}: ${link}`, 'Message', {
			maxLength: TEXT_MAX_LENGTH,
		});
		return { content: { text } };
	}
	const templateId = requireText(this.getNodeParameter('templateId', 0, ''), 'Template ID', {
		maxLength: 200,
	}).trim();
	const variable = (name: string, fallback: string) =>
		String(this.getNodeParameter(name, 0, fallback) ?? '').trim();
	const linkVariable = variable('linkVariable', 'link');
	if (linkVariable === '') throw new InputError('Link Variable is empty');
	const messageVariable = variable('messageVariable', 'message');
	const variables: IDataObject = { [linkVariable]: link };
	if (messageVariable !== '') variables[messageVariable] = message;
	return { content: { templateId }, variables };
}

/**
 * Sends the person the message with a signed link to the node's own page, then puts the
 * execution to wait: the answer posted on that page (webhook.ts) resumes it, or Limit Wait Time.
 * Everything is checked before the message goes out.
 */
export async function execute(this: IExecuteFunctions): Promise<INodeExecutionData[]> {
	if (runsAsTool(this)) {
		throw new InputError(
			'Send and Wait for Response cannot run as a tool',
			'Connect the Messenger node to the agent as a human review step (Human in the loop) to have a person approve a tool call.',
		);
	}
	const channel: BroadcastChannel = requireOneOf(
		this.getNodeParameter('channel', 0),
		'Channel',
		BROADCAST_CHANNELS,
	);
	const address = channel === 'email' ? 'email' : 'phone';
	const recipient = checkRecipient(channel, this.getNodeParameter(address, 0, ''), 'Recipient');
	const message = requireText(this.getNodeParameter('message', 0, ''), 'Message', {
		maxLength: TEXT_MAX_LENGTH,
	});
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	responseSettings((name, fallback) => this.getNodeParameter(name, 0, fallback), message);
	const until = waitTill(options);
	// n8n 1.x checks the link's signature only when asked to (2.x always does; the call is gone).
	(this as { setSignatureValidationRequired?: () => void }).setSignatureValidationRequired?.();
	const link = this.getSignedResumeUrl();
	const { content: body, variables } = content.call(this, message, link, options);
	const to = variables ? { ...recipient, variables } : recipient;
	await sendBroadcast.call(this, channel, [to], body, options);
	await this.putExecutionToWait(until);
	return this.getInputData();
}
