// Test doubles for n8n's execution contexts. The HTTP layer mirrors what n8n-core does in
// httpRequestWithAuthentication (preAuthentication when the token is empty, one refresh and
// resend on 401, errors wrapped in NodeApiError), so nodes meet the same behaviour as in n8n.
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import { Readable, Writable } from 'node:stream';

import { NodeApiError } from './nodeShared.mjs';

import { VoiceMessagingApi } from '../credentials/VoiceMessagingApi.credentials.ts';

export const TEST_NODE = {
	id: 'node-1',
	name: 'Test Node',
	type: 'n8n-nodes-voice-messaging.test',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** An axios-like error, the shape n8n's request helpers throw for an HTTP error answer. */
export function httpError(status, data, headers = {}) {
	const error = new Error(`Request failed with status code ${status}`);
	error.name = 'AxiosError';
	error.response = { status, data, headers };
	error.config = { headers: { Authorization: 'Bearer must-never-leak' } };
	return error;
}

/**
 * An authenticated-request function answered by `respond(options, callNumber)`, with every
 * request kept in `calls` and failures wrapped in a NodeApiError for `node`, as n8n does.
 */
export function scriptedHttp(respond, node = TEST_NODE) {
	const calls = [];
	const http = async (type, options) => {
		calls.push(options);
		try {
			return await respond(options, calls.length);
		} catch (error) {
			throw new NodeApiError(node, error);
		}
	};
	return { http, calls };
}

/** A network failure as n8n's request helpers throw it. */
export function networkError(code = 'ECONNREFUSED') {
	const error = new Error(`connect ${code} 127.0.0.1:9`);
	error.code = code;
	return error;
}

function buildUrl(options) {
	const base = (options.baseURL ?? '').replace(/\/+$/, '');
	const url = new URL(/^https?:/.test(options.url) ? options.url : `${base}${options.url}`);
	for (const [key, value] of Object.entries(options.qs ?? {})) {
		if (value !== undefined) url.searchParams.set(key, String(value));
	}
	return url;
}

/** Whether a body is a Blob to axios (its test: the `Blob` tag), as MultipartBody is. */
const isBlobLike = (body) => Object.prototype.toString.call(body) === '[object Blob]';

/** Writes a Blob-like body's stream() into a request as axios does: chunk by chunk, with backpressure. */
async function writeBlob(request, blob) {
	try {
		for await (const chunk of blob.stream()) {
			if (request.destroyed) return;
			if (!request.write(chunk)) await once(request, 'drain');
		}
		request.end();
	} catch (error) {
		request.destroy(error);
	}
}

/** An error as axios throws it: `code` says what happened (ECONNABORTED: timeout, ERR_CANCELED: aborted). */
const axiosLike = (message, code) => Object.assign(new Error(message), { code });

/**
 * One HTTP exchange with node:http, as axios does it in n8n: a Buffer body is written as it is,
 * not copied; a Blob-like body is streamed from a fresh stream(). `timeout` is axios's: the
 * socket's silence; `signal` aborts the request, and a streamed answer's body with it.
 */
function exchange(url, method, headers, body, stream = false, { timeout, signal } = {}) {
	return new Promise((resolve, reject) => {
		const request = (url.protocol === 'https:' ? https : http).request(
			url,
			{ method, headers },
			(response) => {
				if (stream) {
					resolve({
						status: response.statusCode,
						statusText: response.statusMessage,
						headers: response.headers,
						stream: response,
					});
					return;
				}
				const chunks = [];
				response.on('data', (chunk) => chunks.push(chunk));
				response.on('end', () =>
					resolve({
						status: response.statusCode,
						statusText: response.statusMessage,
						headers: response.headers,
						text: Buffer.concat(chunks).toString('utf8'),
					}),
				);
				response.on('error', reject);
			},
		);
		request.on('error', reject);
		if (timeout) {
			request.setTimeout(timeout, () =>
				request.destroy(axiosLike(`timeout of ${timeout}ms exceeded`, 'ECONNABORTED')),
			);
		}
		if (signal) {
			const abort = () => {
				const error = axiosLike('canceled', 'ERR_CANCELED');
				request.res?.destroy(error);
				request.destroy(error);
			};
			if (signal.aborted) abort();
			else signal.addEventListener('abort', abort, { once: true });
		}
		if (isBlobLike(body)) writeBlob(request, body);
		else request.end(body);
	});
}

/**
 * n8n's httpRequest over real HTTP: json bodies, qs, returnFullResponse, ignoreHttpStatusErrors,
 * `encoding: 'stream'` (the body as the response stream). Like axios with disableFollowRedirect,
 * it never follows a redirect: a 3xx is an error answer with its headers.
 */
export async function fetchHttpRequest(options) {
	const url = buildUrl(options);
	const headers = { ...(options.headers ?? {}) };
	let body = options.body;
	if (isBlobLike(body)) {
		headers['Content-Type'] = body.type;
		headers['Content-Length'] = String(body.size);
	} else if (body !== undefined && !Buffer.isBuffer(body) && typeof body !== 'string') {
		body = JSON.stringify(body);
		if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
			headers['Content-Type'] = 'application/json';
		}
	}
	if (body !== undefined && !isBlobLike(body))
		headers['Content-Length'] = String(Buffer.byteLength(body));
	const stream = options.encoding === 'stream';
	const response = await exchange(url, options.method ?? 'GET', headers, body, stream, {
		timeout: options.timeout,
		signal: options.abortSignal,
	});
	let data = stream ? response.stream : response.text;
	if (!stream) {
		try {
			data = response.text ? JSON.parse(response.text) : '';
		} catch {
			// not JSON: keep the text, as n8n does
		}
	}
	const ok = response.status >= 200 && response.status < 300;
	if (!ok && !options.ignoreHttpStatusErrors) {
		throw httpError(response.status, data, response.headers);
	}
	return options.returnFullResponse
		? {
				body: data,
				headers: response.headers,
				statusCode: response.status,
				statusMessage: response.statusText,
			}
		: data;
}

