import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';
import { requireId, requireOneOf, requireText, requireUrl } from '../../../shared/validation';
import {
	additionalBodyFields,
	CAPTION_MAX_LENGTH,
	captionOption,
	chatIdProperty,
	extraBody,
} from '../common';
import { MEDIA_TYPES, mediaTypeOptions } from '../media';

const properties: INodeProperties[] = [
	chatIdProperty,
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
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['sendMedia'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const node = this.getNode();
	const chatId = requireId(node, this.getNodeParameter('chatId', itemIndex), 'Chat ID', itemIndex);
	const url = requireUrl(node, this.getNodeParameter('url', itemIndex), 'Media URL', itemIndex);
	const type = requireOneOf(
		node,
		this.getNodeParameter('mediaType', itemIndex),
		'Media Type',
		MEDIA_TYPES,
		itemIndex,
	);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const body: IDataObject = { chatId, url, type };
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
	return (await apiRequest.call(this, 'POST', path`/messenger/messages/send/media`, {
		body: { ...body, ...extraBody.call(this, options, itemIndex) },
		errorContext: { resource: 'Chat', id: chatId, itemIndex },
	})) as IDataObject;
}
