import { createHash } from 'node:crypto';

import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { normalizeBaseUrl } from './baseUrl';
import { exchangeClientCredentials } from './token';

type Exchange = typeof exchangeClientCredentials;
type HttpRequest = Parameters<Exchange>[0];
type ExchangeResult = Awaited<ReturnType<Exchange>>;

interface SharedToken {
	accessToken?: string;
	/** Epoch ms after which the token is not handed out again; undefined: no known expiry. */
	expiresAt?: number;
	inFlight?: Promise<ExchangeResult>;
	/**
	 * Tokens the current one replaced: ours from before, and tokens callers brought to the last
	 * exchanges (another worker's, rejected). A caller that still holds one gets the current token.
	 */
	replaced: Set<string>;
}

/** How many replaced tokens a client remembers (a few per exchange is typical). */
const REPLACED_KEPT = 50;

/** How long before its expiry a token is no longer handed to an execution that lacks one. */
export const EXPIRY_MARGIN_MS = 2_000;

/** Per client (base URL, client id, secret) in this n8n process. */
const shared = new Map<string, SharedToken>();

/** The client a token belongs to; the secret is part of it (hashed), so a new secret is a new client. */
function clientKey(credentials: ICredentialDataDecryptedObject): string {
	return createHash('sha256')
		.update(
			[
				normalizeBaseUrl(credentials.baseUrl),
				String(credentials.clientId ?? '').trim(),
				String(credentials.clientSecret ?? ''),
			].join('\0'),
		)
		.digest('hex');
}

/**
 * The token for n8n's preAuthentication, with at most one exchange in flight per client in this
 * process. n8n calls preAuthentication from every execution that reads an empty token from the
 * credential store, and from every request that met a 401 (with the token that met it): in a
 * busy process (a queue-mode worker runs ten executions at once) those calls come together, and
 * each would cost one of the token endpoint's ten requests a minute. Here:
 * - an exchange for the client is under way: its token;
 * - the caller holds no token, or one that the current token replaced, and the current token is
 *   not about to expire: the current token;
 * - otherwise the caller's token was rejected and this process cannot tell that its own token is
 *   newer (it may be the current one, or another worker's, issued after ours): a new exchange,
 *   which every caller with a replaced token then shares.
 * A failed exchange is not remembered: the next call tries again.
 */
export async function sharedAccessToken(
	request: HttpRequest,
	credentials: ICredentialDataDecryptedObject,
	exchange: Exchange = exchangeClientCredentials,
): Promise<string> {
	const key = clientKey(credentials);
	let entry = shared.get(key);
	if (!entry) {
		entry = { replaced: new Set() };
		shared.set(key, entry);
	}
	if (entry.inFlight) return (await entry.inFlight).accessToken;

	const held = String(credentials.accessToken ?? '');
	const fresh = entry.expiresAt === undefined || entry.expiresAt - Date.now() > EXPIRY_MARGIN_MS;
	if (entry.accessToken && fresh && (held === '' || entry.replaced.has(held))) {
		return entry.accessToken;
	}

	// The caller's token met a 401, or this process holds none that is fresh: exchange, and
	// remember what the new token replaces.
	remember(entry, [held, entry.accessToken]);
	return (await startExchange(entry, () => exchange(request, credentials))).accessToken;
}

/** Notes tokens as replaced by the next exchange, keeping the most recent REPLACED_KEPT. */
function remember(entry: SharedToken, tokens: Array<string | undefined>): void {
	for (const token of tokens) {
		if (!token) continue;
		entry.replaced.delete(token);
		entry.replaced.add(token);
	}
	for (const token of entry.replaced) {
		if (entry.replaced.size <= REPLACED_KEPT) break;
		entry.replaced.delete(token);
	}
}

/** Runs one exchange for the client; every caller meanwhile waits for it. */
function startExchange(
	entry: SharedToken,
	exchange: () => Promise<ExchangeResult>,
): Promise<ExchangeResult> {
	entry.accessToken = undefined;
	entry.expiresAt = undefined;
	entry.inFlight = exchange()
		.then((result) => {
			const seconds = result.expiresInSeconds;
			entry.accessToken = result.accessToken;
			entry.replaced.delete(result.accessToken);
			entry.expiresAt = seconds === undefined ? undefined : Date.now() + seconds * 1000;
			return result;
		})
		.finally(() => {
			entry.inFlight = undefined;
		});
	return entry.inFlight;
}

/** Forgets every shared token (tests). */
export function resetSharedTokens(): void {
	shared.clear();
}
