import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { serverMessage } from './token';

/** What the transport knows about a failed request, taken from whatever n8n threw. */
export interface RequestFailure {
	status?: number;
	body?: unknown;
	headers?: Record<string, unknown>;
	/** Network error code (ECONNREFUSED, ETIMEDOUT, ...) when no HTTP answer came. */
	code?: string;
	/** Message of an error that is neither an HTTP answer nor a network failure. */
	otherMessage?: string;
	/** The answer was cut off or otherwise not valid JSON although it looked like JSON. */
	malformed?: boolean;
}

/** Per-call wording for statuses whose meaning depends on the operation. */
export interface ErrorContext {
	/** e.g. 'Agent', 'Campaign': a 404 then says "Agent not found". */
	resource?: string;
	id?: string;
	/** Replaces the generic 409 wording, e.g. "The campaign is already finished". */
	conflictMessage?: string;
	itemIndex?: number;
}

const ROLE_BY_PRODUCT: Record<string, string> = { voice: 'voicebot', messenger: 'messenger' };

/** The product role an endpoint needs, from its path: /api/v1/voice/... needs `voicebot`. */
export function roleForPath(path: string): string | undefined {
	const product = /^\/api\/v1\/([^/?]+)/.exec(path)?.[1];
	return product ? ROLE_BY_PRODUCT[product] : undefined;
}

function statusWording(
	failure: RequestFailure,
	request: { method: string; path: string; baseUrl: string },
	context: ErrorContext,
): string {
	const { path, baseUrl } = request;
	const status = failure.status;
	if (failure.malformed) {
		return request.method === 'GET'
			? 'The API answered with broken JSON, also when asked again. Try again later.'
			: `The API answered with broken JSON (HTTP ${status ?? 200}), so it is not known whether the request was carried out. Check before sending it again.`;
	}
	if (status === undefined) {
		if (failure.code) {
			return `Could not reach the API at ${baseUrl} (${failure.code}). Check the credential's Base URL and that the server is up.`;
		}
		return failure.otherMessage ?? 'The request failed before the API answered.';
	}
	switch (status) {
		case 400:
			return 'The API rejected the request as invalid (400).';
		case 401:
			return 'The API did not accept the access token, even after a new one was requested (401). Check the Client ID and Client Secret in the credential.';
		case 403: {
			const role = roleForPath(path);
			return role
				? `Your workspace's access does not include the "${role}" role that this operation needs (403). Ask the provider to enable it for your client.`
				: 'Your workspace is not allowed to use this endpoint (403).';
		}
		case 404:
			return context.resource
				? `${context.resource} not found${context.id ? `: "${context.id}"` : ''} (404). Check the ID.`
				: 'The API answered "not found" (404).';
		case 409:
			return (
				context.conflictMessage ??
				'The resource is in a state that does not allow this operation (409).'
			);
		case 413:
			return 'The API refused the request because it is too large (413).';
		case 429:
			return 'The API kept answering "too many requests" (429) after several waits. Run fewer requests a minute (the API allows 100 per minute per IP) or try again later.';
		default:
			if (status >= 500)
				return `The API failed to process the request (HTTP ${status}). Try again later.`;
			return `The API answered HTTP ${status}.`;
	}
}

/**
 * One NodeApiError for every failed request. It is built from a plain object holding only the
 * status and the server's message: the original error, which carries the request headers and so
 * the access token, never reaches the execution data.
 */
export function requestFailedError(
	node: INode,
	failure: RequestFailure,
	request: { method: string; path: string; baseUrl: string },
	context: ErrorContext = {},
): NodeApiError {
	const message = statusWording(failure, request, context);
	const said = serverMessage(failure.body);
	const where = `${request.method} ${request.path}`;
	const description = said
		? `The server said: ${said}\n(${where}${failure.status ? `, HTTP ${failure.status}` : ''})`
		: `${where}${failure.status ? ` answered HTTP ${failure.status}` : ' failed'}`;
	const response: JsonObject = { message, description };
	if (failure.status !== undefined) response.httpCode = String(failure.status);
	const error = new NodeApiError(node, response, {
		message,
		description,
		httpCode: failure.status !== undefined ? String(failure.status) : undefined,
		itemIndex: context.itemIndex,
	});
	// NodeApiError swaps a message that mentions a network code (ECONNRESET, ...) for a generic
	// one; ours already says what happened and where, so it is kept.
	error.message = message;
	return error;
}
