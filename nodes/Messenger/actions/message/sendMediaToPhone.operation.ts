import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';
import {
	normalizePhone,
	requireId,
	requireOneOf,
	requireText,
	requireUrl,
} from '../../../shared/validation';
import {
	additionalBodyFields,
	CAPTION_MAX_LENGTH,
	captionOption,
	extraBody,
	whatsappNumberOption,
} from '../common';
import { MEDIA_TYPES, mediaTypeOptions } from '../media';

const properties: INodeProperties[] = [
	{
		displayName: 'Phone',
		name: 'phone',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. +34600123456',
		description:
			'Recipient in international format. Their open chat is used, or a new chat is opened.',
	},
	{
		displayName: 'Media URL',
		name: 'url',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. https://example.com/brochure.pdf',
		description: 'Public http(s) address the API downloads the file from',
	},
	{
		displayName: 'Media Type',
		name: 'mediaType',
		type: 'options',
		options: mediaTypeOptions,
		default: 'image',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			additionalBodyFields,
			captionOption,
			{
				displayName: 'File Name',
				name: 'fileName',
				type: 'string',
				default: '',
				description: 'Name the recipient sees, for documents',
			},
			whatsappNumberOption,
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['sendMediaToPhone'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const node = this.getNode();
	const phone = normalizePhone(node, this.getNodeParameter('phone', itemIndex), 'Phone', itemIndex);
	const url = requireUrl(node, this.getNodeParameter('url', itemIndex), 'Media URL', itemIndex);
	const type = requireOneOf(
		node,
		this.getNodeParameter('mediaType', itemIndex),
		'Media Type',
		MEDIA_TYPES,
		itemIndex,
	);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const body: IDataObject = { phone, url, type };
	const caption = requireText(node, options.caption, 'Caption', itemIndex, {
		maxLength: CAPTION_MAX_LENGTH,
		optional: true,
	});
	if (caption !== '') body.caption = caption;
	const fileName = requireText(node, options.fileName, 'File Name', itemIndex, {
		maxLength: 255,
		optional: true,
	}).trim();
	if (fileName !== '') body.fileName = fileName;
	if (options.whatsappNumberId !== undefined && options.whatsappNumberId !== '') {
		body.whatsappNumberId = requireId(node, options.whatsappNumberId, 'WhatsApp Number', itemIndex);
	}
	return (await apiRequest.call(this, 'POST', path`/messenger/messages/send/media-to-phone`, {
		body: { ...body, ...extraBody.call(this, options, itemIndex) },
		// The chat is found or opened by phone, so a 404 can only be about the sending number.
		errorContext: body.whatsappNumberId
			? { resource: 'WhatsApp number', id: String(body.whatsappNumberId), itemIndex }
			: { itemIndex },
	})) as IDataObject;
}
