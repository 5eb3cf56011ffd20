// What the integration tests (test/integration) share: sandboxes started and closed around the
// tests, the nodes and triggers bound to them, and the views of the sandbox log they assert on.
import { after, afterEach, before, beforeEach } from 'node:test';

import { Messenger } from '../../nodes/Messenger/Messenger.node.ts';
import { DEMO_CLIENTS, ENDPOINTS, startSandbox } from '../../sandbox/server.mjs';
import {
	createLoadOptionsContext,
	createPollContext,
	httpError,
	sandboxHttp,
	TEST_NODE,
} from '../../tools/context.mjs';
import { NodeApiError } from '../../tools/nodeShared.mjs';
import { requestsSince, sandboxRunner } from '../../tools/sandboxRun.mjs';

/** A resource locator given by ID, as the editor stores it. */
export const rl = (value) => ({ __rl: true, mode: 'id', value });

/** A value as it travels over JSON (dates as strings, undefined fields gone). */
export const plain = (value) => JSON.parse(JSON.stringify(value));

/**
 * A sandbox on a loopback port for the tests of the enclosing describe, closed after them; with
 * `each`, a fresh one for every test. `onStart(sandbox)` returns fields added to the suite (the
 * runners bound to it). `suite.mark` is the log length when the current test started.
 */
export function sandboxSuite(settings = {}, onStart = () => ({}), { each = false } = {}) {
	const suite = {
		sandbox: undefined,
		mark: 0,
		/** The requests since `suite.mark`, token exchanges left out. */
		apiRequests: () => apiRequestsSince(suite.sandbox, suite.mark),
	};
	(each ? beforeEach : before)(async () => {
		suite.sandbox = await startSandbox({ port: 0, ...settings });
		Object.assign(suite, onStart(suite.sandbox));
	});
	(each ? afterEach : after)(async () => suite.sandbox?.close());
	beforeEach(() => {
		suite.mark = suite.sandbox.log.length;
	});
	return suite;
}

/** Runs `use(sandbox)` against a sandbox of its own, closed afterwards whether it passed or not. */
export async function withSandbox(settings, use) {
	const sandbox = await startSandbox({ port: 0, ...settings });
	try {
		return await use(sandbox);
	} finally {
		await sandbox.close();
	}
}

/** The log entries after `mark` (from `sandbox.log.length`), token exchanges left out. */
export const apiCallsSince = (sandbox, mark) =>
	sandbox.log.slice(mark).filter((e) => !e.path.endsWith('/auth/token'));

/** The same as "METHOD path status" lines. */
const apiRequestsSince = (sandbox, mark) =>
	requestsSince(sandbox, mark).filter((r) => !r.includes('/auth/token'));

/** A node runner with pacing off, for tests where the request budget is not under test. */
export const unpacedRunner = (NodeClass, sandbox, client = DEMO_CLIENTS.full) =>
	sandboxRunner(NodeClass, sandbox, client, { requestsPerMinute: 0 });

/** The context of the editor's dropdowns and pickers, on a runner's credential. */
export const loadOptionsContext = (runner) =>
	createLoadOptionsContext({ credentials: runner.store.data, http: runner.http });

/**
 * A trigger node bound to one sandbox, one credential and one static data object, as n8n keeps
 * them between polls. `poll(mode)` resolves to the emitted items' JSON, their binary data and
 * what the node logged, `emittedErrors` the failed executions it reported beside its items;
 * `params` is read at each poll, so a test may change it between two. `wrapHttp` stands between
 * the node and the sandbox (to fail chosen requests). `pollBudgetMs`: what n8n's
 * getPollBudgetMs() gives (a short poll); `workflowId` keeps watchers of one test apart for the
 * one-poll-at-a-time guard.
 */
export function watcher(
	NodeClass,
	sandbox,
	params,
	{
		client = DEMO_CLIENTS.full,
		credentials = {},
		wrapHttp = (http) => http,
		pollBudgetMs,
		workflowId,
	} = {},
) {
	const trigger = new NodeClass();
	const auth = sandboxHttp(sandbox, client, credentials);
	const http = wrapHttp(auth.httpRequestWithAuthentication);
	const staticData = {};
	const poll = async (mode = 'trigger') => {
		const { context, warnings, emittedErrors } = createPollContext({
			params,
			http,
			credentials: auth.store.data,
			staticData,
			mode,
			pollBudgetMs,
			workflowId,
		});
		const result = await trigger.poll.call(context);
		const emitted = result ? result[0] : [];
		return {
			items: emitted.map((i) => i.json),
			binaries: emitted.map((i) => i.binary),
			warnings,
			emittedErrors,
		};
	};
	return { poll, staticData, auth };
}

