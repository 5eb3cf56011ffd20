import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { ID_VALIDATION, optionsCollection } from '../../shared/descriptions';
import type { ErrorContext } from '../../shared/errors';
import { parseJsonObject, requireId } from '../../shared/validation';
import { PHONE_FORMAT_HINT } from '../../shared/phone';

/** Contact picker: searched by name, phone or email (the API needs a term), or by ID. */
export const contactLocator: INodeProperties = {
	displayName: 'Contact',
	name: 'contactId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Type a name, phone or email to search',
			typeOptions: {
				searchListMethod: 'searchContacts',
				searchable: true,
				searchFilterRequired: true,
			},
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. ctc_4h7k2',
			validation: ID_VALIDATION,
		},
	],
};

/**
 * The required Phone parameter (E.164; read by normalizePhone), with what the operation does with
 * it and how a phone may be written.
 */
export function phoneProperty(description: string): INodeProperties {
	return {
		displayName: 'Phone',
		name: 'phone',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +34 600 123 456',
		description: `${description}, in ${PHONE_FORMAT_HINT}`,
	};
}

export const chatIdProperty: INodeProperties = {
	displayName: 'Chat ID',
	name: 'chatId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. cht_9d3f1',
	description: 'The chat. Use Chat → Check Existing to find the open chat of a phone number.',
};

export const messageIdProperty: INodeProperties = {
	displayName: 'Message ID',
	name: 'messageId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. msg_2k8d0',
};

/** The sending number, listed from the workspace; an expression can give an ID instead. */
export const whatsappNumberOption: INodeProperties = {
	displayName: 'WhatsApp Number Name or ID',
	name: 'whatsappNumberId',
	type: 'options',
	typeOptions: { loadOptionsMethod: 'getWhatsappNumbers' },
	default: '',
	description:
		'The WhatsApp number to send from; the workspace default when empty. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
};

/**
 * The sending number chosen in an operation's Options (checked as an ID) as body fields, and the
 * wording of a 404, which can then only be about that number: chats are found by phone.
 */
export function sendingNumber(options: IDataObject): {
	body: IDataObject;
	errorContext: ErrorContext;
} {
	if (options.whatsappNumberId === undefined || options.whatsappNumberId === '') {
		return { body: {}, errorContext: {} };
	}
	const id = requireId(options.whatsappNumberId, 'WhatsApp Number');
	return { body: { whatsappNumberId: id }, errorContext: { resource: 'WhatsApp number', id } };
}

/** An "Additional Body Fields (JSON)" option: merged into the body, to follow the real API where it differs. */
export const additionalBodyFields: INodeProperties = {
	displayName: 'Additional Body Fields (JSON)',
	name: 'additionalBodyFields',
	type: 'json',
	default: '{}',
	description:
		'Extra fields sent in the request body as they are, for API options this node does not list. They replace fields of the same name set above.',
};

/**
 * The Options collection of an operation that sends a body: Additional Body Fields (JSON) first,
 * then the operation's own options.
 */
export function bodyOptions(...more: INodeProperties[]): INodeProperties {
	return optionsCollection([additionalBodyFields, ...more]);
}

/** The "Additional Body Fields (JSON)" of an Options collection as an object. */
export function extraBody(options: IDataObject): IDataObject {
	return parseJsonObject(options.additionalBodyFields, 'Additional Body Fields (JSON)');
}

/** The longest caption WhatsApp shows. */
export const CAPTION_MAX_LENGTH = 1024;

/** The longest text message WhatsApp accepts. */
export const TEXT_MAX_LENGTH = 4096;

export const captionOption: INodeProperties = {
	displayName: 'Caption',
	name: 'caption',
	type: 'string',
	default: '',
	typeOptions: { rows: 2 },
	description: `Text shown with the media, up to ${CAPTION_MAX_LENGTH} characters`,
};