/**
 * createAuthenticatedHttp for the credential of a sandbox's demo `client` (plus `extra` fields,
 * e.g. requestsPerMinute): one token store, as one credential in n8n.
 */
export function sandboxHttp(sandbox, client, extra = {}) {
	return createAuthenticatedHttp({
		credentials: {
			baseUrl: sandbox.url,
			clientId: client.clientId,
			clientSecret: client.clientSecret,
			...extra,
		},
	});
}

/**
 * A credential store plus n8n's authenticated request flow. `store.data` is the credential as n8n
 * keeps it (the token lands in `accessToken`), `store.preAuthCalls` counts token exchanges.
 */
export function createAuthenticatedHttp({
	credentials,
	httpRequest = fetchHttpRequest,
	node = TEST_NODE,
}) {
	const credentialType = new VoiceMessagingApi();
	const store = { data: { accessToken: '', ...credentials }, preAuthCalls: 0, requests: [] };
	const preAuthenticate = async () => {
		store.preAuthCalls++;
		const output = await credentialType.preAuthentication.call(
			{ helpers: { httpRequest } },
			store.data,
		);
		Object.assign(store.data, output);
	};
	const send = async (options) => {
		// The credential's own authenticate decides, as n8n's credentials helper lets it.
		const authorized = await credentialType.authenticate(store.data, { ...options });
		store.requests.push(authorized);
		return await httpRequest(authorized);
	};
	async function httpRequestWithAuthentication(type, options) {
		if (type !== credentialType.name) throw new Error(`unexpected credential type ${type}`);
		try {
			if (store.data.accessToken === '') await preAuthenticate();
			return await send(options);
		} catch (error) {
			if (error.response?.status === 401) {
				try {
					await preAuthenticate();
					return await send(options);
				} catch (retryError) {
					throw new NodeApiError(node, retryError);
				}
			}
			throw new NodeApiError(node, error);
		}
	}
	return { store, httpRequestWithAuthentication };
}

/** A resource locator set "By ID", as n8n saves one; getNodeParameter with extractValue reads `value`. */
export const byId = (value) => ({ __rl: true, mode: 'id', value });

function resolveParameter(params, name, itemIndex, fallback, options) {
	const source = typeof params === 'function' ? params(itemIndex) : params;
	let value = Object.prototype.hasOwnProperty.call(source, name) ? source[name] : fallback;
	if (value === undefined) throw new Error(`Could not get parameter "${name}"`);
	if (options?.extractValue && value && typeof value === 'object' && value.__rl)
		value = value.value;
	return value;
}

