// examples/mcp-server-sends.json, published in a running n8n beside nothing else of it: n8n's MCP
// Server Trigger serves Send Media by URL to a chat and Send Media to Phone to a real MCP client
// (the official TypeScript SDK) over streamable HTTP and SSE, behind a bearer token of its own.
// Each send goes out once, a value the node refuses sends nothing, and a client without this
// token (one holding another, such as the reading example's) is refused. docs/mcp.md's "Sending
// media" rests on this file. On n8n 1.x: n8n1McpServerSends.e2e.test.mjs.
import assert from 'node:assert/strict';
import { describe } from 'node:test';

import { DEMO_MCP_TOKEN, suiteOptions, waitFor } from '../harness.mjs';
import { MCP_SEND_CREDENTIAL, exampleSuite } from '../examples/examples.mjs';
import { API, TRANSPORTS, answer, auth, mcpExampleSuite } from './mcpClients.mjs';

const { version, title, it } = suiteOptions(
	"MCP Server Trigger: the sending example's tools, for trusted AI clients",
);
const { example } = exampleSuite('ai/mcpServerSends');

describe(title, { timeout: 5 * 60_000 }, () => {
	const mcp = mcpExampleSuite({
		version,
		workflow: example('mcp-server-sends.json'),
		credential: MCP_SEND_CREDENTIAL,
	});
	const { e2e, connect, close, apiRequestsOf, callExpecting } = mcp;

	for (const transport of Object.keys(TRANSPORTS)) {
		it(`${transport}: lists Send media to chat and to phone, each $fromAI() key a required string argument, and nothing else`, async () => {
			const client = await connect(transport);
			assert.deepEqual(await mcp.assertListsTools(client), [
				'Send_media_to_chat',
				'Send_media_to_phone',
			]);
			await close(client);
		});
	}

	it('over each transport: the sandbox records each file once, and the execution n8n keeps of each call sends nothing again', async () => {
		const { state } = e2e.sandbox;
		const { n8n } = e2e;
		const known = new Set((await mcp.settledExecutions()).map((e) => e.id));
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
		const fresh = async () =>
			(await n8n.executionsOf(mcp.workflow.id)).filter((e) => !known.has(e.id));
		await waitFor(async () => (await fresh()).length >= calls, {
			timeoutMs: 30_000,
			describe: () => `fewer than ${calls} executions\n${n8n.output()}`,
		});
		const executions = (await mcp.settledExecutions()).filter((e) => !known.has(e.id));
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

	it('a value the node refuses is answered with the error naming it, and nothing is sent', async () => {
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
		const [refused] = answer(badPhone.value);
		assert.deepEqual(refused, {
			error: 'Phone "600 12 34" is not a phone number in international format',
			description: refused.description,
		});
		assert.match(refused.description, /\+/);
		assert.equal(e2e.sandbox.state.messages.length, before, 'nothing sent');
		await close(client);
	});

	it("a client without this token, or with another (the reading example's), is refused (403) over either transport, and nothing runs", async () => {
		await mcp.assertRefused([{}, auth(`${mcp.token}-not`), auth(DEMO_MCP_TOKEN)]);
	});
});
