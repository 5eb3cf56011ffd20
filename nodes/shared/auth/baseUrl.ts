/**
 * The API's base address as the user typed it, made safe to join with `/api/v1/...`:
 * surrounding spaces, trailing slashes and a pasted `/api/v1` suffix are dropped.
 */
export function normalizeBaseUrl(value: unknown): string {
	return String(value ?? '')
		.trim()
		.replace(/\/+$/, '')
		.replace(/\/api\/v1$/i, '');
}

/** The origin (scheme, host, port) of an address, or undefined when it is no http(s) URL. */
export function originOf(url: string, base?: string): string | undefined {
	try {
		const parsed = base ? new URL(url, base) : new URL(url);
		return /^https?:$/.test(parsed.protocol) ? parsed.origin : undefined;
	} catch {
		return undefined;
	}
}

/** Whether a request (its url, against its baseURL when relative) goes to the API's own origin. */
export function isApiOrigin(credentialBaseUrl: unknown, url: string, baseURL?: string): boolean {
	const api = originOf(normalizeBaseUrl(credentialBaseUrl));
	return api !== undefined && originOf(url, baseURL) === api;
}
