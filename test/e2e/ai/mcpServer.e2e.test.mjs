// examples/mcp-server.json, published in a running n8n, as an AI client uses it: n8n's MCP Server
// Trigger serves the example's Voice AI and Messenger tool nodes to a real MCP client (the official
// TypeScript SDK) over streamable HTTP and SSE with the bearer token; the tools answer with what
// the sandbox holds, a send goes out once, bad arguments come back as errors, and a client without
// the token is refused. What docs/mcp.md says rests on this file. On n8n 1.x:
// n8n1McpServer.e2e.test.mjs.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { toolName } from '../../support/agentWorkflows.mjs';
import {
	isN8n1,
	mcpBearerCredential,
	sandboxCredential,
	suiteOptions,
	useSandboxAndN8n,
	waitFor,
} from '../harness.mjs';
import { CREDENTIAL, MCP_CREDENTIAL, exampleSuite, nodeOfType } from '../examples/examples.mjs';

const { version, title, it } = suiteOptions(
	"MCP Server Trigger: the example's tools for AI clients",
);
const { example } = exampleSuite('ai/mcpServer');

const API = '/api/v1';
const TRANSPORTS = {
	'streamable HTTP': (url, requestInit) => new StreamableHTTPClientTransport(url, { requestInit }),
	SSE: (url, requestInit) => new SSEClientTransport(url, { requestInit }),
};

