import type { ICredentialDataDecryptedObject, IHttpRequestOptions } from 'n8n-workflow';

import { networkCode, networkFailureWords } from '../errorWords';
import { serverMessage, TokenExchangeError } from '../errors';
import { parseJson } from '../validation';
import { normalizeBaseUrl } from './baseUrl';

export const EXCHANGE_ENDPOINT = '/api/v1/auth/token';
/** Longest silence the token exchange waits for: a host that never answers fails it instead. */
export const EXCHANGE_TIMEOUT_MS = 15_000;

type HttpRequest = (options: IHttpRequestOptions) => Promise<unknown>;

interface FullResponse {
	statusCode: number;
	headers?: Record<string, unknown>;
	body?: unknown;
}

/** Seconds until expiry: the JWT's `exp` claim wins over `expires_in` (read, never verified). */
export function tokenLifetimeSeconds(
	accessToken: string,
	expiresIn: unknown,
	now = Date.now(),
): number | undefined {
	const payload = accessToken.split('.')[1];
	if (payload) {
		try {
			const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
				exp?: unknown;
			};
			if (typeof claims.exp === 'number' && Number.isFinite(claims.exp)) {
				return Math.max(0, Math.floor(claims.exp - now / 1000));
			}
		} catch {
			// Not a JWT with a readable payload: fall back to expires_in below.
		}
	}
	const seconds = Number(expiresIn);
	return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

interface TokenAnswer {
	accessToken: string;
	expiresInSeconds?: number;
	scope?: string;
}

/** Base URL, client id and secret from the credential, each checked before anything is sent. */
function clientOf(credentials: ICredentialDataDecryptedObject) {
	const baseUrl = normalizeBaseUrl(credentials.baseUrl);
	const clientId = String(credentials.clientId ?? '').trim();
	const clientSecret = String(credentials.clientSecret ?? '');
	if (!/^https?:\/\/[^\s/]+/i.test(baseUrl)) {
		throw new TokenExchangeError(
			`The credential's Base URL "${baseUrl}" is not an http(s) address. Use e.g. https://api.example.com.`,
		);
	}
	if (!clientId) throw new TokenExchangeError("The credential's Client ID is empty.");
	if (!clientSecret) throw new TokenExchangeError("The credential's Client Secret is empty.");
	return { baseUrl, clientId, clientSecret };
}

/** The token endpoint's answer, of any status; a network failure in words, without the secret. */
async function postExchange(
	request: HttpRequest,
	{ baseUrl, clientId, clientSecret }: ReturnType<typeof clientOf>,
): Promise<FullResponse> {
	let response: FullResponse | undefined;
	let code: string | undefined;
	try {
		response = (await request({
			method: 'POST',
			url: `${baseUrl}${EXCHANGE_ENDPOINT}`,
			body: { client_id: clientId, client_secret: clientSecret },
			headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: EXCHANGE_TIMEOUT_MS,
		})) as FullResponse;
	} catch (error) {
		// Only the error code is kept: the error itself carries the request body with the secret.
		code = networkCode(error);
	}
	if (response === undefined) {
		throw new TokenExchangeError(
			`Could not reach the API at ${baseUrl} to get an access token (${networkFailureWords(code)}). Check the credential's Base URL.`,
			undefined,
			code ? `Network error code: ${code}` : undefined,
			true,
		);
	}
	return response;
}

/** A refusal of the token endpoint in words that say what to do, with the server's own words. */
function refusal(response: FullResponse, baseUrl: string): TokenExchangeError {
	const status = Number(response.statusCode);
	// The server's words go in the description: n8n rewrites messages holding system error codes.
	const said = serverMessage(response.body);
	const description = said ? `The server said: ${said}` : undefined;
	if (status === 401 || status === 400 || status === 403) {
		return new TokenExchangeError(
			`The API rejected the Client ID or Client Secret (HTTP ${status}). Check both values in the credential.`,
			status,
			description,
		);
	}
	if (status === 429) {
		// Only a number of seconds goes into the message: it is the server's data.
		const retryAfter = Number(response.headers?.['retry-after']);
		return new TokenExchangeError(
			`The token endpoint allows 10 requests a minute and that limit is reached${
				Number.isFinite(retryAfter) && retryAfter > 0 ? `; try again in ${retryAfter} s` : ''
			}. Tokens are reused across executions, so this usually means several credentials or n8n instances share one client.`,
			status,
			description,
		);
	}
	return new TokenExchangeError(
		`The token endpoint at ${baseUrl} answered HTTP ${status}.`,
		status,
		description,
	);
}

/**
 * Exchanges the client id and secret for an access token at POST /api/v1/auth/token.
 * Every failure becomes a TokenExchangeError with a plain message: the request body (with the
 * secret) and the answer (with a token) never travel inside an error.
 */
export async function exchangeClientCredentials(
	request: HttpRequest,
	credentials: ICredentialDataDecryptedObject,
): Promise<TokenAnswer> {
	const client = clientOf(credentials);
	const response = await postExchange(request, client);
	const status = Number(response.statusCode);
	if (status < 200 || status >= 300) throw refusal(response, client.baseUrl);
	const body = (
		typeof response.body === 'string' ? parseJson(response.body).parsed : response.body
	) as { access_token?: unknown; expires_in?: unknown; scope?: unknown } | undefined;
	const accessToken = body?.access_token;
	if (typeof accessToken !== 'string' || accessToken === '') {
		throw new TokenExchangeError(
			`The token endpoint at ${client.baseUrl} answered without an access_token. Is the Base URL the Integration API's address?`,
			status,
		);
	}
	return {
		accessToken,
		expiresInSeconds: tokenLifetimeSeconds(accessToken, body?.expires_in),
		scope: typeof body?.scope === 'string' ? body.scope : undefined,
	};
}
