import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
	ISupplyDataFunctions,
	ITriggerFunctions,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { normalizeBaseUrl } from './auth/baseUrl';
import type { ErrorContext, RequestFailure } from './errors';
import { describeFailure, requestFailedError } from './errors';
import { MultipartBody } from './multipart';
import {
	abortableSleep,
	giveBackRequestSlot,
	requestBudgetOf,
	settleRequestSlot,
	waitForRequestSlot,
} from './pacing';
import type { PollClock } from './pollClock';
import { pollClockOf } from './pollClock';
import { retryAfterMs } from './rateLimitHints';
import { isPathSegment } from './validation';

export const CREDENTIAL_TYPE = 'voiceMessagingApi';

export type RequestContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IPollFunctions
	| IHookFunctions
	| ISupplyDataFunctions;

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
	/**
	 * Longest silence to wait for an answer outside a poll: a host that takes the connection and
	 * never answers fails the request instead of holding the execution for good. A poll waits at
	 * most what is left of its time (pollClock.ts).
	 */
	requestTimeoutMs: 120_000,
};

/**
 * How long one attempt may wait: the request timeout, or within a poll what is left of its time,
 * then also as a hard limit (an abort signal: a trickling answer is cut off too).
 */
export function attemptLimits(clock: PollClock | undefined): {
	timeout: number;
	abortSignal?: AbortSignal;
} {
	if (!clock) return { timeout: retrySettings.requestTimeoutMs };
	const left = Math.max(1, Math.min(retrySettings.requestTimeoutMs, clock.remainingMs()));
	const timeUp = AbortSignal.timeout(left);
	const { stopSignal } = clock;
	return {
		timeout: left,
		abortSignal: stopSignal ? AbortSignal.any([timeUp, stopSignal]) : timeUp,
	};
}

/**
 * Sends one attempt within `limits`, and tells the poll's clock how long it took. A failure with
 * no answer that came at the end of the attempt's time is marked as timed out.
 */
export async function timedAttempt<T extends { failure?: RequestFailure }>(
	clock: PollClock | undefined,
	limits: { timeout: number },
	attempt: () => Promise<T>,
): Promise<T> {
	const started = Date.now();
	const result = await attempt();
	const took = Date.now() - started;
	clock?.noteRead(took);
	const { failure } = result;
	if (failure && failure.status === undefined && took >= limits.timeout * 0.9) {
		failure.timedOutMs = limits.timeout;
	}
	return result;
}

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
	/** A MultipartBody is read anew, from its first byte, for every attempt (see multipart.ts). */
	body?: IDataObject | IDataObject[] | Buffer | MultipartBody;
	headers?: IDataObject;
	/** Wording for 404 and 409 answers. */
	errorContext?: ErrorContext;
	/** Gets the time the API's answer says it was sent (its Date header, in ms), when it says one. */
	answerDate?: (ms: number) => void;
	/** A 404 answers undefined instead of failing: the caller treats the resource as gone. */
	missingAsUndefined?: boolean;
}

