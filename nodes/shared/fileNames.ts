/** What a downloaded file is called and what it holds, as n8n's binary data records it. */
export interface FileIdentity {
	fileName: string;
	mimeType: string;
}

/** The longest file name kept (most file systems allow 255 bytes). */
const MAX_FILE_NAME_LENGTH = 200;

/** Extensions for the types customers send most, used when a name comes without one. */
const EXTENSIONS: Record<string, string> = {
	'image/jpeg': 'jpg',
	'image/png': 'png',
	'image/gif': 'gif',
	'image/webp': 'webp',
	'image/heic': 'heic',
	'audio/ogg': 'ogg',
	'audio/mpeg': 'mp3',
	'audio/mp4': 'm4a',
	'audio/aac': 'aac',
	'audio/amr': 'amr',
	'audio/wav': 'wav',
	'video/mp4': 'mp4',
	'video/3gpp': '3gp',
	'video/quicktime': 'mov',
	'application/pdf': 'pdf',
	'application/msword': 'doc',
	'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
	'application/vnd.ms-excel': 'xls',
	'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
	'text/plain': 'txt',
	'text/csv': 'csv',
};

/** `type/subtype` of a Content-Type, lower case, or '' when it is none. */
export function baseType(contentType: unknown): string {
	const type = String(contentType ?? '')
		.split(';')[0]
		.trim()
		.toLowerCase();
	return /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type) ? type : '';
}

/**
 * The file name a Content-Disposition gives: `filename*` (RFC 5987, UTF-8 percent-encoded) before
 * `filename` (quoted or a token). Undefined when it names none.
 */
export function dispositionFileName(header: unknown): string | undefined {
	const text = String(header ?? '');
	const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(text);
	if (extended) {
		try {
			const value = decodeURIComponent(extended[2].trim().replace(/^"|"$/g, ''));
			if (value.trim()) return value;
		} catch {
			// a malformed encoding: the plain filename below, if any
		}
	}
	const plain = /(?:^|;)\s*filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(text);
	const value = plain ? (plain[1]?.replace(/\\(.)/g, '$1') ?? plain[2]) : undefined;
	return value?.trim() ? value.trim() : undefined;
}

/**
 * A name safe to store and to write to disk: no folders (n8n reads `a/b.pdf` as folder `a`), no
 * control characters, not `.` or `..`, at most MAX_FILE_NAME_LENGTH characters (extension kept).
 */
export function safeFileName(name: unknown): string {
	const last =
		String(name ?? '')
			.split(/[/\\]/)
			.pop() ?? '';
	const cleaned = [...last]
		.filter((char) => char.charCodeAt(0) >= 32 && char.charCodeAt(0) !== 127)
		.join('')
		.trim();
	if (cleaned === '' || /^\.+$/.test(cleaned)) return '';
	if (cleaned.length <= MAX_FILE_NAME_LENGTH) return cleaned;
	const dot = cleaned.lastIndexOf('.');
	const extension = dot > 0 && cleaned.length - dot <= 10 ? cleaned.slice(dot) : '';
	return cleaned.slice(0, MAX_FILE_NAME_LENGTH - extension.length) + extension;
}

/** The last segment of a URL's path, decoded, when it looks like a file name (has a dot). */
function urlFileName(url: string): string {
	try {
		const segment = new URL(url).pathname.split('/').pop() ?? '';
		const decoded = decodeURIComponent(segment);
		return decoded.includes('.') ? decoded : '';
	} catch {
		return '';
	}
}

/** The extension a type usually has ('' when unknown). */
export function extensionOf(mimeType: string): string {
	return EXTENSIONS[mimeType] ?? '';
}

/**
 * MIME type and file name of a download: from the answer (Content-Type, Content-Disposition),
 * else from the message (`mimeType`, `fileName`), else from the link's last path segment, else
 * `<messageId>.<extension>`. A generic answer type (application/octet-stream, binary/octet-stream)
 * gives way to the message's.
 */
export function fileIdentity(
	headers: Record<string, unknown>,
	message: { id: string; fileName?: unknown; mimeType?: unknown; url: string },
): FileIdentity {
	const answered = baseType(headers['content-type']);
	const generic = answered === '' || /^(application|binary)\/octet-stream$/.test(answered);
	const mimeType =
		(generic ? baseType(message.mimeType) || answered : answered) || 'application/octet-stream';
	const named =
		safeFileName(dispositionFileName(headers['content-disposition'])) ||
		safeFileName(message.fileName) ||
		safeFileName(urlFileName(message.url));
	if (named) {
		const extension = extensionOf(mimeType);
		return {
			mimeType,
			fileName: named.includes('.') || !extension ? named : `${named}.${extension}`,
		};
	}
	const extension = extensionOf(mimeType);
	const base = safeFileName(message.id) || 'file';
	return { mimeType, fileName: extension ? `${base}.${extension}` : base };
}
