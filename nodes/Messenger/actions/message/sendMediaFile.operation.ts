import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { buildMultipartBody } from '../../../shared/multipart';
import { apiRequest, path } from '../../../shared/transport';
import { requireId, requireText } from '../../../shared/validation';
import {
	bodyOptions,
	CAPTION_MAX_LENGTH,
	captionOption,
	chatIdProperty,
	extraBody,
} from '../common';
import { allowedUploadTypesText, baseMimeType, isAllowedUploadType } from '../media';

const properties: INodeProperties[] = [
	chatIdProperty,
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		required: true,
		default: 'data',
		hint: 'The name of the input binary field containing the file to send',
	},
	bodyOptions(
		captionOption,
		{
			displayName: 'File Name',
			name: 'fileName',
			type: 'string',
			default: '',
			description: 'Name the recipient sees; the binary file’s own name when empty',
		},
		{
			displayName: 'MIME Type',
			name: 'mimeType',
			type: 'string',
			default: '',
			placeholder: 'e.g. application/pdf',
			description:
				'Type of the file, when the binary data has none or a wrong one (e.g. application/octet-stream)',
		},
	),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['sendMediaFile'] } },
	properties,
);

/** Extra multipart parts from Additional Body Fields: text as it is, anything else as JSON. */
function extraParts(extra: IDataObject): Array<[string, string]> {
	return Object.entries(extra)
		.filter(([, value]) => value !== undefined && value !== null)
		.map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]);
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const node = this.getNode();
	const chatId = requireId(node, this.getNodeParameter('chatId', itemIndex), 'Chat ID', itemIndex);
	const propertyName = requireText(
		node,
		this.getNodeParameter('binaryPropertyName', itemIndex, 'data'),
		'Input Binary Field',
		itemIndex,
		{ maxLength: 200 },
	).trim();
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const caption = requireText(node, options.caption, 'Caption', itemIndex, {
		maxLength: CAPTION_MAX_LENGTH,
		optional: true,
	});
	const extra = extraBody.call(this, options, itemIndex);

	const present = Object.keys(this.getInputData()[itemIndex]?.binary ?? {});
	if (!present.includes(propertyName)) {
		throw new NodeOperationError(node, `The input item has no binary field "${propertyName}"`, {
			itemIndex,
			description: present.length
				? `Its binary fields are: ${present.join(', ')}. Set Input Binary Field to one of them.`
				: 'It has no binary data at all. Add a node before this one that reads or downloads the file (e.g. Read/Write Files from Disk, HTTP Request with the response as a file).',
		});
	}
	const binaryData = this.helpers.assertBinaryData(itemIndex, propertyName);
	const mimeType = baseMimeType(
		String(options.mimeType ?? '').trim() || String(binaryData.mimeType ?? ''),
	);
	if (!isAllowedUploadType(mimeType)) {
		throw new NodeOperationError(
			node,
			`The file in "${propertyName}" has the type "${mimeType || 'unknown'}", which cannot be sent`,
			{
				itemIndex,
				description: `Allowed types: ${allowedUploadTypesText()}. If the type is wrong, set the MIME Type option.`,
			},
		);
	}
	const fileName =
		String(options.fileName ?? '').trim() || String(binaryData.fileName ?? '').trim() || 'file';
	const data = await this.helpers.getBinaryDataBuffer(itemIndex, propertyName);
	if (data.length === 0) {
		throw new NodeOperationError(node, `The file in "${propertyName}" is empty (0 bytes)`, {
			itemIndex,
		});
	}

	const fields: Array<[string, string]> = [['chatId', chatId]];
	if (caption !== '') fields.push(['caption', caption]);
	const { body, contentType } = buildMultipartBody(
		[...fields.filter(([name]) => !(name in extra)), ...extraParts(extra)],
		{ fieldName: 'file', fileName, mimeType, data },
	);
	return (await apiRequest.call(this, 'POST', path`/messenger/messages/send/media-file`, {
		body,
		headers: { 'Content-Type': contentType },
		errorContext: { resource: 'Chat', id: chatId, itemIndex },
	})) as IDataObject;
}
