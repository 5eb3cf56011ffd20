// The Voice AI and Messenger tools called by n8n's AI Agent (3.1 and 2.2) in a running n8n: each
// call asks the API what the tool's operation asks, with the arguments the model chose through
// $fromAI(), and the model gets back what the API answered. On n8n 1.x: n8n1.e2e.test.mjs.
import assert from 'node:assert/strict';
import { describe } from 'node:test';

import { suiteOptions } from '../harness.mjs';
import {
	agentVersions,
	allWith,
	API,
	findWith,
	onlyToolResult,
	useAgentChat,
} from './agentChat.mjs';

const { version, title, it } = suiteOptions('AI Agent: Voice AI and Messenger tool calls');

describe(title, { timeout: 15 * 60_000 }, () => {
	const suite = useAgentChat({ version, prefix: 'e2eAiCalls' });
	const { chat, TOOL } = suite;
	const state = () => suite.sandbox.state;

	for (const agentVersion of agentVersions(version)) {
		const label = `AI Agent ${agentVersion}`;
		const wf = () => suite.workflowIds[agentVersion];

		it(`${label}: Billing → Get Balance: the API is asked, the model gets the balance and answers with it`, async () => {
			const { output, requests, api } = await chat(wf(), 'What is my balance?', [
				{ toolCalls: [{ name: TOOL['Get balance'], arguments: {} }] },
				{ answer: (request) => `Balance: ${request.toolResults.at(-1).content}` },
			]);
			assert.deepEqual(
				api.map((e) => `${e.method} ${e.path} ${e.status}`),
				[`GET ${API}/voice/billing/balance 200`],
			);
			assert.equal(requests.length, 2);
			assert.deepEqual(
				requests[0].tools.map((t) => t.name).sort(),
				Object.values(TOOL).sort(),
				'every tool of the workflow is offered',
			);
			assert.equal(requests[0].question, 'What is my balance?');
			const { text, data } = onlyToolResult(requests, TOOL['Get balance']);
			const { balance } = state();
			assert.deepEqual(findWith(data, 'credit'), {
				credit: balance.credit,
				currency: balance.currency,
				minutes: balance.minutes,
				ratePerMinute: balance.ratePerMinute,
			});
			assert.equal(output, `Balance: ${text}`);
		});

		it(`${label}: Campaign → Get Many with the status the model chose`, async () => {
			const failed = state().campaigns.filter((c) => c.status === 'failed');
			assert.ok(failed.length > 0 && failed.length < 20, `${failed.length} failed campaigns`);
			const { output, requests, api } = await chat(wf(), 'Which campaigns failed?', [
				{ toolCalls: [{ name: TOOL['Get campaigns'], arguments: { status: 'failed' } }] },
				{
					answer: (request) =>
						`Failed: ${allWith(JSON.parse(request.toolResults[0].content), 'status')
							.map((c) => c.name)
							.join(', ')}`,
				},
			]);
			assert.equal(api.length, 1, JSON.stringify(api));
			assert.equal(api[0].path, `${API}/voice/campaigns`);
			assert.equal(api[0].query.status, 'failed');
			const { data } = onlyToolResult(requests, TOOL['Get campaigns']);
			const got = allWith(data, 'agentName');
			assert.deepEqual(got.map((c) => c.id).sort(), failed.map((c) => c.id).sort());
			assert.ok(got.every((c) => c.status === 'failed'));
			assert.equal(output, `Failed: ${got.map((c) => c.name).join(', ')}`);
		});

		it(`${label}: Agent → Get with the ID from $fromAI()`, async () => {
			const agent = state().agents[3];
			const { output, requests, api } = await chat(wf(), `Show me agent ${agent.id}`, [
				{ toolCalls: [{ name: TOOL['Get agent'], arguments: { agentId: agent.id } }] },
				{
					answer: (request) =>
						`Agent: ${findWith(JSON.parse(request.toolResults[0].content), 'provider').name}`,
				},
			]);
			assert.deepEqual(
				api.map((e) => `${e.method} ${e.path} ${e.status}`),
				[`GET ${API}/voice/agents/${agent.id} 200`],
			);
			const { data } = onlyToolResult(requests, TOOL['Get agent']);
			assert.deepEqual(findWith(data, 'provider'), JSON.parse(JSON.stringify(agent)));
			assert.equal(output, `Agent: ${agent.name}`);
		});

		it(`${label}: Contact → Search with the term from $fromAI()`, async () => {
			const term = state().contacts[0].name.split(' ')[1].toLowerCase();
			const expected = state().contacts.filter((c) =>
				[c.name, c.phone, c.email ?? ''].some((field) => field.toLowerCase().includes(term)),
			);
			const { output, requests, api } = await chat(wf(), `Find the contact ${term}`, [
				{ toolCalls: [{ name: TOOL['Search contacts'], arguments: { term } }] },
				{
					answer: (request) =>
						`Found ${allWith(JSON.parse(request.toolResults[0].content), 'phone').length}`,
				},
			]);
			assert.deepEqual(
				api.map((e) => `${e.method} ${e.path} ${e.status}`),
				[`GET ${API}/messenger/contacts/search/${term} 200`],
			);
			const { data } = onlyToolResult(requests, TOOL['Search contacts']);
			assert.deepEqual(
				allWith(data, 'phone')
					.map((c) => c.id)
					.sort(),
				expected.map((c) => c.id).sort(),
			);
			assert.equal(output, `Found ${expected.length}`);
		});

		it(`${label}: Message → Send Media by URL with chat, URL and caption from $fromAI()`, async () => {
			const chatRecord = state().chats.find((c) => c.status === 'open');
			const args = {
				chatId: chatRecord.id,
				url: 'https://example.com/brochure.pdf',
				mediaType: 'document',
				caption: `Our brochure (agent ${agentVersion})`,
			};
			const before = state().messages.length;
			const { output, requests, api } = await chat(wf(), 'Send the brochure to that chat', [
				{ toolCalls: [{ name: TOOL['Send media to chat'], arguments: args }] },
				{
					answer: (request) =>
						`Sent ${findWith(JSON.parse(request.toolResults[0].content), 'chatId').id}`,
				},
			]);
			assert.deepEqual(
				api.map((e) => `${e.method} ${e.path} ${e.status}`),
				[`POST ${API}/messenger/messages/send/media 200`],
			);
			const sent = state().messages.slice(before);
			assert.equal(sent.length, 1);
			assert.equal(sent[0].chatId, chatRecord.id);
			assert.equal(sent[0].type, 'document');
			assert.deepEqual(sent[0].content, { url: args.url, caption: args.caption });
			const { data } = onlyToolResult(requests, TOOL['Send media to chat']);
			assert.equal(findWith(data, 'chatId').id, sent[0].id);
			assert.equal(output, `Sent ${sent[0].id}`);
		});
	}
});