/**
 * An IExecuteFunctions double. `params` is an object or `(itemIndex) => object`; `http` is the
 * authenticated request function (createAuthenticatedHttp(...).httpRequestWithAuthentication).
 * Binary data in memory is base64 in the item (or the Buffer in `binary[property]`); binary data
 * n8n stores outside memory is an item whose binary field has an `id`, and `stored[id]` is
 * `{ bytes, reads }` (`reads` counts getBinaryStream calls).
 */
export function createExecuteContext({
	params,
	items = [{ json: {} }],
	credentials = { baseUrl: 'http://127.0.0.1:9' },
	http,
	continueOnFail = false,
	node = TEST_NODE,
	binary = {},
	stored = {},
	store = binaryStore(),
}) {
	const storedFile = (id) => {
		const file = stored[id];
		if (!file) throw new Error(`no stored binary data ${id}`);
		return file;
	};
	return {
		getInputData: () => items,
		getNode: () => node,
		getNodeParameter: (name, itemIndex, fallback, options) =>
			resolveParameter(params, name, itemIndex, fallback, options),
		getCredentials: async () => credentials,
		continueOnFail: () => continueOnFail,
		logger: { debug() {}, info() {}, warn() {}, error() {} },
		helpers: {
			httpRequestWithAuthentication: http,
			prepareBinaryData: store.prepareBinaryData,
			returnJsonArray: (data) => (Array.isArray(data) ? data : [data]).map((json) => ({ json })),
			constructExecutionMetaData: (inputData, { itemData }) =>
				inputData.map((entry) => ({ ...entry, pairedItem: itemData })),
			assertBinaryData: (itemIndex, property) => {
				const data = items[itemIndex]?.binary?.[property];
				if (!data)
					throw new Error(
						`This operation expects the node's input data to contain a binary file '${property}', but none was found [item ${itemIndex}]`,
					);
				return data;
			},
			getBinaryDataBuffer: async (itemIndex, property) => {
				const data = items[itemIndex].binary[property];
				if (data.id) return Buffer.from(storedFile(data.id).bytes);
				return binary[property] ?? Buffer.from(data.data, 'base64');
			},
			getBinaryMetadata: async (id) => ({ fileSize: storedFile(id).bytes.length }),
			getBinaryStream: async (id) => {
				const file = storedFile(id);
				file.reads++;
				return Readable.from(chunksOf(file.bytes), { objectMode: false });
			},
		},
	};
}

/**
 * n8n's prepareBinaryData as its two kinds of store read a stream: `memory` (n8n's default mode)
 * pipes it into one Buffer; `filesystem` (and S3) iterates it chunk by chunk as fs.writeFile does.
 * The result is the binary data n8n records, with the bytes as base64 for the tests to compare.
 */
export function binaryStore(mode = 'filesystem') {
	const reads = [];
	async function read(data) {
		if (Buffer.isBuffer(data)) return data;
		if (mode === 'memory') {
			return await new Promise((resolve, reject) => {
				const chunks = [];
				const sink = new Writable({
					write(chunk, _encoding, done) {
						chunks.push(chunk);
						done();
					},
				});
				sink.on('finish', () => resolve(Buffer.concat(chunks)));
				data.once('error', reject);
				data.pipe(sink);
			});
		}
		const chunks = [];
		for await (const chunk of data) chunks.push(chunk);
		return Buffer.concat(chunks);
	}
	async function prepareBinaryData(data, filePath, mimeType) {
		// n8n reads the stream after some awaits of its own: nothing may flow before.
		await new Promise((resolve) => setTimeout(resolve, 5));
		const bytes = await read(data);
		const fileName = filePath?.split('/').pop();
		const extension = fileName?.includes('.') ? fileName.split('.').pop() : undefined;
		reads.push({ fileName, mimeType, size: bytes.length });
		return {
			data: bytes.toString('base64'),
			mimeType: mimeType ?? 'text/plain',
			fileName,
			fileExtension: extension,
			fileSize: String(bytes.length),
		};
	}
	return { prepareBinaryData, reads };
}

