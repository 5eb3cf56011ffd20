// The chatbot of examples/whatsapp-ai-agent.json in queue mode: the Messenger Live Trigger reads on
// the main instance, each answer runs on a worker, where Messenger Chat Memory reads the chat's
// history from the API (nothing kept in a process: any worker sees the same conversation). The
// customer writes twice; the second answer's model request holds the first message and the first
// answer (the sandbox does not show broadcasts in the chat, its default: the first answer comes
// back from the customer's contact, where the first worker's memory kept it), and the sandbox's
// stand-in model, quoting the earlier words, answers with them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';

import { CUSTOMER_MESSAGES_PATH, DEMO_CLIENTS, startSandbox } from '../../sandbox/server.mjs';
import { ROOT, waitFor } from '../../tools/processes.mjs';
import { sandboxCredential, sandboxModelCredential } from '../../tools/workflows.mjs';
import { executionsLogged } from './liveTrigger.mjs';
import { clusterProcesses, recordSenders } from './senders.mjs';

/** @typedef {ReturnType<typeof import('./cluster.mjs').useQueueCluster>} Cluster */

const EXAMPLE = JSON.parse(readFileSync(join(ROOT, 'examples', 'whatsapp-ai-agent.json'), 'utf8'));
const WORKFLOW = 'queueChatMemory';
const PHONE = '+34611000777';
const HISTORY_PATH = '/api/v1/messenger/messages/chat/';
const BROADCAST_PATH = '/api/v1/messenger/broadcast/messages';
const textOf = (content) =>
	typeof content === 'string' ? content : (content ?? []).map((part) => part.text ?? '').join('');

async function customerWrites(sandbox, text) {
	const response = await fetch(`${sandbox.url}${CUSTOMER_MESSAGES_PATH}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ phone: PHONE, text }),
	});
	assert.equal(response.status, 201);
}

/** @param {Cluster} q */
export function chatMemoryTests(q) {
	it('Messenger Chat Memory: the chatbot answers on the workers, the second answer remembering the first message', async () => {
		const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', broadcastHistory: 'hidden' });
		const processes = clusterProcesses(q);
		const senders = recordSenders(sandbox.port, processes);
		let workflowId;
		let active = false;
		try {
			const api = await q.api.rest(
				'POST',
				'/rest/credentials',
				sandboxCredential(
					{ name: 'Queue chat memory (own sandbox)' },
					sandbox,
					DEMO_CLIENTS.messengerOnly,
				),
			);
			const model = await q.api.rest(
				'POST',
				'/rest/credentials',
				sandboxModelCredential({ name: 'Queue chat memory model' }, sandbox),
			);
			const refs = {
				voiceMessagingApi: { id: api.id, name: api.name },
				openAiApi: { id: model.id, name: model.name },
			};
			// The chat exists before activation, so the trigger's baseline holds it.
			await customerWrites(sandbox, 'Hello?');
			({ id: workflowId } = await q.api.rest('POST', '/rest/workflows', {
				...EXAMPLE,
				id: WORKFLOW,
				nodes: EXAMPLE.nodes.map((node) => {
					if (!node.credentials) return node;
					const credentials = Object.fromEntries(
						Object.keys(node.credentials).map((type) => [type, refs[type]]),
					);
					const parameters = node.type.endsWith('.messengerLiveTrigger')
						? { ...node.parameters, chats: PHONE, options: { groupByChat: true, waitForPause: 2 } }
						: node.parameters;
					return { ...node, credentials, parameters };
				}),
			}));
			const { versionId } = await q.api.rest('GET', `/rest/workflows/${workflowId}`);
			const mainOutputBefore = q.main.output().length;
			await q.api.rest('POST', `/rest/workflows/${workflowId}/activate`, { versionId });
			active = true;
			const sends = () =>
				senders.requests.filter((r) => r.method === 'POST' && r.url.startsWith(BROADCAST_PATH));
			const answered = async (count) =>
				await waitFor(() => sandbox.state.sent.length >= count && sends().length >= count, {
					timeoutMs: 90_000,
					intervalMs: 500,
					describe: () =>
						`${sandbox.state.sent.length} of ${count} answers\n${q.main.output().slice(-3000)}`,
				});
			await waitFor(() => senders.requests.some((r) => r.url.startsWith(HISTORY_PATH)), {
				timeoutMs: 60_000,
				describe: () => 'the trigger read the chat',
			});

			await customerWrites(sandbox, 'My order number is 4711');
			await answered(1);
			await customerWrites(sandbox, 'When does it arrive?');
			await answered(2);

			const [, second] = sandbox.chatModel.requests;
			const turns = second.messages
				.filter((m) => m.role !== 'system')
				.map((m) => `${m.role}: ${textOf(m.content)}`);
			assert.deepEqual(turns.slice(-4), [
				'user: Hello?',
				'user: My order number is 4711',
				`assistant: ${sandbox.state.sent[0].text}`,
				'user: When does it arrive?',
			]);
			assert.match(sandbox.state.sent[1].text, /before this you wrote: "My order number is 4711"/);

			// Each answer ran on a worker; its memory read the history from there, once.
			const mainOutput = q.main.output().slice(mainOutputBefore);
			const executions = await q.executionsOf(workflowId);
			assert.equal(executions.length, 2, JSON.stringify(executions));
			const enqueued = executionsLogged(mainOutput, 'Enqueued execution');
			for (const { id, status } of executions) {
				assert.equal(status, 'success');
				assert.ok(enqueued.has(id), `the main instance enqueued execution ${id}`);
				const ranOn = q.workers.filter((w) =>
					executionsLogged(w.output(), 'Worker started execution').has(id),
				);
				assert.equal(ranOn.length, 1, `execution ${id} ran on one worker`);
			}
			const fromWorkers = senders.requests.filter((r) => r.from.startsWith('worker'));
			const memoryReads = fromWorkers.filter((r) => r.url.startsWith(HISTORY_PATH));
			assert.equal(memoryReads.length, 2, 'one history read per answer, on the workers');
			const kept = fromWorkers.filter(
				(r) => r.url.startsWith('/api/v1/messenger/contacts') && r.method !== 'GET',
			);
			assert.equal(kept.length, 2, 'each answer kept on the contact, on the workers');
			assert.deepEqual(
				sends().map((r) => r.from.startsWith('worker')),
				[true, true],
			);
			console.log(
				`# chat memory: 2 answers on ${[...new Set(fromWorkers.map((r) => r.from))].join(' and ')}, ` +
					`${memoryReads.length} history reads by the memory, the second answer: ${JSON.stringify(sandbox.state.sent[1].text.slice(0, 160))}`,
			);
		} finally {
			if (active) {
				await q.api.rest('POST', `/rest/workflows/${workflowId}/deactivate`, {}).catch(() => {});
			}
			senders.stop();
			await sandbox.close();
		}
	});
}
