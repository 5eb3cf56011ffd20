import { randomBytes } from 'crypto';

/** The file part of a multipart/form-data body. */
export interface MultipartFile {
	/** Name of the form field that carries the file. */
	fieldName: string;
	fileName: string;
	mimeType: string;
	data: Buffer;
}

const CRLF = '\r\n';

/**
 * A field or file name as RFC 7578 (4.2) and the WHATWG form encoder write it inside a quoted
 * header parameter: `"` becomes %22 and CR/LF become %0D/%0A, so a name can never end the
 * quoted string or start a new header line. No `filename*` (RFC 7578 says not to use it).
 */
export function escapeMultipartName(name: string): string {
	return name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function newBoundary(): string {
	return `----n8nFormBoundary${randomBytes(16).toString('hex')}`;
}

/**
 * A multipart/form-data body as one Buffer, not a stream: when n8n renews an expired token after
 * a 401 it sends the same request options again, and a Buffer can be sent twice where a stream
 * could not. Text fields come first, in the order given, then the file.
 */
export function buildMultipartBody(
	fields: Array<[string, string]>,
	file?: MultipartFile,
): { body: Buffer; contentType: string } {
	const contents: Buffer[] = fields.map(([, value]) => Buffer.from(value, 'utf8'));
	if (file) contents.push(file.data);
	let boundary = newBoundary();
	// A random 32-hex boundary inside the content is next to impossible; checking costs little.
	while (contents.some((content) => content.includes(boundary))) boundary = newBoundary();

	const parts: Buffer[] = [];
	for (const [name, value] of fields) {
		parts.push(
			Buffer.from(
				`--${boundary}${CRLF}Content-Disposition: form-data; name="${escapeMultipartName(name)}"${CRLF}${CRLF}`,
				'utf8',
			),
			Buffer.from(value, 'utf8'),
			Buffer.from(CRLF, 'utf8'),
		);
	}
	if (file) {
		const mimeType = file.mimeType.replace(/[\r\n]/g, '') || 'application/octet-stream';
		parts.push(
			Buffer.from(
				`--${boundary}${CRLF}Content-Disposition: form-data; name="${escapeMultipartName(file.fieldName)}"; filename="${escapeMultipartName(file.fileName)}"${CRLF}Content-Type: ${mimeType}${CRLF}${CRLF}`,
				'utf8',
			),
			file.data,
			Buffer.from(CRLF, 'utf8'),
		);
	}
	parts.push(Buffer.from(`--${boundary}--${CRLF}`, 'utf8'));
	return {
		body: Buffer.concat(parts),
		contentType: `multipart/form-data; boundary=${boundary}`,
	};
}
