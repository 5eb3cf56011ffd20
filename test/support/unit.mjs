// What the unit suites share: a node run against a scripted API, the contexts the shared helpers
// and the triggers are called with, the table-driven tests every operation file has (one request
// to one endpoint; bad input refused before any request), the Send and Wait parameters, and the
// repository's own files that tests read (README, package.json, scripts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';

import {
	createExecuteContext,
	createLoadOptionsContext,
	createPollContext,
	scriptedHttp,
	TEST_NODE,
} from '../../tools/context.mjs';
import { NodeOperationError } from '../../tools/nodeShared.mjs';

/** The base URL of the scripted API (nothing is sent over a network). */
export const API_URL = 'https://api.example.com';

/** Credentials with pacing off: the tests count requests, and a pacer would only slow them. */
export const UNPACED = Object.freeze({ baseUrl: API_URL, requestsPerMinute: 0 });

/** A file of the repository as text; `path` from the repository root. */
export const readRepoFile = (path) =>
	readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** An execute context for calling the shared helpers (apiRequest, listPages, ...) against `respond`. */
export function scriptedContext(respond, credentials = UNPACED) {
	const { http, calls } = scriptedHttp(respond);
	return { context: createExecuteContext({ params: {}, http, credentials }), calls };
}

/** A load-options context (resource locator searches, dropdowns) against `respond`. */
export function scriptedLoadOptions(respond, credentials = { baseUrl: API_URL }) {
	const { http, calls } = scriptedHttp(respond);
	return { context: createLoadOptionsContext({ credentials, http }), calls };
}

/** A poll context against `respond`; `options` as createPollContext takes them. */
export function scriptedPoll(respond, options) {
	const { http, calls } = scriptedHttp(respond);
	return { ...createPollContext({ credentials: UNPACED, ...options, http }), calls };
}

/**
 * One test per `[name, params, method, url, expected, answer]`: the operation sends one request,
 * `method url` with `expected.body` and `expected.qs` when given, and outputs the answer
 * (`answer`, else `defaultAnswer`) as one item paired with the input.
 */
function itSendsOneRequest(run, cases, defaultAnswer = {}) {
	for (const [name, params, method, url, expected = {}, answer = defaultAnswer] of cases) {
		it(`${name} → ${method} ${url}`, async () => {
			const { output, calls } = await run(params, () => answer);
			assert.equal(calls.length, 1);
			assert.equal(calls[0].method, method);
			assert.equal(calls[0].url, url);
			if ('body' in expected) assert.deepEqual(calls[0].body, expected.body);
			if ('qs' in expected) assert.deepEqual(calls[0].qs, expected.qs);
			assert.deepEqual(output, [{ json: answer, pairedItem: { item: 0 } }]);
		});
	}
}

/**
 * One test per `[params, message, items, description]`: the node refuses the input of item 0 with a
 * NodeOperationError matching `message` (and `description` when given) and sends nothing.
 */
function itRefusesBeforeAnyRequest(run, cases) {
	for (const [params, message, items = [{ json: {} }], description] of cases) {
		it(`${params.resource} ${params.operation}: ${message.source}`, async () => {
			let requests = 0;
			await assert.rejects(
				run(
					params,
					() => {
						requests++;
						return {};
					},
					{ items },
				),
				(error) => {
					assert.ok(error instanceof NodeOperationError, error.constructor.name);
					assert.match(error.message, message);
					if (description) assert.match(error.description, description);
					assert.equal(error.context.itemIndex, 0);
					return true;
				},
			);
			assert.equal(requests, 0);
		});
	}
}

/**
 * A node (`instance`) against a scripted API. `run(params, respond, options)` executes it once with
 * `params` (an object or `(itemIndex) => object`), each request answered by
 * `respond(options, callNumber)`, and resolves to the first output and the requests sent;
 * `options.node` is what getNode() gives, `options.credentials` the credential (paced at the
 * default rate), and `options.prepare(context)` adds what a test needs. The table tests above
 * come with it, bound to `run`: `itSendsOneRequest(cases, answer)`, `itRefusesBeforeAnyRequest(cases)`.
 */
export function scriptedNode(instance) {
	async function run(
		params,
		respond = () => ({}),
		{
			items = [{ json: {} }],
			continueOnFail = false,
			binary,
			stored,
			node = TEST_NODE,
			credentials = { baseUrl: API_URL },
			prepare,
		} = {},
	) {
		const { http, calls } = scriptedHttp(respond);
		const context = createExecuteContext({
			params,
			items,
			http,
			continueOnFail,
			binary,
			stored,
			credentials,
			node,
		});
		prepare?.(context);
		const output = await instance.execute.call(context);
		return { output: output[0], calls };
	}
	return {
		run,
		itSendsOneRequest: (cases, defaultAnswer) => itSendsOneRequest(run, cases, defaultAnswer),
		itRefusesBeforeAnyRequest: (cases) => itRefusesBeforeAnyRequest(run, cases),
	};
}

/** The Messenger node that asks, as getNode() gives it to Send and Wait for Response. */
export const ASKING_NODE = Object.freeze({
	name: 'Ask',
	type: 'n8n-nodes-voice-messaging.messenger',
	typeVersion: 1,
});

/** The link n8n signs for a waiting execution, as the Send and Wait tests hand it to the node. */
export const RESUME_LINK = 'https://n8n.example.com/webhook-waiting/41/node-1?signature=abc';

/** Message → Send and Wait for Response: an approval asked on WhatsApp; `extra` overrides. */
export const approvalParams = (extra = {}) => ({
	resource: 'message',
	operation: 'sendAndWait',
	channel: 'whatsapp',
	phone: '+34 600 123 456',
	message: 'Cancel campaign "Spring"?',
	sendAs: 'text',
	responseType: 'approval',
	approvalOptions: {},
	options: {},
	...extra,
});

/**
 * Gives an execute context what n8n gives a node that puts its execution to wait: a signed link
 * (`RESUME_LINK`, each query asked for kept in `signed`) and the wait (each date kept in `waits`).
 */
export function letWait(context) {
	const waits = [];
	const signed = [];
	context.getSignedResumeUrl = (query = {}) => (signed.push(query), RESUME_LINK);
	context.putExecutionToWait = async (date) => void waits.push(date);
	return { waits, signed };
}

/** The Node.js major version the dev tools need: package.json devEngines.runtime, `>=N`. */
export const devNodeMajor = () =>
	Number(
		/^>=(\d+)$/.exec(JSON.parse(readRepoFile('package.json')).devEngines.runtime.version)?.[1],
	);

/** scripts/ensure-n8n.sh's rule for the Node each n8n line runs on: [rule, 1.x major, 2.x major]. */
export const n8nLineNodeRule = () =>
	/if \[\[ "\$N8N_VERSION" == 1\.\* \]\]; then node_major=(\d+); else node_major=(\d+); fi/.exec(
		readRepoFile('scripts/ensure-n8n.sh'),
	);