/** Each `$fromAI('key', 'description')` in a node's parameters: key → description. */
function fromAiKeys(node) {
	const found = [...JSON.stringify(node.parameters).matchAll(/\$fromAI\('([^']+)', '([^']+)'/g)];
	return Object.fromEntries(found.map(([, key, description]) => [key, description]));
}

/** The JSON a tool answered with (its one text part). */
function answer(result) {
	assert.equal(result.content?.length, 1, JSON.stringify(result));
	assert.equal(result.content[0].type, 'text');
	return JSON.parse(result.content[0].text);
}

describe(title, { timeout: 5 * 60_000 }, () => {
	const token = `e2e-mcp-${randomUUID()}`;
	const e2e = useSandboxAndN8n({
		version,
		sandbox: { progressIntervalMs: 0 },
		credentials: (sandbox) => [
			sandboxCredential(CREDENTIAL, sandbox, DEMO_CLIENTS.full),
			mcpBearerCredential(MCP_CREDENTIAL, token),
		],
	});
	const workflow = example('mcp-server.json');
	const trigger = nodeOfType(workflow, '@n8n/n8n-nodes-langchain.mcpTrigger');
	const tools = workflow.nodes.filter((n) => n.type.startsWith('n8n-nodes-voice-messaging.'));
	/** @type {URL} the example's production URL, as the editor shows it */
	let url;
	const auth = (value) => ({ authorization: `Bearer ${value}` });
	/** Clients a test opened and did not close (a failed assertion), closed at the end. */
	const open = new Set();

	before(async () => {
		const { n8n } = e2e;
		await n8n.importWorkflow(workflow);
		await n8n.activate(workflow.id);
		url = new URL(`${n8n.baseUrl}/mcp/${trigger.parameters.path}`);
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

	/** A connected MCP client over `transport` that sends `headers` (by default the bearer token). */
	async function connect(transport, headers = auth(token)) {
		const client = new Client({ name: 'e2e-mcp-client', version: '1.0.0' });
		await client.connect(TRANSPORTS[transport](url, { headers }));
		open.add(client);
		return client;
	}
	async function close(client) {
		open.delete(client);
		await client.close();
	}

	/** The sandbox's API requests (the token exchange left out) made by `run`, and what it returned. */
	async function apiRequestsOf(run) {
		const start = e2e.sandbox.log.length;
		const value = await run();
		const api = e2e.sandbox.log
			.slice(start)
			.filter((entry) => !entry.path.endsWith('/auth/token'))
			.map((entry) => `${entry.method} ${entry.path} ${entry.status}`);
		return { value, api };
	}

	/**
	 * The workflow's executions once their number held for a second and none runs: n8n records a
	 * tool call's execution after the call has answered, so an earlier test's may still come.
	 */
	async function settledExecutions() {
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
	}

	/** Calls `name` with `args` and checks the one API request it made. */
	async function callExpecting(client, name, args, request) {
		const { value, api } = await apiRequestsOf(() => client.callTool({ name, arguments: args }));
		assert.deepEqual(api, [request], `${name}(${JSON.stringify(args)})`);
		assert.equal(value.isError, undefined, JSON.stringify(value));
		return answer(value);
	}

	for (const transport of Object.keys(TRANSPORTS)) {
		it(`${transport}: lists every tool node of the example by its name, with its description and each $fromAI() key as a required string argument`, async () => {
			const client = await connect(transport);
			assert.equal(client.getServerVersion()?.name, toolName(trigger.name));
			assert.equal(
				client.getInstructions(),
				// n8n 1.x's MCP Server Trigger sends no instructions (the field came with 2.x).
				isN8n1(version) ? undefined : trigger.parameters.instructions,
			);
			const listed = (await client.listTools()).tools;
			assert.deepEqual(listed.map((t) => t.name).sort(), tools.map((n) => toolName(n.name)).sort());
			for (const node of tools) {
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
			await close(client);
		});
	}

	it("streamable HTTP: each reading tool asks the API what its node asks and answers with the sandbox's data", async () => {
		const { state } = e2e.sandbox;
		const client = await connect('streamable HTTP');

		const [balance] = await callExpecting(
			client,
			'Get_balance',
			{},
			`GET ${API}/voice/billing/balance 200`,
		);
		assert.equal(balance.credit, state.balance.credit);
		assert.equal(balance.minutes, state.balance.minutes);

		const failed = state.campaigns.filter((c) => c.status === 'failed');
		assert.ok(failed.length > 0 && failed.length < 20, `${failed.length} failed campaigns`);
		const campaigns = await callExpecting(
			client,
			'Get_campaigns',
			{ status: 'failed' },
			`GET ${API}/voice/campaigns 200`,
		);
		assert.deepEqual(campaigns.map((c) => c.id).sort(), failed.map((c) => c.id).sort());

		const ended = state.campaigns.find((c) => c.status === 'completed');
		const results = await callExpecting(
			client,
			'Get_campaign_results',
			{ campaignId: ended.id },
			`GET ${API}/voice/campaigns/${ended.id}/data 200`,
		);
		const records = state.campaignData.get(ended.id);
		assert.ok(records.length > 0, `campaign ${ended.id} called numbers`);
		assert.deepEqual(
			results.map((r) => [r.phoneNumber, r.status]),
			records.slice(0, 50).map((r) => [r.phoneNumber, r.status]),
		);

		const agents = await callExpecting(client, 'Get_agents', {}, `GET ${API}/voice/agents 200`);
		assert.equal(agents.length, Math.min(20, state.agents.length));
		assert.ok(
			agents.every((a) => state.agents.some((known) => known.id === a.id && known.name === a.name)),
			JSON.stringify(agents).slice(0, 1000),
		);
		const agent = state.agents[2];
		assert.deepEqual(
			await callExpecting(
				client,
				'Get_agent',
				{ agentId: agent.id },
				`GET ${API}/voice/agents/${agent.id} 200`,
			),
			[JSON.parse(JSON.stringify(agent))],
		);

		const chat = state.chats.find((c) => c.status === 'open');
		const contact = state.contacts.find((c) => c.phone === chat.phone);
		const term = contact.name.split(' ')[1].toLowerCase();
		const found = await callExpecting(
			client,
			'Search_contacts',
			{ term },
			`GET ${API}/messenger/contacts/search/${term} 200`,
		);
		assert.deepEqual(
			found.map((c) => c.id),
			state.contacts
				.filter((c) => `${c.name} ${c.phone} ${c.email ?? ''}`.toLowerCase().includes(term))
				.slice(0, 10)
				.map((c) => c.id),
		);
		assert.ok(found.some((c) => c.id === contact.id));

		assert.deepEqual(
			await callExpecting(
				client,
				'Find_chat',
				{ phone: contact.phone },
				`GET ${API}/messenger/chats/check-existing 200`,
			),
			[{ exists: true, chatId: chat.id }],
		);

		const withMessages = state.chats.find((c) => state.messages.some((m) => m.chatId === c.id));
		const messages = await callExpecting(
			client,
			'Get_chat_messages',
			{ chatId: withMessages.id },
			`GET ${API}/messenger/messages/chat/${withMessages.id} 200`,
		);
		const expected = state.messages.filter((m) => m.chatId === withMessages.id);
		assert.ok(messages.length > 0 && messages.length <= 20, `${messages.length} messages`);
		assert.ok(
			messages.every((m) => m.chatId === withMessages.id && expected.some((e) => e.id === m.id)),
			JSON.stringify(messages).slice(0, 1000),
		);
		await close(client);
	});

	it('Send media to phone and to chat, over each transport: the sandbox records each file once, and the execution n8n keeps of each call sends nothing again', async () => {
		const { state } = e2e.sandbox;
		const { n8n } = e2e;
		const known = new Set((await settledExecutions()).map((e) => e.id));
		const contact = state.contacts[1];
		const openChat = state.chats.find((c) => c.status === 'open');
		const sent = [];
		for (const transport of Object.keys(TRANSPORTS)) {
			const client = await connect(transport);
			const file = {
				url: `https://example.com/brochure-${sent.length}.pdf`,
				mediaType: 'document',
			};
			const [toPhone] = await callExpecting(
				client,
				'Send_media_to_phone',
				{ phone: contact.phone, ...file, caption: `Your brochure (${transport})` },
				`POST ${API}/messenger/messages/send/media-to-phone 200`,
			);
			sent.push(toPhone);
			const [toChat] = await callExpecting(
				client,
				'Send_media_to_chat',
				{ chatId: openChat.id, url: `${file.url}?chat`, mediaType: 'image', caption: '' },
				`POST ${API}/messenger/messages/send/media 200`,
			);
			sent.push(toChat);
			await close(client);
		}
		// n8n records an execution of the workflow for each tool call, after the call has answered.
		const calls = sent.length;
		const fresh = async () => (await n8n.executionsOf(workflow.id)).filter((e) => !known.has(e.id));
		await waitFor(async () => (await fresh()).length >= calls, {
			timeoutMs: 30_000,
			describe: () => `fewer than ${calls} executions\n${n8n.output()}`,
		});
		const executions = (await settledExecutions()).filter((e) => !known.has(e.id));
		assert.equal(executions.length, calls, 'one execution per tool call');
		assert.deepEqual(
			executions.map((e) => e.status),
			executions.map(() => 'success'),
		);
		const sends = e2e.sandbox.log.filter(
			(e) => e.method === 'POST' && /\/send\/media/.test(e.path),
		);
		assert.equal(sends.length, calls, 'one send request per call');
		for (const message of sent) {
			const stored = state.messages.filter((m) => m.id === message.id);
			assert.equal(stored.length, 1, message.id);
			assert.equal(stored[0].type, message.type);
		}
		const toPhone = state.messages.filter(
			(m) =>
				m.content?.url?.startsWith('https://example.com/brochure-') &&
				!m.content.url.endsWith('?chat'),
		);
		assert.deepEqual(
			toPhone.map((m) => [state.chats.find((c) => c.id === m.chatId)?.phone, m.content.caption]),
			Object.keys(TRANSPORTS).map((t) => [contact.phone, `Your brochure (${t})`]),
		);
	});

	it('bad arguments: a value the node refuses, or an ID the API does not know, is answered with the error naming it; one of the wrong type or missing is a tool error (isError); neither sends anything', async () => {
		const client = await connect('streamable HTTP');
		const before = e2e.sandbox.state.messages.length;

		// The node checks the value before any request and answers with the error as its output.
		const badPhone = await apiRequestsOf(() =>
			client.callTool({
				name: 'Send_media_to_phone',
				arguments: {
					phone: '600 12 34',
					url: 'https://example.com/brochure.pdf',
					mediaType: 'document',
					caption: '',
				},
			}),
		);
		assert.deepEqual(badPhone.api, [], 'no request');
		assert.equal(badPhone.value.isError, undefined);
		assert.deepEqual(answer(badPhone.value), [
			{
				error: 'Phone "600 12 34" is not a phone number in international format',
				description: answer(badPhone.value)[0].description,
			},
		]);
		assert.match(answer(badPhone.value)[0].description, /\+/);

		const unknown = await apiRequestsOf(() =>
			client.callTool({ name: 'Get_agent', arguments: { agentId: 'agt_missing' } }),
		);
		assert.deepEqual(unknown.api, [`GET ${API}/voice/agents/agt_missing 404`]);
		assert.equal(unknown.value.isError, undefined);
		const [notFound] = answer(unknown.value);
		assert.equal(notFound.error, 'Agent not found: "agt_missing" (404). Check the ID.');
		assert.equal(notFound.httpCode, '404');

		// n8n checks the arguments against the tool's schema before the node runs.
		for (const args of [{}, { agentId: 42 }]) {
			const wrong = await apiRequestsOf(() =>
				client.callTool({ name: 'Get_agent', arguments: args }),
			);
			assert.deepEqual(wrong.api, [], JSON.stringify(args));
			assert.equal(wrong.value.isError, true, JSON.stringify(wrong.value));
			assert.match(wrong.value.content[0].text, /did not match expected schema[^]*agentId/);
		}
		assert.equal(e2e.sandbox.state.messages.length, before, 'nothing sent');
		await close(client);
	});

	it('a tool without parameters (Get balance): a call that leaves out `arguments` is refused by n8n, one with {} is answered', async () => {
		// Why docs/mcp.md tells users of such clients what to do. Should n8n accept it, this fails.
		const client = await connect('streamable HTTP');
		const { value: error, api } = await apiRequestsOf(() =>
			client.callTool({ name: 'Get_balance' }).then(
				(result) => assert.fail(`answered: ${JSON.stringify(result)}`),
				(thrown) => thrown,
			),
		);
		assert.deepEqual(api, []);
		assert.match(String(error.message), /Require a name and arguments for the tool call/);
		const [balance] = answer(await client.callTool({ name: 'Get_balance', arguments: {} }));
		assert.equal(balance.credit, e2e.sandbox.state.balance.credit);
		await close(client);
	});

	it('a client without the token, or with another, is refused (403) over either transport, and nothing runs', async () => {
		const { n8n } = e2e;
		const executionsBefore = (await settledExecutions()).length;
		const logBefore = e2e.sandbox.log.length;
		for (const transport of Object.keys(TRANSPORTS)) {
			for (const headers of [{}, auth('not-the-token')]) {
				const refused = await connect(transport, headers).then(
					(client) =>
						assert.fail(`${transport} connected with ${JSON.stringify(headers)}: ${client}`),
					(error) => error,
				);
				assert.equal(refused.code, 403, `${transport}, ${JSON.stringify(headers)}: ${refused}`);
			}
		}
		for (const headers of [{}, auth('not-the-token'), { authorization: token }]) {
			const initialize = await fetch(url, {
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
		assert.equal((await n8n.executionsOf(workflow.id)).length, executionsBefore, 'no execution');
	});
});
