import type { Failure, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { keptByN8n, networkFailureWords, serverMessage } from './errorWords';
import { retryAfterMs } from './rateLimitHints';

export { serverMessage };

/** Bad input, found before any request; the message names the field. asNodeError adds the node. */
export class InputError extends Error {
	constructor(
		message: string,
		readonly description?: string,
	) {
		super(message);
		this.name = 'InputError';
	}
}

/**
 * An answer the package cannot use (a list it cannot follow, a field missing or of another
 * type). The message is ours and names what was expected; what came goes in the description,
 * since n8n rewrites a message that contains a system error code (`ratePerMinute` holds `ePerM`).
 */
export class UnexpectedAnswerError extends InputError {
	override name = 'UnexpectedAnswerError';
}

/**
 * The client id and secret could not be exchanged; the message holds no secret. The status is in
 * `httpStatus`, network codes are put in words and the server's words go in `description`:
 * n8n swaps messages that hold a system error code for stock texts.
 */
export class TokenExchangeError extends Error {
	constructor(
		message: string,
		readonly httpStatus?: number,
		readonly description?: string,
		/** The token endpoint was not reached (a network failure): a wait may help. */
		readonly unreachable = false,
	) {
		super(message);
		this.name = 'TokenExchangeError';
	}
}

/** What the transport knows about a failed request, taken from whatever n8n threw. */
export interface RequestFailure {
	status?: number;
	body?: unknown;
	headers?: Record<string, unknown>;
	/** Network error code (ECONNREFUSED, ETIMEDOUT, ...) when no HTTP answer came. */
	code?: string;
	/** Message of an error that is neither an HTTP answer nor a network failure. */
	otherMessage?: string;
	/** More about the failure for the description (never the message): a code, another error's words. */
	detail?: string;
	/** The answer was cut off or otherwise not valid JSON although it looked like JSON. */
	malformed?: boolean;
	/** The token could not be had: the token endpoint's status, or that it was not reached. */
	token?: { status?: number; unreachable?: boolean };
	/** No answer came within this many milliseconds (the attempt's time). */
	timedOutMs?: number;
}

/** Per-call wording for statuses whose meaning depends on the operation. */
export interface ErrorContext {
	/** e.g. 'Agent', 'Campaign': a 404 then says "Agent not found". */
	resource?: string;
	id?: string;
	/** Replaces the generic 409 wording, e.g. "The campaign is already finished". */
	conflictMessage?: string;
}

/** The HTTP answer found in one link of an error chain, if that link carries one. */
function httpAnswer(link: Record<string, unknown>): RequestFailure | undefined {
	const response = link.response as Record<string, unknown> | undefined;
	const status = Number(response?.status ?? response?.statusCode);
	if (!response || !Number.isInteger(status) || status <= 0) return undefined;
	return {
		status,
		body: response.data ?? response.body,
		headers: (response.headers ?? {}) as Record<string, unknown>,
	};
}

/** Reads status, body, headers or network code out of what n8n threw, at any nesting depth. */
export function describeFailure(error: unknown): RequestFailure {
	const chain: Array<Record<string, unknown>> = [];
	let current: unknown = error;
	for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
		chain.push(current as Record<string, unknown>);
		current = (current as { cause?: unknown }).cause;
	}
	for (const link of chain) {
		const answer = httpAnswer(link);
		if (answer) return answer;
	}
	const tokenError = chain.find((link) => link instanceof TokenExchangeError);
	if (tokenError) {
		return {
			otherMessage: String(tokenError.message),
			detail: tokenError.description,
			token: { status: tokenError.httpStatus, unreachable: tokenError.unreachable },
		};
	}
	for (const link of chain) {
		if (typeof link.code === 'string' && /^(E[A-Z_]+|UND_ERR_[A-Z_]+)$/.test(link.code)) {
			return { code: link.code };
		}
	}
	const first = chain[0];
	const httpCode = Number(first?.httpCode);
	if (Number.isInteger(httpCode) && httpCode >= 400) {
		return { status: httpCode, body: first?.description ?? first?.message };
	}
	return { detail: first ? String(first.message ?? 'Unknown error') : String(error) };
}

/**
 * Why a request failed, in the words n8n 2.41's poll scheduler reads on a thrown error (`failure`):
 * a wait helps (rate-limited, temporarily-unavailable), or someone must act (credential-invalid,
 * configuration-invalid). Older n8n ignores it. Undefined: n8n judges by the HTTP status.
 */
export function failureCause(failure: RequestFailure, now = Date.now()): Failure | undefined {
	const status = failure.token ? failure.token.status : failure.status;
	if (status === 429) {
		const wait = retryAfterMs(failure.headers, now);
		return wait === undefined
			? { cause: 'rate-limited' }
			: { cause: 'rate-limited', retryAfterMs: wait };
	}
	if (failure.token) {
		// Refused, an empty client ID, an answer without a token: the credential needs a look.
		return failure.token.unreachable || (status ?? 0) >= 500
			? { cause: 'temporarily-unavailable' }
			: { cause: 'credential-invalid' };
	}
	if (status === 401) return { cause: 'credential-invalid' };
	if (status === 403 || status === 404) return { cause: 'configuration-invalid' };
	if (
		failure.malformed ||
		failure.timedOutMs !== undefined ||
		failure.code ||
		(status ?? 0) >= 500
	) {
		return { cause: 'temporarily-unavailable' };
	}
	return undefined;
}

