import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { normalizeBaseUrl } from './baseUrl';
import type { ErrorContext, RequestFailure } from './errors';
import { requestFailedError } from './errors';
import { waitForRequestSlot } from './pacing';

export const CREDENTIAL_TYPE = 'voiceMessagingApi';

/** The largest page the list endpoints serve. */
export const MAX_PAGE_SIZE = 100;

export type RequestContext =
	IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions | IHookFunctions;

/** How long to wait and how often to try again. Tests shorten the waits. */
export const retrySettings = {
	/** Attempts in all when the API answers 429 (any method: a 429 means nothing was done). */
	rateLimitAttempts: 6,
	/** Attempts in all for a GET that hit a 5xx or a network error. */
	transientAttempts: 3,
	baseDelayMs: 1000,
	maxDelayMs: 30_000,
	/** Longest Retry-After that is honoured as given; longer ones are cut to this. */
	maxRetryAfterMs: 60_000,
	/** Spread added to a Retry-After wait so parallel executions do not return together. */
	retryAfterJitterMs: 250,
};

const TRANSIENT_NETWORK_CODES = new Set([
	'ECONNRESET',
	'ECONNREFUSED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'ECONNABORTED',
	'EPIPE',
	'EAI_AGAIN',
	'ENOTFOUND',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'UND_ERR_SOCKET',
]);

export interface ApiRequestOptions {
	qs?: IDataObject;
	body?: IDataObject | IDataObject[] | Buffer;
	headers?: IDataObject;
	/** Wording for 404/409 and the item the error belongs to. */
	errorContext?: ErrorContext;
}

interface ResponseLike {
	status?: unknown;
	statusCode?: unknown;
	data?: unknown;
	body?: unknown;
	headers?: unknown;
}

function headerValue(headers: unknown, name: string): unknown {
	if (!headers || typeof headers !== 'object') return undefined;
	const record = headers as Record<string, unknown> & { get?: (key: string) => unknown };
	if (typeof record.get === 'function') {
		const viaGet = record.get(name);
		if (viaGet !== undefined && viaGet !== null) return viaGet;
	}
	const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
	return key ? record[key] : undefined;
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
		const response = link.response as ResponseLike | undefined;
		const status = Number(response?.status ?? response?.statusCode);
		if (response && Number.isInteger(status) && status > 0) {
			return {
				status,
				body: response.data ?? response.body,
				headers: (response.headers ?? {}) as Record<string, unknown>,
			};
		}
	}
	for (const link of chain) {
		if (link.name === 'TokenExchangeError') return { otherMessage: String(link.message) };
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
	return { otherMessage: first ? String(first.message ?? 'Unknown error') : String(error) };
}

/** Milliseconds to wait before the next attempt: Retry-After when given, else backoff with jitter. */
export function retryDelayMs(
	failure: RequestFailure,
	attempt: number,
	random = Math.random,
): number {
	const retryAfter = headerValue(failure.headers, 'retry-after');
	if (retryAfter !== undefined && retryAfter !== null && String(retryAfter).trim() !== '') {
		const seconds = Number(retryAfter);
		let ms = Number.isFinite(seconds)
			? seconds * 1000
			: Date.parse(String(retryAfter)) - Date.now();
		if (Number.isFinite(ms)) {
			ms = Math.max(0, ms);
			// A little spread so that parallel executions do not return in the same millisecond.
			return (
				Math.min(ms, retrySettings.maxRetryAfterMs) +
				Math.floor(random() * retrySettings.retryAfterJitterMs)
			);
		}
	}
	const ceiling = Math.min(
		retrySettings.maxDelayMs,
		retrySettings.baseDelayMs * 2 ** (attempt - 1),
	);
	// "Equal jitter": at least half the backoff, so waits still grow, spread over the rest.
	return Math.floor(ceiling / 2 + random() * (ceiling / 2));
}

/** Whether a failed attempt may be sent again without the risk of doing the work twice. */
export function shouldRetry(method: string, failure: RequestFailure, attempt: number): boolean {
	if (failure.status === 429) return attempt < retrySettings.rateLimitAttempts;
	if (method !== 'GET') return false;
	if (failure.malformed) return attempt < retrySettings.transientAttempts;
	const transient =
		(failure.status !== undefined && failure.status >= 500) ||
		(failure.code !== undefined && TRANSIENT_NETWORK_CODES.has(failure.code));
	return transient && attempt < retrySettings.transientAttempts;
}

/**
 * Builds an API path; every interpolated id is percent-encoded, so `a/b`, `?x` or `../auth/token`
 * stays one path segment and can never reach another endpoint: path`/voice/agents/${id}`.
 * A bare `.` or `..` would still be resolved by URL parsing, so it is refused here as a last line;
 * operations refuse it earlier with an error that names the field.
 */
export function path(strings: TemplateStringsArray, ...ids: string[]): string {
	let built = '/api/v1';
	strings.forEach((part, index) => {
		built += part;
		if (index < ids.length) {
			const id = String(ids[index]);
			if (id === '' || id === '.' || id === '..') {
				throw new RangeError(`"${id}" cannot be used as an ID in an API path`);
			}
			built += encodeURIComponent(id);
		}
	});
	return built;
}

/** Requests per minute a credential may send when it does not say (the API's own limit). */
export const DEFAULT_REQUESTS_PER_MINUTE = 100;

