// The Messenger Live Trigger in queue mode. n8n runs a node's trigger() on the main instance that
// leads, never on a worker, and sends the executions it starts to the workers. An activated
// workflow "Messenger Live Trigger watching 5 chats → Send Media by URL answering in the chat";
// customers write into the chats one after another; each message starts exactly one execution,
// which a worker runs to success, answering once; deactivated, the trigger reads no chat any more.
//
// Where each thing ran is shown twice: by the process that sent each request to the sandbox (the
// client end of its connection, senders.mjs: every chat read from the main instance, one at a
// time; every answer from a worker), and by n8n's own log (the main instance enqueued each
// execution, one worker started and finished it: as many as the answers that worker sent).
//
// The trigger has a sandbox of its own: its reads, up to the credential's Live Trigger Requests
// per Minute (60 at its defaults, kept here), count neither in the shared sandbox's window, which
// the shared-limit part fills, nor against its token endpoint's minute, which the token part needs.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { CUSTOMER_MESSAGES_PATH, TOKEN_PATH, startSandbox } from '../../sandbox/server.mjs';
import { sleep, waitFor } from '../../tools/processes.mjs';
import { lastRunItems } from '../../tools/runData.mjs';
import { quantile } from '../../tools/stats.mjs';
import { sandboxCredential } from '../../tools/workflows.mjs';
import { LIVE_TRIGGER_NODE, answerCaption, answeringLiveWorkflow } from '../../tools/workflows.mjs';
import { LIVE, LIVE_WORKFLOW } from './queueWorkflows.mjs';
import { clusterProcesses, recordSenders } from './senders.mjs';

/** @typedef {ReturnType<typeof import('./cluster.mjs').useQueueCluster>} Cluster */

const CHATS = 5;
/** Each chat gets this many messages, the chats in turn, one message every WRITE_GAP_MS. */
const ROUNDS = 2;
const WRITE_GAP_MS = 3_000;
/** A loose bound from a message to the start of its execution (shared, noisy machines). */
const MAX_LATENCY_S = 30;
/** After deactivation: a read under way may still be answered, then none may come. */
const IN_FLIGHT_MS = 3_000;
const QUIET_MS = 10_000;

const HISTORY_PATH = '/api/v1/messenger/messages/chat/';
const SEND_MEDIA_PATH = '/api/v1/messenger/messages/send/media';

const seconds = (ms) => (ms / 1000).toFixed(1);

/** Execution IDs in lines of n8n's log such as "Worker started execution 12 (job 7)". */
export const executionsLogged = (output, what) =>
	new Set(
		[...output.matchAll(new RegExp(`${what} (\\d+) \\(job \\d+\\)`, 'g'))].map(([, id]) => id),
	);

/**
 * A customer writes `text` into the chat, through the sandbox's customer endpoint (as `npm run
 * sandbox -- --write` does); resolves to the message and when the sandbox stored it.
 */