const ROLE_BY_PRODUCT: Record<string, string> = { voice: 'voicebot', messenger: 'messenger' };

/** The product role an endpoint needs, from its path: /api/v1/voice/... needs `voicebot`. */
export function roleForPath(path: string): string | undefined {
	const product = /^\/api\/v1\/([^/?]+)/.exec(path)?.[1];
	return product ? ROLE_BY_PRODUCT[product] : undefined;
}

/** Wording when no usable HTTP answer came: broken JSON, a network failure, or another error. */
function noAnswerWording(
	failure: RequestFailure,
	request: { method: string; baseUrl: string },
): string {
	if (failure.malformed) {
		return request.method === 'GET'
			? 'The API answered with broken JSON, also when asked again. Try again later.'
			: `The API answered with broken JSON (HTTP ${failure.status ?? 200}), so it is not known whether the request was carried out. Check before sending it again.`;
	}
	if (failure.timedOutMs !== undefined) {
		const seconds = Math.round(failure.timedOutMs / 1000);
		return request.method === 'GET'
			? `The API at ${request.baseUrl} did not answer within ${seconds} s, also when asked again. Check that the server is up, or try again later.`
			: `The API at ${request.baseUrl} did not answer within ${seconds} s, so it is not known whether the request was carried out. Check before sending it again.`;
	}
	if (failure.code) {
		return `Could not reach the API at ${request.baseUrl}: ${networkFailureWords(failure.code)}. Check the credential's Base URL and that the server is up.`;
	}
	return failure.otherMessage ?? 'The request failed before the API answered.';
}

function statusWording(
	failure: RequestFailure,
	request: { method: string; path: string; baseUrl: string },
	context: ErrorContext,
): string {
	const status = failure.status;
	if (failure.malformed || status === undefined) return noAnswerWording(failure, request);
	switch (status) {
		case 400:
			return 'The API rejected the request as invalid (400).';
		case 401:
			return 'The API did not accept the access token, even after a new one was requested (401). Check the Client ID and Client Secret in the credential.';
		case 403: {
			const role = roleForPath(request.path);
			return role
				? `Your workspace's access does not include the "${role}" role that this operation needs (403). Ask the provider to enable it for your client.`
				: 'Your workspace is not allowed to use this endpoint (403).';
		}
		case 404:
			return context.resource
				? `${context.resource} not found${context.id && keptByN8n(context.id) ? `: "${context.id}"` : ''} (404). Check the ID.`
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
	const worded = statusWording(failure, request, context);
	// n8n would swap a message holding a system error code (from a URL, an ID) for a stock text:
	// then the words go to the description and the message says only what failed.
	const message = keptByN8n(worded)
		? worded
		: `The request to the API failed${failure.status ? ` (HTTP ${failure.status})` : ''}.`;
	const said = serverMessage(failure.body);
	const where = `${request.method} ${request.path}`;
	const extra = [
		message === worded ? '' : worded,
		failure.detail ?? '',
		failure.code ? `Network error code: ${failure.code}` : '',
	].filter(Boolean);
	const description =
		(said
			? `The server said: ${said}\n(${where}${failure.status ? `, HTTP ${failure.status}` : ''})`
			: `${where}${failure.status ? ` answered HTTP ${failure.status}` : ' failed'}`) +
		(extra.length ? `\n${extra.join('\n')}` : '');
	const httpCode = failure.status !== undefined ? String(failure.status) : undefined;
	const response: JsonObject = httpCode
		? { message, description, httpCode }
		: { message, description };
	const error = new NodeApiError(node, response, { message, description, httpCode });
	// NodeApiError swaps a message that mentions a network code (ECONNRESET, ...) for a generic
	// one; ours already says what happened and where, so it is kept.
	error.message = message;
	const cause = failureCause(failure);
	if (cause) error.failure = cause;
	return error;
}

/**
 * An error as n8n shows it. n8n's own errors keep their type (wrapping them again is a no-op in
 * n8n-workflow) and gain the item index they lack; bad input and the rest become NodeOperationError.
 */
export function asNodeError(
	node: INode,
	error: unknown,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (itemIndex !== undefined && error.context.itemIndex === undefined) {
			error.context.itemIndex = itemIndex;
		}
		return error;
	}
	if (error instanceof InputError) {
		const shown = new NodeOperationError(node, error.message, {
			itemIndex,
			description: error.description,
		});
		// The message is ours and names a field (perhaps with the value given): n8n shows it as it is.
		shown.message = error.message;
		return shown;
	}
	return new NodeOperationError(node, error as Error, { itemIndex });
}