async function credentialSettings(
	context: RequestContext,
): Promise<{ baseUrl: string; pacingKey: string; perMinute: number }> {
	const credentials = await context.getCredentials<{
		baseUrl?: string;
		clientId?: string;
		requestsPerMinute?: number | string;
	}>(CREDENTIAL_TYPE);
	const baseUrl = normalizeBaseUrl(credentials.baseUrl);
	const configured = credentials.requestsPerMinute;
	const perMinute =
		configured === undefined || configured === null || configured === ''
			? DEFAULT_REQUESTS_PER_MINUTE
			: Number(configured);
	return { baseUrl, pacingKey: `${baseUrl}|${String(credentials.clientId ?? '')}`, perMinute };
}

/**
 * One API call with the credential's token, paced to the credential's requests-per-minute
 * budget, and retried where that is safe: 429 for every method (honouring Retry-After), 5xx and
 * network errors for GET only, so nothing is sent twice. n8n itself renews the token and resends
 * once when the API answers 401.
 */
export async function apiRequest(
	this: RequestContext,
	method: IHttpRequestMethods,
	path: string,
	options: ApiRequestOptions = {},
): Promise<unknown> {
	const { baseUrl, pacingKey, perMinute } = await credentialSettings(this);
	const request: IHttpRequestOptions = {
		method,
		baseURL: baseUrl,
		url: path,
		json: true,
		headers: { Accept: 'application/json', ...(options.headers ?? {}) },
	};
	if (options.qs && Object.keys(options.qs).length > 0) request.qs = options.qs;
	if (options.body !== undefined) request.body = options.body;

	for (let attempt = 1; ; attempt++) {
		await waitForRequestSlot(pacingKey, perMinute);
		let failure: RequestFailure;
		try {
			// A fresh copy each time: n8n writes the Authorization header into the options it is given.
			const response = await this.helpers.httpRequestWithAuthentication.call(
				this,
				CREDENTIAL_TYPE,
				{
					...request,
					headers: { ...(request.headers ?? {}) },
				},
			);
			const checked = checkedAnswer(response);
			if (!checked.malformed) return checked.answer;
			failure = { malformed: true, status: 200 };
		} catch (error) {
			failure = describeFailure(error);
		}
		if (!shouldRetry(method, failure, attempt)) {
			throw requestFailedError(
				this.getNode(),
				failure,
				{ method, path, baseUrl },
				options.errorContext,
			);
		}
		await sleep(retryDelayMs(failure, attempt));
	}
}

/**
 * A JSON answer as the node passes it on. n8n hands over the raw text when the body does not
 * parse: text that looks like JSON but is cut off is a failure (the caller decides whether it
 * may ask again); other text is wrapped, an empty body becomes an empty object.
 */
export function checkedAnswer(response: unknown): { answer?: unknown; malformed?: true } {
	if (typeof response !== 'string') return { answer: response };
	const text = response.trim();
	if (text === '') return { answer: {} };
	if (text.startsWith('{') || text.startsWith('[')) {
		try {
			return { answer: JSON.parse(text) };
		} catch {
			return { malformed: true };
		}
	}
	return { answer: { data: response } };
}

export interface ListPage {
	items: IDataObject[];
	totalPages?: number;
}

/** A list answer in either shape the API uses: a bare array or `{ items, total, page, totalPages }`. */
export function toListPage(response: unknown): ListPage {
	if (Array.isArray(response)) return { items: response as IDataObject[] };
	if (response && typeof response === 'object') {
		const envelope = response as { items?: unknown; data?: unknown; totalPages?: unknown };
		const items = Array.isArray(envelope.items)
			? envelope.items
			: Array.isArray(envelope.data)
				? envelope.data
				: undefined;
		if (items) {
			const totalPages = Number(envelope.totalPages);
			return {
				items: items as IDataObject[],
				totalPages: Number.isFinite(totalPages) ? totalPages : undefined,
			};
		}
	}
	const empty =
		response === undefined ||
		response === null ||
		response === '' ||
		(typeof response === 'object' && Object.keys(response as object).length === 0);
	return { items: empty ? [] : [response as IDataObject] };
}

/**
 * The page size that fetches `limit` records in the fewest requests without fetching more than
 * needed: 150 records come as two pages of 75, not as 100 + 100.
 */
export function pagePlan(limit: number): { pageSize: number; pages: number } {
	const pages = Math.max(1, Math.ceil(limit / MAX_PAGE_SIZE));
	return { pageSize: Math.max(1, Math.ceil(limit / pages)), pages };
}

/**
 * Every record of a paginated list (Return All follows totalPages to the end with pages of 100),
 * or at most `limit` records in the fewest requests.
 */
export async function apiRequestAllItems(
	this: RequestContext,
	path: string,
	options: ApiRequestOptions & { returnAll: boolean; limit?: number },
): Promise<IDataObject[]> {
	const limit = options.returnAll ? Infinity : Math.max(1, Math.floor(options.limit ?? 50));
	const pageSize = options.returnAll ? MAX_PAGE_SIZE : pagePlan(limit).pageSize;
	const collected: IDataObject[] = [];
	for (let page = 1; ; page++) {
		const response = await apiRequest.call(this, 'GET', path, {
			...options,
			qs: { ...(options.qs ?? {}), page, limit: pageSize },
		});
		const { items, totalPages } = toListPage(response);
		collected.push(...items);
		if (collected.length >= limit) return collected.slice(0, limit);
		// A bare array is the whole list; an envelope says how many pages there are.
		if (totalPages === undefined || page >= totalPages || items.length === 0) return collected;
	}
}