async function customerWrites(sandbox, chatId, text) {
	const response = await fetch(`${sandbox.url}${CUSTOMER_MESSAGES_PATH}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ chatId, text }),
	});
	const body = await response.json();
	assert.equal(response.status, 201, JSON.stringify(body));
	const [message] = body.items;
	return { id: message.id, chatId, at: Date.parse(message.createdAt) };
}

/** @param {Cluster} q */
export function liveTriggerTests(q) {
	it(`Messenger Live Trigger: read on the main instance only, each message one execution on a worker, answered once, within seconds`, async () => {
		const startedAt = Date.now();
		const sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
		const processes = clusterProcesses(q);
		const senders = recordSenders(sandbox.port, processes);
		const reads = () => senders.requests.filter((r) => r.url.startsWith(HISTORY_PATH));
		const sends = () => senders.requests.filter((r) => r.url.startsWith(SEND_MEDIA_PATH));
		const diagnostics = () =>
			`\n--- live sandbox, last requests (sender) ---\n${senders.requests
				.slice(-25)
				.map((r) => `+${seconds(r.startedAt - startedAt)} s ${r.from} ${r.method} ${r.url}`)
				.join('\n')}\n--- main (tail) ---\n${q.main.output().slice(-3000)}`;
		let workflowId;
		let active = false;
		try {
			const { id: credentialId, name: credentialName } = await q.api.rest(
				'POST',
				'/rest/credentials',
				sandboxCredential(LIVE.credential, sandbox, LIVE.client),
			);
			const chats = sandbox.state.chats.slice(0, CHATS).map((chat) => chat.id);
			({ id: workflowId } = await q.api.rest(
				'POST',
				'/rest/workflows',
				answeringLiveWorkflow({
					id: LIVE_WORKFLOW,
					name: 'Queue live trigger answering in the chat',
					chatIds: chats,
					credential: { id: credentialId, name: credentialName },
				}),
			));
			const { versionId } = await q.api.rest('GET', `/rest/workflows/${workflowId}`);
			const activatedAt = Date.now();
			const mainOutputBefore = q.main.output().length;
			await q.api.rest('POST', `/rest/workflows/${workflowId}/activate`, { versionId });
			active = true;
			// Activation read each chat's baseline; the loop reads them on from there.
			await waitFor(() => reads().length >= 2 * CHATS, {
				timeoutMs: 60_000,
				describe: () => `${reads().length} chat reads after activation${diagnostics()}`,
			});
			const readyAt = Date.now();

			/** @type {Array<{ id: string, chatId: string, at: number }>} */
			const written = [];
			for (let round = 0; round < ROUNDS; round++) {
				for (const chatId of chats) {
					if (written.length) await sleep(WRITE_GAP_MS);
					written.push(await customerWrites(sandbox, chatId, `Queue live ${written.length}`));
				}
			}
			const writtenIds = written.map((message) => message.id).sort();
			/** The answers the sandbox received, by the message they answer. */
			const answers = () => {
				const byMessage = new Map();
				for (const message of sandbox.state.messages) {
					const caption = String(message.content?.caption ?? '');
					if (message.direction !== 'outbound' || !caption.startsWith(answerCaption(''))) continue;
					const id = caption.slice(answerCaption('').length);
					byMessage.set(id, [...(byMessage.get(id) ?? []), message]);
				}
				return byMessage;
			};
			const finished = (execution) => !['new', 'running', 'waiting'].includes(execution.status);
			await waitFor(
				async () => {
					if (answers().size < written.length) return false;
					const executions = await q.executionsOf(workflowId);
					return executions.length > 0 && executions.every(finished);
				},
				{
					timeoutMs: 90_000,
					intervalMs: 1_000,
					describe: () =>
						`${answers().size} of ${written.length} messages answered${diagnostics()}`,
				},
			);
			const answeredAt = Date.now();

			await q.api.rest('POST', `/rest/workflows/${workflowId}/deactivate`, {});
			active = false;
			const deactivatedAt = Date.now();
			await sleep(IN_FLIGHT_MS);
			const readsAtDeactivation = reads().length;
			await sleep(QUIET_MS);
			assert.equal(
				reads().length,
				readsAtDeactivation,
				`no chat read from ${seconds(IN_FLIGHT_MS)} s after deactivation on${diagnostics()}`,
			);

			// Each message is in exactly one execution, which succeeded; no execution without one. (A
			// read that finds two messages of a chat starts one execution with both: on a starved
			// machine a chat's reads may be further apart than its messages.)
			const executions = (await q.executionsOf(workflowId)).sort(
				(x, y) => Number(x.id) - Number(y.id),
			);
			/** Message ID → the execution it is in; execution ID → its messages. */
			const executionOf = new Map();
			const messagesIn = new Map();
			for (const execution of executions) {
				assert.equal(execution.status, 'success', JSON.stringify(execution));
				assert.equal(execution.mode, 'trigger');
				const { runData } = await q.api.runDataOf(execution.id);
				const items = lastRunItems(runData, LIVE_TRIGGER_NODE);
				assert.ok(items.length > 0, `execution ${execution.id} holds no message`);
				for (const { messageId } of items) {
					assert.ok(!executionOf.has(messageId), `${messageId} in two executions`);
					executionOf.set(messageId, execution);
				}
				messagesIn.set(execution.id, items.length);
			}
			assert.deepEqual(
				[...executionOf.keys()].sort(),
				writtenIds,
				'each message in exactly one execution, and no other execution',
			);

			// Each message answered once, in its chat.
			const answered = answers();
			assert.deepEqual([...answered.keys()].sort(), writtenIds, 'an answer to each message');
			for (const message of written) {
				const [answer, ...more] = answered.get(message.id);
				assert.equal(more.length, 0, `${message.id} answered ${1 + more.length} times`);
				assert.equal(answer.chatId, message.chatId);
			}

			// n8n's own record: the main instance enqueued each execution, one worker ran it; and it
			// skipped none as a repeat (n8n 2.x drops an emit whose deduplication key it has seen,
			// which would hide a message handed over twice from the list above).
			const mainOutput = q.main.output().slice(mainOutputBefore);
			assert.doesNotMatch(mainOutput, /duplicate deduplication key/, 'no message emitted twice');
			const enqueued = executionsLogged(mainOutput, 'Enqueued execution');
			const ranBy = q.workers.map((worker) => ({
				started: executionsLogged(worker.output(), 'Worker started execution'),
				finished: executionsLogged(worker.output(), 'Worker finished execution'),
			}));
			const executionsPerWorker = ranBy.map(() => 0);
			const messagesPerWorker = ranBy.map(() => 0);
			for (const { id } of executions) {
				assert.ok(enqueued.has(id), `the main instance enqueued execution ${id}${diagnostics()}`);
				const workers = ranBy.flatMap(({ started }, i) => (started.has(id) ? [i] : []));
				assert.equal(workers.length, 1, `execution ${id} started on workers [${workers}]`);
				assert.ok(ranBy[workers[0]].finished.has(id), `execution ${id} finished on its worker`);
				executionsPerWorker[workers[0]]++;
				messagesPerWorker[workers[0]] += messagesIn.get(id);
			}

			// The sandbox's side: who sent what. Chats were read by the main instance alone, one
			// read at a time (one trigger, not one per process); every answer came from a worker,
			// each worker sending as many as the messages of the executions it ran.
			const readers = [...new Set(reads().map((r) => r.from))];
			assert.deepEqual(readers, ['main'], `chat reads came from ${readers}${diagnostics()}`);
			const overlapping = reads().filter(
				(r, i, all) => i > 0 && r.startedAt < (all[i - 1].endedAt ?? -Infinity),
			);
			assert.deepEqual(overlapping, [], 'no chat read began before the one before it ended');
			const sendsPerWorker = q.workers.map(
				(_, i) => sends().filter((r) => r.from === `worker ${i + 1}`).length,
			);
			assert.equal(
				sends().length,
				written.length,
				`one send per message, no resend: ${sends()
					.map((r) => r.from)
					.join(', ')}`,
			);
			assert.deepEqual(sendsPerWorker, messagesPerWorker, 'answers per worker');
			assert.ok(
				senders.requests.every((r) => r.from !== 'unknown'),
				'every request came from the cluster or the test',
			);

			// Within seconds: from the message to the start of its execution (set by the worker).
			const latencies = written.map(
				(m) => (Date.parse(executionOf.get(m.id).startedAt) - m.at) / 1000,
			);
			const toAnswer = written.map(
				(m) => (Date.parse(answered.get(m.id)[0].createdAt) - m.at) / 1000,
			);
			const tokens = senders.requests.filter((r) => r.url.startsWith(TOKEN_PATH));
			const refused = sandbox.log.filter((entry) => entry.status === 429).length;
			const perMinute = (readsAtDeactivation / (deactivatedAt - activatedAt)) * 60_000;
			const p = (values, share) => quantile(values, share).toFixed(1);
			const answersBy = q.workers
				.map((_, i) => `worker ${i + 1} (pid ${processes[`worker ${i + 1}`]}) ${sendsPerWorker[i]}`)
				.join(', ');
			console.log(
				`# live trigger: ${written.length} messages into ${CHATS} chats, ${executions.length} executions, ` +
					`all succeeded, on workers ${executionsPerWorker.join(' / ')}, each answered once; ` +
					`message → execution start p50 ${p(latencies, 0.5)} s, p95 ${p(latencies, 0.95)} s, ` +
					`max ${Math.max(...latencies).toFixed(1)} s; message → answer p50 ${p(toAnswer, 0.5)} s, ` +
					`p95 ${p(toAnswer, 0.95)} s`,
			);
			console.log(
				`# live trigger: ${readsAtDeactivation} chat reads, all from the main instance (pid ` +
					`${processes.main}), one at a time, ${perMinute.toFixed(1)} a minute; answers from ` +
					`${answersBy}; token requests: ${tokens.length} (${tokens.map((r) => r.from).join(', ')}); ` +
					`${refused} × 429; first reads ${seconds(readyAt - activatedAt)} s after activation, ` +
					`all answered ${seconds(answeredAt - readyAt)} s later; no read from ${seconds(IN_FLIGHT_MS)} ` +
					`to ${seconds(IN_FLIGHT_MS + QUIET_MS)} s after deactivation; ` +
					`${seconds(Date.now() - startedAt)} s in all`,
			);
			for (const latency of latencies) {
				assert.ok(
					latency <= MAX_LATENCY_S,
					`message → execution start: ${latencies.map((l) => l.toFixed(1)).join(', ')} s`,
				);
			}
		} finally {
			if (active) {
				await q.api.rest('POST', `/rest/workflows/${workflowId}/deactivate`, {}).catch(() => {});
			}
			senders.stop();
			await sandbox.close();
		}
	});
}