/** Milliseconds to wait before the next attempt: Retry-After when given, else backoff with jitter. */
export function retryDelayMs(
	failure: RequestFailure,
	attempt: number,
	random = Math.random,
): number {
	const retryAfter = retryAfterMs(failure.headers, Date.now());
	if (retryAfter !== undefined) {
		// A little spread so that parallel executions do not return in the same millisecond.
		return (
			Math.min(retryAfter, retrySettings.maxRetryAfterMs) +
			Math.floor(random() * retrySettings.retryAfterJitterMs)
		);
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
 * What isPathSegment refuses (`.`, `..`, control characters) is refused here as a last line;
 * operations refuse it earlier with an error that names the field.
 */
export function path(strings: TemplateStringsArray, ...ids: string[]): string {
	let built = '/api/v1';
	strings.forEach((part, index) => {
		built += part;
		if (index < ids.length) {
			const id = String(ids[index]);
			if (!isPathSegment(id)) {
				throw new RangeError(`"${id}" cannot be used as an ID in an API path`);
			}
			built += encodeURIComponent(id);
		}
	});
	return built;
}

/** Requests per minute a credential may send when it does not say (the API's own limit). */
export const DEFAULT_REQUESTS_PER_MINUTE = 100;

/** What the Messenger Live Triggers on one credential may send a minute when it does not say. */
export const DEFAULT_LIVE_REQUESTS_PER_MINUTE = 60;

/**
 * The credential's base URL, its pacing key and budget (one budget per base URL and client), and
 * the share of it the live triggers keep to.
 */
export async function credentialSettings(context: RequestContext | ITriggerFunctions): Promise<{
	baseUrl: string;
	pacingKey: string;
	perMinute: number;
	livePerMinute: number;
}> {
	const credentials = await context.getCredentials<{
		baseUrl?: string;
		clientId?: string;
		requestsPerMinute?: number | string;
		liveRequestsPerMinute?: number | string;
	}>(CREDENTIAL_TYPE);
	const baseUrl = normalizeBaseUrl(credentials.baseUrl);
	const configured = credentials.requestsPerMinute;
	const perMinute =
		configured === undefined || configured === null || configured === ''
			? DEFAULT_REQUESTS_PER_MINUTE
			: Number(configured);
	const live = Number(credentials.liveRequestsPerMinute);
	return {
		baseUrl,
		pacingKey: `${baseUrl}|${String(credentials.clientId ?? '')}`,
		perMinute,
		livePerMinute: Number.isFinite(live) && live > 0 ? live : DEFAULT_LIVE_REQUESTS_PER_MINUTE,
	};
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
	// Following a redirect means keeping every byte sent until the answer comes (to send them
	// again): for a streamed file that is the whole file in memory. The API does not redirect.
	if (options.body instanceof MultipartBody) request.disableFollowRedirect = true;

	const clock = pollClockOf(this);
	const budget = requestBudgetOf(this);
	const where = { method, path, baseUrl };
	for (let attempt = 1; ; attempt++) {
		// A caller with a budget of its own (the live triggers) waits for a turn in it, then in the credential's.
		// A stopped live trigger's wait ends at once, whatever it waits for (a turn, a pause, a retry).
		const stop = clock?.stopSignal;
		const share =
			budget &&
			(await waitForRequestSlot(budget.key, budget.perMinute, clock?.latestStart(), stop));
		// Within the credential, a budget's requests go first: the budget keeps them to its share,
		// and the rest (a workflow's replies) cannot hold up the live reads behind a backlog.
		const slot =
			share === null
				? null
				: await waitForRequestSlot(pacingKey, perMinute, clock?.latestStart(), stop, !!share);
		if (slot === null) {
			giveBackRequestSlot(share);
			stop?.throwIfAborted();
			throw clock?.turnTimeUp(where) ?? new Error('No request slot');
		}
		const limits = attemptLimits(clock);
		const { answer, failure } = await timedAttempt(
			clock,
			limits,
			async () => await sendOnce(this, { ...request, ...limits }, options.answerDate),
		);
		settleRequestSlot(share, failure);
		settleRequestSlot(slot, failure);
		if (!failure) return answer;
		if (clock && failure.timedOutMs !== undefined) throw clock.answerTimeUp(where);
		if (options.missingAsUndefined && failure.status === 404) return undefined;
		const delay = shouldRetry(method, failure, attempt) ? retryDelayMs(failure, attempt) : -1;
		// Within a poll, a failure that lasts past its time is reported now, not after it.
		if (delay < 0 || (clock && !clock.hasRoom(delay))) {
			throw requestFailedError(this.getNode(), failure, where, options.errorContext);
		}
		await waitToRetry(delay, stop);
	}
}

/** A retry's wait: a stopped live trigger's (`stop`) ends at once and throws its AbortError. */
export async function waitToRetry(delayMs: number, stop: AbortSignal | undefined): Promise<void> {
	if (!stop) return await sleep(delayMs);
	await abortableSleep(delayMs, stop).catch(() => undefined);
	stop.throwIfAborted();
}

/** One attempt: the answer, or what went wrong (an HTTP status, a network code, broken JSON). */
async function sendOnce(
	context: RequestContext,
	request: IHttpRequestOptions,
	answerDate?: (ms: number) => void,
): Promise<{ answer?: unknown; failure?: RequestFailure }> {
	try {
		// A fresh copy each time: n8n writes the Authorization header into the options it is given.
		const response: unknown = await context.helpers.httpRequestWithAuthentication.call(
			context,
			CREDENTIAL_TYPE,
			{
				...request,
				headers: { ...(request.headers ?? {}) },
				...(answerDate ? { returnFullResponse: true } : {}),
			},
		);
		const checked = checkedAnswer(answerDate ? bodyOf(response, answerDate) : response);
		return checked.malformed ? { failure: { malformed: true, status: 200 } } : checked;
	} catch (error) {
		return { failure: describeFailure(error) };
	}
}

/** The body of a full response, its Date header handed to `answerDate` (a bare body as it is). */
function bodyOf(response: unknown, answerDate: (ms: number) => void): unknown {
	const full = response as { body?: unknown; headers?: unknown; statusCode?: unknown } | null;
	if (!full || typeof full.statusCode !== 'number' || typeof full.headers !== 'object') {
		return response;
	}
	const date = Date.parse(String((full.headers as Record<string, unknown>)?.date ?? ''));
	if (Number.isFinite(date)) answerDate(date);
	return full.body;
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
