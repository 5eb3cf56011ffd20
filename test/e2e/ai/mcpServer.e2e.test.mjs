// examples/mcp-server.json, published in a running n8n, as an AI client uses it: n8n's MCP Server
// Trigger serves the example's reading Voice AI and Messenger tool nodes to a real MCP client (the
// official TypeScript SDK) over streamable HTTP and SSE with the bearer token. It serves no tool
// that sends (sending is mcp-server-sends.json's, with a token of its own:
// mcpServerSends.e2e.test.mjs); the tools answer with what the sandbox holds, bad arguments come
// back as errors, and a client without the token is refused. What docs/mcp.md says rests on this
// file. On n8n 1.x: n8n1McpServer.e2e.test.mjs.
import assert from 'node:assert/strict';
import { describe } from 'node:test';

import { suiteOptions } from '../harness.mjs';
import { MCP_CREDENTIAL, exampleSuite } from '../examples/examples.mjs';
import { API, TRANSPORTS, answer, auth, mcpExampleSuite } from './mcpClients.mjs';

const { version, title, it } = suiteOptions(
	"MCP Server Trigger: the reading example's tools for AI clients",
);
const { example } = exampleSuite('ai/mcpServer');

/** The operations of the reading example's tools: each only reads. */
const READING_OPERATIONS = [
	'get',
	'getAll',
	'getData',
	'getBalance',
	'search',
	'checkExisting',
	'getMessages',
];

describe(title, { timeout: 5 * 60_000 }, () => {
	const mcp = mcpExampleSuite({
		version,
		workflow: example('mcp-server.json'),
		credential: MCP_CREDENTIAL,
	});
	const { e2e, token, connect, close, apiRequestsOf, callExpecting } = mcp;

	for (const transport of Object.keys(TRANSPORTS)) {
		it(`${transport}: lists every tool node of the example by its name, with its description and each $fromAI() key as a required string argument; none of them sends`, async () => {
			const client = await connect(transport);
			const names = await mcp.assertListsTools(client);
			assert.equal(names.length, 8, names.join(', '));
			assert.deepEqual(
				mcp.tools
					.filter((n) => !READING_OPERATIONS.includes(n.parameters.operation))
					.map((n) => n.name),
				[],
				'tools that do more than read',
			);
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

	it('bad arguments: an ID the API does not know is answered with the error naming it; an argument of the wrong type or missing is a tool error (isError)', async () => {
		const client = await connect('streamable HTTP');
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
		await close(client);
	});

	it("a send asked of it is a protocol error (Tool not found): it cannot send, whatever a chat's text asks its client's model", async () => {
		const client = await connect('streamable HTTP');
		const before = e2e.sandbox.state.messages.length;
		const args = {
			phone: e2e.sandbox.state.contacts[1].phone,
			url: 'https://example.com/not-sent.pdf',
			mediaType: 'document',
			caption: '',
		};
		for (const name of ['Send_media_to_phone', 'Send_media_to_chat']) {
			const { value: error, api } = await apiRequestsOf(() =>
				client.callTool({ name, arguments: args }).then(
					(result) => assert.fail(`answered: ${JSON.stringify(result)}`),
					(thrown) => thrown,
				),
			);
			assert.deepEqual(api, [], name);
			assert.match(String(error.message), /Tool not found/, name);
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
		await mcp.assertRefused([{}, auth('not-the-token'), { authorization: token }]);
	});
});
