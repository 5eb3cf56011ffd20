// Messenger Chat Memory under n8n's own AI Agent (3.1 and 2.2) in a running n8n 2.x, in the
// chatbot of examples/whatsapp-ai-agent.json: the scripted model's requests show the chat's turns
// (the customer's as the user's, the team's answers as the assistant's) and the words being
// answered once, as the prompt; the agent's earlier answer is there on the next turn; a chat the
// API cannot read fails the execution naming the chat. The sandbox does not show broadcasts in the
// chat (its default reading), so the answers the example sends by Broadcast return from the
// customer's contact, where the memory keeps them. On n8n 1.x: n8n1ChatMemory.e2e.test.mjs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe } from 'node:test';

import { Messenger } from '../../../nodes/Messenger/Messenger.node.ts';
import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { sandboxRunner } from '../../../tools/sandboxRun.mjs';
import { withCredentials } from '../../support/agentWorkflows.mjs';
import {
	median,
	ROOT,
	sandboxCredential,
	sandboxModelCredential,
	suiteOptions,
	useSandboxAndN8n,
} from '../harness.mjs';
import { agentVersions } from './agentChat.mjs';

const { version, title, it } = suiteOptions('AI Agent: Messenger Chat Memory');
const EXAMPLE = JSON.parse(readFileSync(join(ROOT, 'examples', 'whatsapp-ai-agent.json'), 'utf8'));
const TRIGGER = 'Customer wrote';
const AGENT = 'WhatsApp assistant';
const MEMORY = 'Chat memory';
const HISTORY = /\/api\/v1\/messenger\/messages\/chat\//;

/** The text of an OpenAI message's content (a string or parts). */
const textOf = (content) =>
	typeof content === 'string' ? content : (content ?? []).map((part) => part.text ?? '').join('');
/** A model request's conversation as `role: text`, the system message left out. */
const turnsOf = (request) =>
	request.messages.filter((m) => m.role !== 'system').map((m) => `${m.role}: ${textOf(m.content)}`);
/** A few milliseconds, so that each message has a time of its own. */
const tick = async () => await new Promise((resolve) => setTimeout(resolve, 5));

