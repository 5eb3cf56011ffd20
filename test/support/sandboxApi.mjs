// Direct calls to a sandbox's API, for tests that set up data before n8n runs.
import assert from 'node:assert/strict';

import { TOKEN_PATH } from '../../sandbox/server.mjs';

/** A fresh access token for `client` (one token request). */
export async function token(sandbox, client) {
	const response = await fetch(`${sandbox.url}${TOKEN_PATH}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ client_id: client.clientId, client_secret: client.clientSecret }),
	});
	const body = await response.json();
	assert.equal(response.status, 200, JSON.stringify(body));
	return body.access_token;
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
