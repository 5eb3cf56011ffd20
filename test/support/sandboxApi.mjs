// Direct calls to a sandbox's API, for tests that set up data before n8n runs and for the
// sandbox's own tests: tokens, one checked call, and a small JSON client that shows every answer.
import assert from 'node:assert/strict';

import { DEMO_CLIENTS, TOKEN_PATH, startSandbox } from '../../sandbox/server.mjs';

/**
 * @typedef {import('../../sandbox/server.mjs').Sandbox} Sandbox
 * @typedef {import('../../sandbox/server.mjs').SandboxOptions} SandboxOptions
 * @typedef {{ clientId: string, clientSecret: string }} Client
 */

/**
 * A sandbox that closes when the test `t` ends.
 * @param {import('node:test').TestContext} t @param {SandboxOptions} [options]
 */
export async function sandboxFor(t, options) {
	const sandbox = await startSandbox(options);
	t.after(() => sandbox.close());
	return sandbox;
}

/**
 * The token endpoint's answer for `client`'s credentials (JSON body), whatever its status.
 * @param {{ url: string }} sandbox @param {Client} [client]
 */
export function requestToken(sandbox, client = DEMO_CLIENTS.full) {
	return fetch(`${sandbox.url}${TOKEN_PATH}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ client_id: client.clientId, client_secret: client.clientSecret }),
	});
}

/**
 * A fresh access token for `client` (one token request).
 * @param {{ url: string }} sandbox @param {Client} [client]
 * @returns {Promise<string>}
 */
export async function token(sandbox, client = DEMO_CLIENTS.full) {
	const response = await requestToken(sandbox, client);
	const body = await response.json();
	assert.equal(response.status, 200, JSON.stringify(body));
	return body.access_token;
}

/** The claims of a JWT the sandbox issued. @param {string} jwt */
export function jwtPayload(jwt) {
	return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
}

/** One API call as `client` (a token request, then the call); resolves to the JSON answer. */
export async function apiCall(sandbox, client, method, path, body) {
	const response = await fetch(`${sandbox.url}${path}`, {
		method,
		headers: {
			authorization: `Bearer ${await token(sandbox, client)}`,
			...(body ? { 'content-type': 'application/json' } : {}),
		},
		body: body ? JSON.stringify(body) : undefined,
	});
	const json = await response.json();
	assert.ok(response.ok, `${method} ${path} → ${response.status}: ${JSON.stringify(json)}`);
	return json;
}

/**
 * A JSON client bound to one sandbox and token (none: no authorization header); it checks
 * nothing, so a test sees every status, header and body. A string body is sent as it is.
 * @param {{ url: string }} sandbox @param {string | undefined} bearer
 */
export function clientOf(sandbox, bearer) {
	/**
	 * @param {string} method @param {string} path @param {unknown} [body]
	 * @returns {Promise<{ status: number, headers: Headers, body: any }>}
	 */
	async function call(method, path, body) {
		/** @type {Record<string, string>} */
		const headers = {};
		if (bearer) headers.authorization = `Bearer ${bearer}`;
		if (body !== undefined) headers['content-type'] = 'application/json';
		const response = await fetch(`${sandbox.url}${path}`, {
			method,
			headers,
			body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
		});
		const text = await response.text();
		return {
			status: response.status,
			headers: response.headers,
			body: text ? JSON.parse(text) : undefined,
		};
	}
	return {
		/** @param {string} path */
		get: (path) => call('GET', path),
		/** @param {string} path @param {unknown} [body] */
		post: (path, body) => call('POST', path, body),
		/** @param {string} path @param {unknown} [body] */
		patch: (path, body) => call('PATCH', path, body),
		/** @param {string} path @param {unknown} [body] */
		put: (path, body) => call('PUT', path, body),
		/** @param {string} path */
		delete: (path) => call('DELETE', path),
	};
}

/**
 * A sandbox for the test `t` and a client with a token of the full demo client.
 * @param {import('node:test').TestContext} t @param {SandboxOptions} [options]
 */
export async function sandboxWithClient(t, options) {
	const sandbox = await sandboxFor(t, options);
	return { sandbox, api: clientOf(sandbox, await token(sandbox)) };
}

/**
 * Sends a multipart form to the media-file endpoint with a bearer token.
 * @param {{ url: string }} sandbox @param {string} bearer @param {FormData} form
 */
export function uploadMediaFile(sandbox, bearer, form) {
	return fetch(`${sandbox.url}/api/v1/messenger/messages/send/media-file`, {
		method: 'POST',
		headers: { authorization: `Bearer ${bearer}` },
		body: form,
	});
}
