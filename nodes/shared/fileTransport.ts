import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { originOf } from './auth/baseUrl';
import type { RequestFailure } from './errors';
import { describeFailure } from './errors';
import { settleRequestSlot, waitForRequestSlot } from './pacing';
import type { RequestContext } from './transport';
import { CREDENTIAL_TYPE, credentialSettings, retryDelayMs, shouldRetry } from './transport';

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

/**
 * One GET of a file, through n8n's authenticated request: the credential adds the token only
 * for the API's own origin (see the credential's `authenticate`). Requests to that origin share
 * the credential's pacing; 429, 5xx and network errors are tried again as for any GET.
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
	for (let attempt = 1; ; attempt++) {
		const slot = pacing ? await waitForRequestSlot(pacing.key, pacing.perMinute) : undefined;
		let response: { body: BodyStream; headers?: IDataObject } | undefined;
		let failure: RequestFailure | undefined;
		try {
			response = (await context.helpers.httpRequestWithAuthentication.call(
				context,
				CREDENTIAL_TYPE,
				{ ...request, headers: { ...(request.headers ?? {}) } },
			)) as { body: BodyStream; headers?: IDataObject };
		} catch (error) {
			failure = describeFailure(error);
			discard(failure.body);
		}
		settleRequestSlot(slot, failure);
		if (response) return { body: response.body, headers: response.headers ?? {}, url };
		const failed = failure ?? {};
		const redirect = failed.status !== undefined && REDIRECT_STATUSES.has(failed.status);
		if (redirect || !shouldRetry('GET', failed, attempt)) {
			throw new FileRequestError({ ...failed, body: undefined }, url);
		}
		await sleep(retryDelayMs(failed, attempt));
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
