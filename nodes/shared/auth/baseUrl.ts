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
