import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { valueOptions } from '../../../shared/descriptions';
import { requireOneOf, requireText, requireUrl } from '../../../shared/validation';
import { CAPTION_MAX_LENGTH } from '../common';

/** Media kinds the send endpoints take for a file given by URL. */
export const MEDIA_TYPES = ['image', 'video', 'audio', 'document'] as const;

/** The URL and kind of a file sent by URL (Send Media by URL, Send Media to Phone). */
export const mediaUrlProperties: INodeProperties[] = [
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
		options: valueOptions(MEDIA_TYPES, { sortByName: true }),
		default: 'image',
	},
];

export const mediaFileNameOption: INodeProperties = {
	displayName: 'File Name',
	name: 'fileName',
	type: 'string',
	default: '',
	description: 'Name the recipient sees, for documents',
};

/** `{ url, type, caption?, fileName? }` from the parameters, each checked, for a send by URL. */
export function mediaUrlBody(
	this: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
): IDataObject {
	const body: IDataObject = {
		url: requireUrl(this.getNodeParameter('url', itemIndex), 'Media URL'),
		type: requireOneOf(this.getNodeParameter('mediaType', itemIndex), 'Media Type', MEDIA_TYPES),
	};
	const caption = requireText(options.caption, 'Caption', {
		maxLength: CAPTION_MAX_LENGTH,
		optional: true,
	});
	if (caption !== '') body.caption = caption;
	const fileName = requireText(options.fileName, 'File Name', {
		maxLength: 255,
		optional: true,
	}).trim();
	if (fileName !== '') body.fileName = fileName;
	return body;
}

/**
 * What Send Media File uploads: any image, video or audio type, and these documents.
 * The one list: the README and the error message both come from it.
 */
export const ALLOWED_UPLOAD_MIME_PREFIXES = ['image/', 'video/', 'audio/'] as const;
/** The documents Send Media File uploads, with the file extension the README names them by. */
export const UPLOAD_DOCUMENT_EXTENSIONS: Readonly<Record<string, string>> = {
	'application/pdf': '.pdf',
	'application/msword': '.doc',
	'application/vnd.openxmlformats-officedocument.wordprocessingml.document': '.docx',
	'application/vnd.ms-excel': '.xls',
	'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': '.xlsx',
	'application/vnd.ms-powerpoint': '.ppt',
	'application/vnd.openxmlformats-officedocument.presentationml.presentation': '.pptx',
	'text/plain': '.txt',
	'text/csv': '.csv',
	'application/zip': '.zip',
};
export const ALLOWED_UPLOAD_DOCUMENT_TYPES = Object.keys(UPLOAD_DOCUMENT_EXTENSIONS);

/** `Text/CSV; charset=utf-8` → `text/csv`. */
export function baseMimeType(mimeType: string): string {
	return mimeType.split(';')[0].trim().toLowerCase();
}

export function isAllowedUploadType(mimeType: string): boolean {
	const base = baseMimeType(mimeType);
	if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(base)) return false;
	return (
		ALLOWED_UPLOAD_MIME_PREFIXES.some((prefix) => base.startsWith(prefix)) ||
		ALLOWED_UPLOAD_DOCUMENT_TYPES.includes(base)
	);
}

export function allowedUploadTypesText(): string {
	return `${ALLOWED_UPLOAD_MIME_PREFIXES.map((prefix) => `${prefix}*`).join(', ')}, ${ALLOWED_UPLOAD_DOCUMENT_TYPES.join(', ')}`;
}
