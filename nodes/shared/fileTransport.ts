import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import { originOf } from './auth/baseUrl';
import type { RequestFailure } from './errors';
import { describeFailure } from './errors';
import { settleRequestSlot, waitForRequestSlot } from './pacing';
import { pollClockOf } from './pollClock';
import type { RequestContext } from './transport';
import {
	attemptLimits,
	CREDENTIAL_TYPE,
	credentialSettings,
	retryDelayMs,
	shouldRetry,
	timedAttempt,
	waitToRetry,
} from './transport';

/** Most redirects one download follows (browsers allow about 20; storage links use one or two). */
export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** What the package needs of the answer's body stream (a Node Readable, as n8n hands it over). */
export interface BodyStream {
	on(event: 'data', listener: (chunk: Buffer) => void): unknown;
	on(event: 'error', listener: (error: Error) => void): unknown;
	pause(): unknown;
	destroy(error?: Error): unknown;
}

/** A file's answer: its body as a stream (not read yet), its headers and the address that gave it. */
export interface FileAnswer {
	body: BodyStream;
	headers: Record<string, unknown>;
	url: string;
}

/** Why a file could not be fetched: the HTTP failure of the last hop, or a redirect problem. */
export class FileRequestError extends Error {
	constructor(
		readonly failure: RequestFailure,
		readonly url: string,
		readonly redirect?: 'tooMany' | 'notHttp',
	) {
		super(redirect ? `redirect: ${redirect}` : `HTTP ${failure.status ?? failure.code ?? '?'}`);
		this.name = 'FileRequestError';
	}
}

/** Frees the connection of an answer whose body is not read. */
function discard(body: unknown): void {
	if (body && typeof (body as BodyStream).destroy === 'function') (body as BodyStream).destroy();
}

/** An answer n8n handed back as it came (ignoreHttpStatusErrors): a failure unless it is a 2xx. */
function failureOf(response: {
	body: BodyStream;
	headers?: IDataObject;
	statusCode?: number;
}): RequestFailure | undefined {
	const status = Number(response.statusCode ?? 200);
	if (status >= 200 && status < 300) return undefined;
	discard(response.body);
	return { status, headers: (response.headers ?? {}) as Record<string, unknown> };
}

/**
 * One GET of a file, through n8n's authenticated request: the credential adds the token only
 * for the API's own origin (see the credential's `authenticate`). Requests to that origin share
 * the credential's pacing; 429, 5xx and network errors are tried again as for any GET.
 * Answers come back as they are (a redirect with its Location: n8n 1.x keeps no headers of a
 * failed request); a 401 of the API's origin is asked once more as a failing request, which is
 * what makes n8n renew the token.
 */
async function getOnce(
	context: RequestContext,
	url: string,
	pacing: { key: string; perMinute: number } | undefined,
): Promise<FileAnswer> {
	const request: IHttpRequestOptions = {
		method: 'GET',
		url,
		encoding: 'stream',
		returnFullResponse: true,
		// Redirects are followed below, one request each, so that each hop is authenticated (or
		// not) for its own origin.
		disableFollowRedirect: true,
		headers: { Accept: '*/*' },
	};
	let renewed = false;
	let renewing = false;
	const clock = pollClockOf(context);
	const where = { method: 'GET', path: new URL(url).pathname };
	for (let attempt = 1; ; attempt++) {
		const slot = pacing
			? await waitForRequestSlot(
					pacing.key,
					pacing.perMinute,
					clock?.latestStart(),
					clock?.stopSignal,
				)
			: undefined;
		if (slot === null) clock?.stopSignal?.throwIfAborted();
		if (slot === null && clock) throw clock.turnTimeUp(where);
		const limits = attemptLimits(clock);
		const { response, failure } = await timedAttempt<{
			response?: { body: BodyStream; headers?: IDataObject; statusCode?: number };
			failure?: RequestFailure;
		}>(clock, limits, async () => {
			try {
				const answer = (await context.helpers.httpRequestWithAuthentication.call(
					context,
					CREDENTIAL_TYPE,
					{
						...request,
						...limits,
						ignoreHttpStatusErrors: !renewing,
						headers: { ...(request.headers ?? {}) },
					},
				)) as { body: BodyStream; headers?: IDataObject; statusCode?: number };
				return { response: answer, failure: failureOf(answer) };
			} catch (error) {
				const failed = describeFailure(error);
				discard(failed.body);
				return { response: undefined, failure: failed };
			}
		});
		settleRequestSlot(slot, failure);
		if (clock && failure?.timedOutMs !== undefined) throw clock.answerTimeUp(where);
		if (response && !failure) return { body: response.body, headers: response.headers ?? {}, url };
		const failed = failure ?? {};
		if (pacing && failed.status === 401 && !renewed) {
			renewed = renewing = true;
			attempt--;
			continue;
		}
		if (renewing) {
			renewing = false;
			// The renewed request's answer came as an error without its headers (a redirect on
			// n8n 1.x): asked again as it comes, with the new token.
			const headerless = failed.code === undefined && failed.headers === undefined;
			if (headerless || (failed.status !== undefined && REDIRECT_STATUSES.has(failed.status))) {
				attempt--;
				continue;
			}
		}
		const redirect = failed.status !== undefined && REDIRECT_STATUSES.has(failed.status);
		const delay =
			!redirect && shouldRetry('GET', failed, attempt) ? retryDelayMs(failed, attempt) : -1;
		if (delay < 0 || (clock && !clock.hasRoom(delay))) {
			throw new FileRequestError({ ...failed, body: undefined }, url);
		}
		// A stopped live trigger does not wait for the file host.
		await waitToRetry(delay, clock?.stopSignal);
	}
}

/**
 * A file at `url` (absolute, or relative to the credential's base URL), following up to
 * MAX_REDIRECTS redirects. Each hop is its own request: a redirect to another origin goes there
 * without the token.
 */
export async function requestFile(context: RequestContext, url: string): Promise<FileAnswer> {
	const { baseUrl, pacingKey, perMinute } = await credentialSettings(context);
	const apiOrigin = originOf(baseUrl);
	let current = new URL(url, `${baseUrl}/`).href;
	for (let hop = 0; ; hop++) {
		const pacing = originOf(current) === apiOrigin ? { key: pacingKey, perMinute } : undefined;
		let failed: FileRequestError | undefined;
		try {
			return await getOnce(context, current, pacing);
		} catch (error) {
			failed = error as FileRequestError;
		}
		const { status, headers } = failed.failure ?? {};
		const location = headers?.location;
		const redirect = status !== undefined && REDIRECT_STATUSES.has(status);
		if (!redirect || typeof location !== 'string') throw failed;
		if (hop >= MAX_REDIRECTS) throw new FileRequestError(failed.failure, current, 'tooMany');
		const next = new URL(location, current);
		if (!/^https?:$/.test(next.protocol)) {
			throw new FileRequestError(failed.failure, current, 'notHttp');
		}
		current = next.href;
	}
}
