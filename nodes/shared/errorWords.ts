// Words of a failure: the server's own (for descriptions), network codes in ours, and the test
// of whether n8n would show a message as written.

/**
 * Codes n8n-workflow's NodeOperationError and NodeApiError look for anywhere in a message,
 * case-insensitively, to swap the whole message for a stock text ("Operation not permitted, ..."
 * for `ratePerMinute`). A unit test compares this list with the installed n8n-workflow's.
 */
export const N8N_REWRITTEN_CODES = [
	'ECONNREFUSED',
	'ECONNRESET',
	'ENOTFOUND',
	'ETIMEDOUT',
	'ERRADDRINUSE',
	'EADDRNOTAVAIL',
	'ECONNABORTED',
	'EHOSTUNREACH',
	'EAI_AGAIN',
	'ENOENT',
	'EISDIR',
	'ENOTDIR',
	'EACCES',
	'EEXIST',
	'EPERM',
	'GETADDRINFO',
] as const;

/** Whether n8n would show `text` as it is in an error message (it holds none of those codes). */
export function keptByN8n(text: string): boolean {
	const upper = text.toUpperCase();
	return !N8N_REWRITTEN_CODES.some((code) => upper.includes(code));
}

const NETWORK_FAILURES: Record<string, string> = {
	ECONNREFUSED: 'the connection was refused',
	ECONNRESET: 'the connection was closed',
	ENOTFOUND: 'the host name was not found',
	EAI_AGAIN: 'the host name could not be looked up',
	ETIMEDOUT: 'the connection timed out',
	ESOCKETTIMEDOUT: 'the connection timed out',
	ECONNABORTED: 'the connection was aborted',
	EHOSTUNREACH: 'the host is unreachable',
	ENETUNREACH: 'the network is unreachable',
	EPIPE: 'the connection was closed while sending',
	UND_ERR_SOCKET: 'the connection was closed',
	CERT_HAS_EXPIRED: 'its TLS certificate has expired',
	DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
	UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate could not be verified',
};

/** A network error code in words, for a message (the code itself goes in the description). */
export function networkFailureWords(code: string | undefined): string {
	if (code === undefined) return 'no answer';
	return NETWORK_FAILURES[code] ?? 'a network error';
}

/** The network error code carried by an error or its cause, if any. */
export function networkCode(error: unknown): string | undefined {
	const record = (error ?? {}) as { code?: unknown; cause?: { code?: unknown } };
	const code = record.code ?? record.cause?.code;
	return typeof code === 'string' ? code : undefined;
}

/** The server's own words from an error body of any shape, or '' when it said nothing usable. */
export function serverMessage(body: unknown): string {
	if (body === undefined || body === null) return '';
	if (typeof body === 'string') {
		const text = body.trim();
		if (!text) return '';
		try {
			return serverMessage(JSON.parse(text));
		} catch {
			return text.length > 300 ? `${text.slice(0, 300)}…` : text;
		}
	}
	if (Buffer.isBuffer(body)) return serverMessage(body.toString('utf8'));
	if (Array.isArray(body))
		return body
			.map((part) => serverMessage(part))
			.filter(Boolean)
			.join('; ');
	if (typeof body === 'object') {
		const record = body as Record<string, unknown>;
		for (const key of ['message', 'error_description', 'detail', 'error']) {
			const found = serverMessage(record[key]);
			if (found) return found;
		}
		return '';
	}
	return String(body);
}