describe(title, { timeout: 15 * 60_000 }, () => {
	const credentials = {
		voiceMessagingApi: { id: 'e2eMemoryCred', name: 'e2eMemory client (e2e)' },
		openAiApi: { id: 'e2eMemoryModel', name: 'e2eMemory chat model (e2e)' },
	};
	const e2e = useSandboxAndN8n({
		version,
		sandbox: { broadcastHistory: 'hidden' },
		credentials: (sandbox) => [
			sandboxCredential(credentials.voiceMessagingApi, sandbox, DEMO_CLIENTS.full),
			sandboxModelCredential(credentials.openAiApi, sandbox),
		],
	});
	const workflowId = (agentVersion) => `e2eMemoryAgentV${String(agentVersion).replace('.', '')}`;
	const phoneOf = (agentVersion) => `+346110000${String(agentVersion).replace('.', '')}`;
	const memoryTimes = [];

	/** The example with the suite's credentials, the agent at `agentVersion`, watching `phone`. */
	function exampleFor(id, agentVersion, phone, memoryParameters) {
		return {
			...EXAMPLE,
			id,
			name: `e2e ${EXAMPLE.name} (${id})`,
			nodes: EXAMPLE.nodes.map((node) => {
				const own = withCredentials(node, credentials);
				if (node.name === AGENT) return { ...own, typeVersion: agentVersion };
				if (node.name === TRIGGER)
					return { ...own, parameters: { ...own.parameters, chats: phone } };
				if (node.name === MEMORY && memoryParameters)
					return { ...own, parameters: memoryParameters };
				return own;
			}),
		};
	}

	before(async () => {
		for (const agentVersion of agentVersions(version)) {
			const phone = phoneOf(agentVersion);
			// The chat exists before its workflow reads it: the customer's first words.
			e2e.sandbox.customerWrites({ phone, text: 'Hi, my order is 4711' });
			await e2e.n8n.importWorkflow(exampleFor(workflowId(agentVersion), agentVersion, phone));
		}
	});

	/**
	 * The customer writes `text` and the workflow runs from its trigger as the editor runs it (the
	 * Live Trigger's test event: the chat's newest message from the customer), the model's answer
	 * scripted; resolves to the run, the model's requests and the API requests of the run.
	 */
	async function customerTurn(agentVersion, text, answer) {
		const { sandbox, n8n } = e2e;
		await tick();
		const { chat } = sandbox.customerWrites({ phone: phoneOf(agentVersion), text });
		sandbox.chatModel.reset();
		sandbox.chatModel.script({ answer });
		const mark = sandbox.log.length;
		const run = await n8n.runManually(workflowId(agentVersion), TRIGGER, { timeoutMs: 120_000 });
		assert.equal(run.error, undefined, JSON.stringify(run.error)?.slice(0, 2000));
		const api = sandbox.log.slice(mark).filter((entry) => !entry.path.endsWith('/auth/token'));
		// n8n logs the memory twice an answer (loaded, then saved): its time in this answer is both.
		memoryTimes.push((run.runData[MEMORY] ?? []).reduce((sum, r) => sum + r.executionTime, 0));
		return { run, requests: [...sandbox.chatModel.requests], api, chatId: chat.id };
	}

	for (const agentVersion of agentVersions(version)) {
		it(`AI Agent ${agentVersion}: the model is sent the chat's turns, the prompt once, its own earlier answer on the next turn`, async () => {
			const { sandbox } = e2e;
			const chatId = sandbox.state.chats.find((c) => c.phone === phoneOf(agentVersion)).id;
			// A colleague answers in the chat with a document (the team's turn).
			const team = sandboxRunner(Messenger, sandbox, DEMO_CLIENTS.full, { requestsPerMinute: 0 });
			await tick();
			await team.run({
				resource: 'message',
				operation: 'sendMedia',
				chatId,
				url: 'https://example.com/invoice-4711.pdf',
				mediaType: 'document',
				options: { caption: 'Your invoice', fileName: 'invoice-4711.pdf' },
			});

			const first = await customerTurn(
				agentVersion,
				'It has not arrived',
				'Sorry to hear that. I am checking order 4711.',
			);
			assert.deepEqual(turnsOf(first.requests[0]), [
				'user: Hi, my order is 4711',
				'assistant: [document: invoice-4711.pdf] Your invoice',
				'user: It has not arrived',
			]);
			const history = first.api.filter((e) => HISTORY.test(e.path) && e.path.endsWith(chatId));
			assert.ok(history.length >= 1, JSON.stringify(first.api));
			assert.equal(sandbox.state.sent.at(-1).text, 'Sorry to hear that. I am checking order 4711.');

			const second = await customerTurn(
				agentVersion,
				'Any news?',
				(request) => `You asked about ${/order (\d+)/.exec(JSON.stringify(request.messages))?.[1]}`,
			);
			assert.deepEqual(turnsOf(second.requests[0]), [
				'user: Hi, my order is 4711',
				'assistant: [document: invoice-4711.pdf] Your invoice',
				'user: It has not arrived',
				'assistant: Sorry to hear that. I am checking order 4711.',
				'user: Any news?',
			]);
			assert.equal(sandbox.state.sent.at(-1).text, 'You asked about 4711');
			// Each answer kept on the customer's contact, as the memory's one write of the answer.
			const contact = sandbox.state.contacts.find((c) => c.phone === phoneOf(agentVersion));
			assert.deepEqual(
				JSON.parse(contact.attributes.chatMemoryAnswers).map((answer) => answer.text),
				['Sorry to hear that. I am checking order 4711.', 'You asked about 4711'],
			);
			const contactCalls = second.api.filter((e) => e.path.includes('/messenger/contacts'));
			assert.deepEqual(
				contactCalls.map((e) => e.method),
				['GET', 'PATCH'],
			);
			const memoryReads = (second.run.runData[MEMORY] ?? []).length;
			assert.ok(memoryReads >= 1, 'the memory ran');
		});
	}

	it('a chat the API cannot read fails the execution, naming the chat', async () => {
		const { sandbox, n8n } = e2e;
		const agentVersion = agentVersions(version)[0];
		const id = 'e2eMemoryUnknownChat';
		await n8n.importWorkflow(
			exampleFor(id, agentVersion, phoneOf(agentVersion), { chat: 'cht_unknown', options: {} }),
		);
		sandbox.chatModel.reset();
		const mark = sandbox.log.length;
		const run = await n8n.runManually(id, TRIGGER, { timeoutMs: 120_000 });
		assert.match(JSON.stringify(run.error), /history of chat cht_unknown could not be read/);
		assert.equal(sandbox.chatModel.requests.length, 0, 'the model was not asked');
		assert.deepEqual(
			sandbox.log.slice(mark).filter((e) => e.method === 'POST'),
			[],
			'nothing was sent',
		);
	});

	it('how long the memory takes per answer (run data of the memory node)', () => {
		assert.ok(memoryTimes.length >= 2, `${memoryTimes.length} memory runs`);
		console.log(
			`memory per answer in n8n ${version}: median ${median(memoryTimes)} ms, max ${Math.max(...memoryTimes)} ms over ${memoryTimes.length} answers`,
		);
	});
});
