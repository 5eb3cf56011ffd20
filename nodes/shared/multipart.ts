import { randomBytes } from 'crypto';

/** Bytes as a file's reader yields them (a Buffer, or a Readable's chunks). */
type Chunks = Iterable<Uint8Array> | AsyncIterable<Uint8Array>;

/** The file part of a multipart/form-data body: its size and a way to read it from the start. */
export interface MultipartFile {
	/** Name of the form field that carries the file. */
	fieldName: string;
	fileName: string;
	mimeType: string;
	/** Bytes the reader yields, known before sending: the body's Content-Length depends on it. */
	size: number;
	/** A fresh reader each call: every attempt at sending the body reads the file anew. */
	read: () => Promise<Chunks>;
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

function fileHeader(boundary: string, file: MultipartFile): string {
	const mimeType = file.mimeType.replace(/[\r\n]/g, '') || 'application/octet-stream';
	return `--${boundary}${CRLF}Content-Disposition: form-data; name="${escapeMultipartName(file.fieldName)}"; filename="${escapeMultipartName(file.fileName)}"${CRLF}Content-Type: ${mimeType}${CRLF}${CRLF}`;
}

/**
 * A multipart/form-data body that holds only its text parts: the file is read while the body is
 * sent, and read again from the start whenever the body is sent again (a 429, or n8n renewing an
 * expired token after a 401 and resending the same request). Memory stays at a few chunks of the
 * file whatever its size, where one Buffer of the whole body would cost the file's size again.
 *
 * n8n sends request bodies with axios, which sends a Blob as a stream of `stream()` with
 * `size` as its Content-Length and `type` as its Content-Type, and reads it anew on every send.
 * This object is such a Blob (the WHATWG "blob-like" shape: `size`, `type`, `stream()` and the
 * `Blob` tag) without copying the file into memory, as a real Blob would.
 */
export class MultipartBody {
	readonly size: number;

	readonly type: string;

	readonly #head: Buffer;

	readonly #tail: Buffer;

	readonly #file: MultipartFile | undefined;

	constructor(head: Buffer, tail: Buffer, boundary: string, file?: MultipartFile) {
		this.#head = head;
		this.#tail = tail;
		this.#file = file;
		this.size = head.length + (file?.size ?? 0) + tail.length;
		this.type = `multipart/form-data; boundary=${boundary}`;
	}

	get [Symbol.toStringTag](): string {
		return 'Blob';
	}

	/** The whole body from its first byte: text parts, the file as it is read, the closing line. */
	async *stream(): AsyncGenerator<Buffer> {
		yield this.#head;
		if (this.#file) yield* fileChunks(this.#file);
		yield this.#tail;
	}
}

/** The file's chunks; fails the send when the file turns out longer or shorter than announced. */
async function* fileChunks(file: MultipartFile): AsyncGenerator<Buffer> {
	let sent = 0;
	for await (const chunk of await file.read()) {
		sent += chunk.length;
		if (sent > file.size) break;
		yield Buffer.isBuffer(chunk)
			? chunk
			: Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
	}
	if (sent !== file.size) {
		throw new Error(
			`The file "${file.fileName}" changed while it was sent: it no longer has ${file.size} bytes`,
		);
	}
}

/**
 * A multipart/form-data body: text fields first, in the order given, then the file. The boundary
 * is 128 random bits, as browsers make theirs; the text fields are checked against it, the file
 * is not (it is never all in memory, and a match is next to impossible).
 */
export function buildMultipartBody(
	fields: Array<[string, string]>,
	file?: MultipartFile,
): MultipartBody {
	const values = fields.map(([, value]) => Buffer.from(value, 'utf8'));
	let boundary = newBoundary();
	while (values.some((value) => value.includes(boundary))) boundary = newBoundary();

	const head: Buffer[] = [];
	fields.forEach(([name], index) => {
		head.push(
			Buffer.from(
				`--${boundary}${CRLF}Content-Disposition: form-data; name="${escapeMultipartName(name)}"${CRLF}${CRLF}`,
				'utf8',
			),
			values[index],
			Buffer.from(CRLF, 'utf8'),
		);
	});
	if (file) head.push(Buffer.from(fileHeader(boundary, file), 'utf8'));
	const tail = Buffer.from(`${file ? CRLF : ''}--${boundary}--${CRLF}`, 'utf8');
	return new MultipartBody(Buffer.concat(head), tail, boundary, file);
}

/** The size and reader of bytes already in memory: they are sent as they are, never copied. */
export function bytesInMemory(data: Buffer): Pick<MultipartFile, 'size' | 'read'> {
	return { size: data.length, read: async () => [data] };
}
