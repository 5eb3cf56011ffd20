// What the MCP Server Trigger suites share (mcpServer.e2e.test.mjs, the reading example, and
// mcpServerSends.e2e.test.mjs, the sending one): the run's n8n with one example published behind a
// bearer token of its own, real MCP clients (the official TypeScript SDK) over streamable HTTP and
// SSE, and what a test reads of a call: the sandbox's requests, the tool's answer, the executions.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { toolName } from '../../support/agentWorkflows.mjs';
import {
	isN8n1,
	mcpBearerCredential,
	sandboxCredential,
	useSandboxAndN8n,
	waitFor,
} from '../harness.mjs';
import { CREDENTIAL, nodeOfType } from '../examples/examples.mjs';

export const API = '/api/v1';
export const TRANSPORTS = {
	'streamable HTTP': (url, requestInit) => new StreamableHTTPClientTransport(url, { requestInit }),
	SSE: (url, requestInit) => new SSEClientTransport(url, { requestInit }),
};

/** The headers of a client holding `token`. */
export const auth = (token) => ({ authorization: `Bearer ${token}` });

/** Each `$fromAI('key', 'description')` in a node's parameters: key → description. */
function fromAiKeys(node) {
	const found = [...JSON.stringify(node.parameters).matchAll(/\$fromAI\('([^']+)', '([^']+)'/g)];
	return Object.fromEntries(found.map(([, key, description]) => [key, description]));
}

/** The JSON a tool answered with (its one text part). */
export function answer(result) {
	assert.equal(result.content?.length, 1, JSON.stringify(result));
	assert.equal(result.content[0].type, 'text');
	return JSON.parse(result.content[0].text);
}

/**
 * Called inside describe(): a sandbox and the run's n8n of `version` with the Voice & Messaging
 * credential, the Bearer Auth credential `credential` holding a fresh token, and `workflow` (an MCP
 * example) published and served. Returns the suite's handle: `e2e` (sandbox and n8n), `token`,
 * `workflow`, `trigger`, `tools` (its tool nodes), `url` (its production URL, once before() ran)
 * and the helpers below.
 * @param {{ version: string, workflow: Record<string, any>, credential: { id: string, name: string } }} options
 */
export function mcpExampleSuite({ version, workflow, credential }) {
	const token = `e2e-mcp-${randomUUID()}`;
	const e2e = useSandboxAndN8n({
		version,
		sandbox: { progressIntervalMs: 0 },
		credentials: (sandbox) => [
			sandboxCredential(CREDENTIAL, sandbox, DEMO_CLIENTS.full),
			mcpBearerCredential(credential, token),
		],
	});
	const trigger = nodeOfType(workflow, '@n8n/n8n-nodes-langchain.mcpTrigger');
	/** Clients a test opened and did not close (a failed assertion), closed at the end. */
	const open = new Set();

	const suite = {
		e2e,
		token,
		workflow,
		trigger,
		tools: workflow.nodes.filter((n) => n.type.startsWith('n8n-nodes-voice-messaging.')),
		/** @type {URL} the example's production URL, as the editor shows it */
		url: undefined,

		/** A connected MCP client over `transport` that sends `headers` (by default the token). */
		async connect(transport, headers = auth(token)) {
			const client = new Client({ name: 'e2e-mcp-client', version: '1.0.0' });
			await client.connect(TRANSPORTS[transport](suite.url, { headers }));
			open.add(client);
			return client;
		},
		async close(client) {
			open.delete(client);
			await client.close();
		},

		/** The sandbox's API requests (the token exchange left out) made by `run`, and what it returned. */
		async apiRequestsOf(run) {
			const start = e2e.sandbox.log.length;
			const value = await run();
			const api = e2e.sandbox.log
				.slice(start)
				.filter((entry) => !entry.path.endsWith('/auth/token'))
				.map((entry) => `${entry.method} ${entry.path} ${entry.status}`);
			return { value, api };
		},

		/** Calls `name` with `args` and checks the one API request it made. */
		async callExpecting(client, name, args, request) {
			const { value, api } = await suite.apiRequestsOf(() =>
				client.callTool({ name, arguments: args }),
			);
			assert.deepEqual(api, [request], `${name}(${JSON.stringify(args)})`);
			assert.equal(value.isError, undefined, JSON.stringify(value));
			return answer(value);
		},

		/**
		 * The workflow's executions once their number held for a second and none runs: n8n records a
		 * tool call's execution after the call has answered, so an earlier test's may still come.
		 */
		async settledExecutions() {
			let last = -1;
			return await waitFor(
				async () => {
					const all = await e2e.n8n.executionsOf(workflow.id);
					const settled =
						all.length === last && all.every((e) => !['new', 'running'].includes(e.status));
					last = all.length;
					return settled && all;
				},
				{ timeoutMs: 30_000, intervalMs: 1000, describe: () => 'executions still coming' },
			);
		},

		/**
		 * Checks that `client` lists every tool node of the example by its name, with its description
		 * and each $fromAI() key as a required string argument, and the server's name and
		 * instructions; resolves to the names listed.
		 */
		async assertListsTools(client) {
			assert.equal(client.getServerVersion()?.name, toolName(trigger.name));
			assert.equal(
				client.getInstructions(),
				// n8n 1.x's MCP Server Trigger sends no instructions (the field came with 2.x).
				isN8n1(version) ? undefined : trigger.parameters.instructions,
			);
			const listed = (await client.listTools()).tools;
			const names = listed.map((t) => t.name).sort();
			assert.deepEqual(names, suite.tools.map((n) => toolName(n.name)).sort());
			for (const node of suite.tools) {
				const tool = listed.find((t) => t.name === toolName(node.name));
				assert.equal(tool.description, node.parameters.toolDescription, node.name);
				const keys = fromAiKeys(node);
				assert.equal(tool.inputSchema.type, 'object');
				assert.deepEqual(
					tool.inputSchema.properties,
					Object.fromEntries(
						Object.entries(keys).map(([key, description]) => [
							key,
							{ type: 'string', description },
						]),
					),
					node.name,
				);
				assert.deepEqual(
					[...(tool.inputSchema.required ?? [])].sort(),
					Object.keys(keys).sort(),
					node.name,
				);
			}
			return names;
		},

		/**
		 * Checks that a client sending `headers` is refused (403) over either transport and with a
		 * bare initialize request, and that nothing ran: no API request, no execution.
		 */
		async assertRefused(headersList) {
			const executionsBefore = (await suite.settledExecutions()).length;
			const logBefore = e2e.sandbox.log.length;
			for (const headers of headersList) {
				for (const transport of Object.keys(TRANSPORTS)) {
					const refused = await suite.connect(transport, headers).then(
						(client) =>
							assert.fail(`${transport} connected with ${JSON.stringify(headers)}: ${client}`),
						(error) => error,
					);
					assert.equal(refused.code, 403, `${transport}, ${JSON.stringify(headers)}: ${refused}`);
				}
				const initialize = await fetch(suite.url, {
					method: 'POST',
					headers: {
						...headers,
						'content-type': 'application/json',
						accept: 'application/json, text/event-stream',
					},
					body: JSON.stringify({
						jsonrpc: '2.0',
						id: 1,
						method: 'initialize',
						params: {
							protocolVersion: '2025-03-26',
							capabilities: {},
							clientInfo: { name: 'no-token', version: '1' },
						},
					}),
				});
				assert.equal(initialize.status, 403, JSON.stringify(headers));
				assert.equal(await initialize.text(), 'Authorization data is wrong!');
			}
			assert.equal(e2e.sandbox.log.length, logBefore, 'no API request');
			assert.equal(
				(await e2e.n8n.executionsOf(workflow.id)).length,
				executionsBefore,
				'no execution',
			);
		},
	};

	before(async () => {
		const { n8n } = e2e;
		await n8n.importWorkflow(workflow);
		await n8n.activate(workflow.id);
		const url = new URL(`${n8n.baseUrl}/mcp/${trigger.parameters.path}`);
		suite.url = url;
		// Published workflows' webhooks answer 404 for a moment after the publish.
		await waitFor(
			async () => {
				const response = await fetch(url, { method: 'POST', headers: auth(token), body: '{}' });
				await response.arrayBuffer();
				return response.status !== 404;
			},
			{ timeoutMs: 30_000, intervalMs: 500, describe: () => `${url} is not served` },
		);
	});
	after(() => Promise.allSettled([...open].map((client) => client.close())));
	return suite;
}
