// Messenger Chat Memory under n8n's own AI Agent (3.1 and 2.2) in a running n8n 2.x, in the
// chatbot of examples/whatsapp-ai-agent.json: the scripted model's requests show the chat's turns
// (the customer's as the user's, the team's answers as the assistant's) and the words being
// answered once, as the prompt; the agent's earlier answer is there on the next turn; one history
// request per answer; a chat the API cannot read fails the execution naming the chat. The sandbox
// shows broadcasts in the chat (--broadcast-history shown), so the answers the example sends
// return. On n8n 1.x: n8n1ChatMemory.e2e.test.mjs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe } from 'node:test';

import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { withCredentials } from '../../support/agentWorkflows.mjs';
import {
	isN8n1,
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
		sandbox: { broadcastHistory: 'shown' },
		credentials: (sandbox) => [
			sandboxCredential(credentials.voiceMessagingApi, sandbox, DEMO_CLIENTS.full),
			sandboxModelCredential(credentials.openAiApi, sandbox),
		],
	});
	const workflowId = (agentVersion) => `e2eMemoryAgentV${String(agentVersion).replace('.', '')}`;
	const memoryTimes = [];

	before(async () => {
		for (const agentVersion of agentVersions(version)) {
			await e2e.n8n.importWorkflow({
				...EXAMPLE,
				id: workflowId(agentVersion),
				name: `e2e ${EXAMPLE.name} (agent ${agentVersion})`,
				nodes: EXAMPLE.nodes.map((node) => {
					const own = withCredentials(node, credentials);
					return node.name === AGENT ? { ...own, typeVersion: agentVersion } : own;
				}),
			});
		}
	});

	/**
	 * The customer writes `texts` (held until a pause: one item, as the example's trigger gives it)
	 * and the workflow runs from that item with the model's answer scripted; resolves to the
	 * model's requests, the API requests of the run and the memory node's time.
	 */
	async function customerTurn(agentVersion, phone, texts, answer) {
		const { sandbox, n8n } = e2e;
		const written = [];
		for (const text of texts) {
			await tick();
			written.push(sandbox.customerWrites({ phone, text }));
		}
		const messages = written.map(({ items: [m] }) => m);
		const item = {
			chatId: written[0].chat.id,
			phone,
			messageCount: messages.length,
			text: texts.join('\n'),
			firstAt: messages[0].createdAt,
			lastAt: messages.at(-1).createdAt,
			messageIds: messages.map((m) => m.id),
		};
		sandbox.chatModel.reset();
		sandbox.chatModel.script({ answer });
		const mark = sandbox.log.length;
		const run = await n8n.runManually(workflowId(agentVersion), TRIGGER, {
			timeoutMs: 120_000,
			triggerItems: [item],
		});
		const api = sandbox.log.slice(mark).filter((entry) => !entry.path.endsWith('/auth/token'));
		const memoryRuns = run.runData[MEMORY] ?? [];
		memoryTimes.push(...memoryRuns.map((r) => r.executionTime));
		return { run, requests: [...sandbox.chatModel.requests], api, chatId: item.chatId };
	}

	for (const agentVersion of agentVersions(version)) {
		it(`AI Agent ${agentVersion}: the model is sent the chat's turns, the prompt once, its own earlier answer on the next turn`, async () => {
			const phone = agentVersion === 3.1 ? '+34611000031' : '+34611000022';
			const first = await customerTurn(
				agentVersion,
				phone,
				['Hi, my order is 4711', 'It has not arrived'],
				'Sorry to hear that. I am checking order 4711.',
			);
			assert.equal(first.run.error, undefined, JSON.stringify(first.run.error)?.slice(0, 2000));
			assert.deepEqual(turnsOf(first.requests[0]), [
				'user: Hi, my order is 4711\nIt has not arrived',
			]);
			assert.deepEqual(
				first.api.map(
					(e) => `${e.method} ${HISTORY.test(e.path) ? 'history' : e.path} ${e.status}`,
				),
				['GET history 200', 'POST /api/v1/messenger/broadcast/messages 200'],
			);
			assert.equal(
				e2e.sandbox.state.sent.at(-1).text,
				'Sorry to hear that. I am checking order 4711.',
			);

			const second = await customerTurn(
				agentVersion,
				phone,
				['Any news?'],
				(request) => `You asked about ${/order (\d+)/.exec(JSON.stringify(request.messages))?.[1]}`,
			);
			assert.equal(second.run.error, undefined, JSON.stringify(second.run.error)?.slice(0, 2000));
			assert.deepEqual(turnsOf(second.requests[0]), [
				'user: Hi, my order is 4711',
				'user: It has not arrived',
				'assistant: Sorry to hear that. I am checking order 4711.',
				'user: Any news?',
			]);
			assert.equal(second.api.filter((e) => HISTORY.test(e.path)).length, 1);
			assert.equal(e2e.sandbox.state.sent.at(-1).text, 'You asked about 4711');
			const otherChat = e2e.sandbox.state.messages.filter((m) => m.chatId !== second.chatId);
			for (const message of otherChat) {
				assert.ok(
					!JSON.stringify(second.requests).includes(`"${textOf(message.content)}"`) ||
						textOf(message.content) === '',
					`a message of another chat reached the model: ${textOf(message.content)}`,
				);
			}
		});
	}

	it(`a chat the API cannot read fails the execution, naming the chat`, async () => {
		const { sandbox, n8n } = e2e;
		const agentVersion = agentVersions(version)[0];
		sandbox.chatModel.reset();
		const mark = sandbox.log.length;
		const run = await n8n.runManually(workflowId(agentVersion), TRIGGER, {
			timeoutMs: 120_000,
			triggerItems: [{ chatId: 'cht_unknown', phone: '+34611000099', text: 'Hello' }],
		});
		assert.match(JSON.stringify(run.error), /history of chat cht_unknown could not be read/);
		assert.equal(sandbox.chatModel.requests.length, 0, 'the model was not asked');
		assert.deepEqual(
			sandbox.log.slice(mark).filter((e) => e.method === 'POST'),
			[],
			'nothing was sent',
		);
	});

	it('how long the memory takes per answer (run data of the memory node)', () => {
		assert.ok(!isN8n1(version));
		assert.ok(memoryTimes.length >= 2, `${memoryTimes.length} memory runs`);
		console.log(
			`memory per answer in n8n ${version}: median ${median(memoryTimes)} ms, max ${Math.max(...memoryTimes)} ms over ${memoryTimes.length} answers`,
		);
	});
});