/** A Buffer in 64 KiB chunks, as a file stream reads it. */
function* chunksOf(bytes) {
	for (let at = 0; at < bytes.length; at += 65536) yield bytes.subarray(at, at + 65536);
}

/** A load-options context (resource locator searches). */
export function createLoadOptionsContext({ credentials, http, node = TEST_NODE }) {
	return {
		getNode: () => node,
		getCredentials: async () => credentials,
		getCurrentNodeParameter: () => undefined,
		helpers: { httpRequestWithAuthentication: http },
	};
}

/** What the poll and trigger doubles share: mode, static data, parameters, credentials, log, helpers. */
function triggerBase({ params, http, credentials, staticData, mode, store, warnings }) {
	return {
		getMode: () => mode,
		getWorkflowStaticData: () => staticData,
		getNodeParameter: (name, fallback) => {
			if (Object.prototype.hasOwnProperty.call(params, name)) return params[name];
			if (fallback === undefined) throw new Error(`Could not get parameter "${name}"`);
			return fallback;
		},
		getCredentials: async () => credentials,
		logger: {
			debug() {},
			info() {},
			warn: (message) => warnings.push(message),
			error: (message) => warnings.push(message),
		},
		helpers: {
			httpRequestWithAuthentication: http,
			prepareBinaryData: store.prepareBinaryData,
			returnJsonArray: (data) => (Array.isArray(data) ? data : [data]).map((json) => ({ json })),
		},
	};
}

/**
 * An IPollFunctions double. `staticData` is the node's static data object (kept by the caller
 * between polls, as n8n keeps it); `mode` is 'trigger' for scheduled polls, 'manual' for
 * "Fetch Test Event"; `warnings` collects what the node logs, `emittedErrors` the failed
 * executions it reports beside its items (`__emitError`). `pollBudgetMs`: what n8n 2.41's
 * `getPollBudgetMs()` gives (undefined: an n8n without it, such as 1.x).
 */
export function createPollContext({
	params,
	http,
	credentials,
	staticData = {},
	mode = 'trigger',
	node = TEST_NODE,
	store = binaryStore(),
	pollBudgetMs,
	workflowId = 'workflow-1',
}) {
	const warnings = [];
	const emittedErrors = [];
	const context = {
		getNode: () => node,
		getWorkflow: () => ({ id: workflowId, name: 'Test Workflow', active: true }),
		...(pollBudgetMs === undefined ? {} : { getPollBudgetMs: () => pollBudgetMs }),
		__emitError: (error) => emittedErrors.push(error),
		...triggerBase({ params, http, credentials, staticData, mode, store, warnings }),
		getActivationMode: () => 'activate',
	};
	return { context, warnings, emittedErrors, staticData };
}

/**
 * An ITriggerFunctions double for a long-running trigger. `emitted` collects each emit's items and
 * the deduplication key given (n8n 2.x), with the static data as it stood at the emit (n8n saves
 * it then); `failed` the failed executions (`saveFailedExecution`, absent with `n8n1`); `activation`
 * is getActivationMode's answer. In 'manual' mode, as in n8n, emit is set only after trigger()
 * returns (`context.emit` replaced by the caller).
 */
export function createTriggerContext({
	params,
	http,
	credentials,
	staticData = {},
	mode = 'trigger',
	activation = 'activate',
	node = TEST_NODE,
	store = binaryStore(),
	workflowId = 'workflow-1',
	n8n1 = false,
}) {
	const emitted = [];
	const failed = [];
	const warnings = [];
	const context = {
		getNode: () => node,
		getWorkflow: () => ({ id: workflowId, name: 'Test Workflow', active: true }),
		...triggerBase({ params, http, credentials, staticData, mode, store, warnings }),
		getActivationMode: () => activation,
		getTimezone: () => 'UTC',
		emit: (data, _response, _done, deduplicationKey) =>
			emitted.push({
				items: data[0],
				deduplicationKey,
				saved: JSON.parse(JSON.stringify(staticData)),
			}),
		emitError: (error) => {
			throw new Error(`emitError deactivates the workflow; not expected here: ${error.message}`);
		},
		...(n8n1 ? {} : { saveFailedExecution: (error) => failed.push(error) }),
	};
	return { context, emitted, failed, warnings, staticData };
}