/** An API error answer as n8n's request helper throws it, for a `wrapHttp` that fails a request. */
export const apiError = (status, data) => new NodeApiError(TEST_NODE, httpError(status, data));

/** How a sandbox alternative is named in a test: its flags as `name=value` pairs. */
export const flagsLabel = (flags) =>
	Object.entries(flags)
		.map(([k, v]) => `${k}=${v}`)
		.join(', ');

/** The sandbox under the alternatives' tests: no request limits, one seed for every flag. */
export const ALTERNATIVES_SETTINGS = {
	rateLimitPerMinute: 0,
	tokenRateLimitPerMinute: 0,
	seed: 7,
};

export const MESSENGER_API = '/api/v1/messenger';

/**
 * The Messenger node's files: a sandbox without a rate limit, the node as a messenger-only client.
 * `file` names the file's share of MESSENGER_ENDPOINTS_BY_FILE, for `suite.unreachedEndpoints()`.
 */
export function messengerSuite(file) {
	const suite = sandboxSuite({ rateLimitPerMinute: 0 }, (sandbox) => ({
		messenger: sandboxRunner(Messenger, sandbox, DEMO_CLIENTS.messengerOnly),
	}));
	suite.unreachedEndpoints = () =>
		unreachedEndpoints(suite.sandbox, MESSENGER_ENDPOINTS_BY_FILE[file]);
	return suite;
}

export const openChat = (sandbox) => sandbox.state.chats.find((c) => c.status === 'open');

/**
 * The messaging endpoints each test/integration/messenger file calls successfully; together
 * they are every one (messenger.test.mjs holds them to that).
 */
export const MESSENGER_ENDPOINTS_BY_FILE = {
	messages: [
		'GET /messages/whatsapp-numbers',
		'POST /messages/send/media',
		'POST /messages/send/media-to-phone',
		'POST /messages/send/location',
		'GET /messages/{id}',
		'DELETE /messages/{id}/react',
	],
	mediaFiles: ['POST /messages/send/media-file'],
	media: [],
	chats: [
		'GET /chats/check-existing',
		'GET /messages/chat/{chatId}',
		'PATCH /chats/{id}/mark-important',
		'PATCH /chats/{id}/reopen',
	],
	contacts: [
		'POST /contacts',
		'PATCH /contacts/{id}/attributes/{key}',
		'GET /contacts/search/{customer}',
		'GET /contacts/{id}',
		'PUT /contacts/{id}/attributes',
	],
	broadcasts: ['POST /broadcast/messages', 'GET /broadcast/messages/{id}'],
};

/** Every messaging endpoint of the sandbox, as "METHOD path" below MESSENGER_API. */
export const messagingEndpoints = () =>
	ENDPOINTS.filter((e) => e.path.startsWith(`${MESSENGER_API}/`)).map(
		(e) => `${e.method} ${e.path.slice(MESSENGER_API.length)}`,
	);

/** Of `endpoints` ("METHOD path" below MESSENGER_API), those no 2xx request in the log reached. */
function unreachedEndpoints(sandbox, endpoints) {
	const full = (endpoint) => endpoint.replace(' ', ` ${MESSENGER_API}`);
	// `/messages/{id}` must not count a call of the literal `/messages/whatsapp-numbers`.
	const literal = new Set(
		messagingEndpoints()
			.filter((e) => !e.includes('{'))
			.map(full),
	);
	const succeeded = sandbox.log
		.filter((e) => e.status >= 200 && e.status < 300)
		.map((e) => `${e.method} ${e.path}`);
	return endpoints.filter((endpoint) => {
		const pattern = new RegExp(`^${full(endpoint).replace(/\{[^}]+\}/g, '[^/]+')}$`);
		return !succeeded.some(
			(request) => pattern.test(request) && (!endpoint.includes('{') || !literal.has(request)),
		);
	});
}
