import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { InputError } from '../../../shared/errors';
import type { MultipartFile } from '../../../shared/multipart';
import { buildMultipartBody, bytesInMemory } from '../../../shared/multipart';
import { apiRequest, path } from '../../../shared/transport';
import { requireId, requireText } from '../../../shared/validation';
import {
	bodyOptions,
	CAPTION_MAX_LENGTH,
	captionOption,
	chatIdProperty,
	extraBody,
} from '../common';
import { allowedUploadTypesText, baseMimeType, isAllowedUploadType } from './media';

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

/**
 * The bytes of a binary field, never more than once in memory: n8n's stored file (filesystem,
 * database, S3: the item holds an id) is streamed from its store on every send; in-memory binary
 * data (n8n 1.x's default, a Code node's output) is decoded once and sent as it is.
 */
async function binaryContent(
	this: IExecuteFunctions,
	itemIndex: number,
	propertyName: string,
	binaryId: string | undefined,
): Promise<Pick<MultipartFile, 'size' | 'read'>> {
	if (binaryId) {
		const size = Number((await this.helpers.getBinaryMetadata(binaryId)).fileSize);
		// A store that does not know the size: read the file once, as below.
		if (Number.isSafeInteger(size) && size >= 0) {
			return { size, read: async () => await this.helpers.getBinaryStream(binaryId) };
		}
	}
	return bytesInMemory(await this.helpers.getBinaryDataBuffer(itemIndex, propertyName));
}

/** The file to upload from the item's binary data, checked: present, an allowed type, not empty. */
async function fileToSend(
	this: IExecuteFunctions,
	itemIndex: number,
	propertyName: string,
	options: IDataObject,
): Promise<MultipartFile> {
	const present = Object.keys(this.getInputData()[itemIndex]?.binary ?? {});
	if (!present.includes(propertyName)) {
		throw new InputError(
			`The input item has no binary field "${propertyName}"`,
			present.length
				? `Its binary fields are: ${present.join(', ')}. Set Input Binary Field to one of them.`
				: 'It has no binary data at all. Add a node before this one that reads or downloads the file (e.g. Read/Write Files from Disk, HTTP Request with the response as a file). An AI agent cannot hand over a file: as a tool, use Message → Send Media by URL instead.',
		);
	}
	const binaryData = this.helpers.assertBinaryData(itemIndex, propertyName);
	const mimeType = baseMimeType(
		String(options.mimeType ?? '').trim() || String(binaryData.mimeType ?? ''),
	);
	if (!isAllowedUploadType(mimeType)) {
		throw new InputError(
			`The file in "${propertyName}" has the type "${mimeType || 'unknown'}", which cannot be sent`,
			`Allowed types: ${allowedUploadTypesText()}. If the type is wrong, set the MIME Type option.`,
		);
	}
	const fileName =
		String(options.fileName ?? '').trim() || String(binaryData.fileName ?? '').trim() || 'file';
	const content = await binaryContent.call(this, itemIndex, propertyName, binaryData.id);
	if (!(content.size > 0)) throw new InputError(`The file in "${propertyName}" is empty (0 bytes)`);
	return { fieldName: 'file', fileName, mimeType, ...content };
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const chatId = requireId(this.getNodeParameter('chatId', itemIndex), 'Chat ID');
	const propertyName = requireText(
		this.getNodeParameter('binaryPropertyName', itemIndex, 'data'),
		'Input Binary Field',
		{ maxLength: 200 },
	).trim();
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const caption = requireText(options.caption, 'Caption', {
		maxLength: CAPTION_MAX_LENGTH,
		optional: true,
	});
	const extra = extraBody(options);
	const file = await fileToSend.call(this, itemIndex, propertyName, options);

	const fields: Array<[string, string]> = [['chatId', chatId]];
	if (caption !== '') fields.push(['caption', caption]);
	const body = buildMultipartBody(
		[...fields.filter(([name]) => !(name in extra)), ...extraParts(extra)],
		file,
	);
	return (await apiRequest.call(this, 'POST', path`/messenger/messages/send/media-file`, {
		body,
		headers: { 'Content-Type': body.type },
		errorContext: { resource: 'Chat', id: chatId },
	})) as IDataObject;
}
