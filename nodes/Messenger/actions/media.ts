/** Media kinds the send endpoints take for a file given by URL. */
export const MEDIA_TYPES = ['image', 'video', 'audio', 'document'] as const;

export const mediaTypeOptions = [
	{ name: 'Audio', value: 'audio' },
	{ name: 'Document', value: 'document' },
	{ name: 'Image', value: 'image' },
	{ name: 'Video', value: 'video' },
];

/**
 * What Send Media File uploads: any image, video or audio type, and these documents.
 * The one list: the README and the error message both come from it.
 */
export const ALLOWED_UPLOAD_MIME_PREFIXES = ['image/', 'video/', 'audio/'] as const;
export const ALLOWED_UPLOAD_DOCUMENT_TYPES = [
	'application/pdf',
	'application/msword',
	'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
	'application/vnd.ms-excel',
	'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
	'application/vnd.ms-powerpoint',
	'application/vnd.openxmlformats-officedocument.presentationml.presentation',
	'text/plain',
	'text/csv',
	'application/zip',
] as const;

/** `Text/CSV; charset=utf-8` → `text/csv`. */
export function baseMimeType(mimeType: string): string {
	return mimeType.split(';')[0].trim().toLowerCase();
}

export function isAllowedUploadType(mimeType: string): boolean {
	const base = baseMimeType(mimeType);
	if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(base)) return false;
	return (
		ALLOWED_UPLOAD_MIME_PREFIXES.some((prefix) => base.startsWith(prefix)) ||
		(ALLOWED_UPLOAD_DOCUMENT_TYPES as readonly string[]).includes(base)
	);
}

export function allowedUploadTypesText(): string {
	return `${ALLOWED_UPLOAD_MIME_PREFIXES.map((prefix) => `${prefix}*`).join(', ')}, ${ALLOWED_UPLOAD_DOCUMENT_TYPES.join(', ')}`;
}
