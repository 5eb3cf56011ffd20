// The queue-mode suite's one cluster, started once for all its parts (queueMode.test.mjs):
// PostgreSQL, Redis, the sandbox, one n8n main instance and two workers (n8n 2.41.1), each
// process with its own user folder and the packed package installed in it (as on separate
// machines). Webhook calls on the main instance become executions that the workers take from the
// queue; the main instance runs the polling triggers (queueWorkflows.mjs: what they run). Also
// here: the webhook calls and checks the parts share, and what a failing wait prints.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';

import { startSandbox } from '../../sandbox/server.mjs';
import { createN8nInstance, startWithOwner } from '../../tools/n8n.mjs';
import { n8nRestApi } from '../../tools/n8nRest.mjs';
import { BROWSER_ID, OWNER, cleanupTarball, packedTarball } from '../../tools/n8nRun.mjs';
import { sandboxCredential } from '../../tools/workflows.mjs';
import { apiCall } from '../support/sandboxApi.mjs';
import {
	CALLS,
	FANOUT,
	MESSENGER_TRIGGER,
	RATE,
	TRIGGER,
	fanOutWorkflow,
	rateWorkflow,
	triggerWorkflows,
} from './queueWorkflows.mjs';
import { ensureQueueServices, startPostgres, startRedis } from './services.mjs';
import { answerFromDatabase, callWebhook } from './webhookCalls.mjs';

export const WORKERS = 2;
const WORKER_CONCURRENCY = 10;
/** Webhook calls in flight at once: enough to keep both workers' ten slots busy. */
export const CALLERS = 2 * WORKERS * WORKER_CONCURRENCY;

/** Runs `task` over `inputs` with at most `limit` in flight; results in input order. */
export async function inPool(inputs, limit, task) {
	const results = new Array(inputs.length);
	let next = 0;
	const lane = async () => {
		while (next < inputs.length) {
			const index = next++;
			results[index] = await task(inputs[index], index);
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, inputs.length) }, lane));
	return results;
}

/**
 * Registers the suite's before() and after(): the cluster starts once, before the first test of
 * the enclosing describe, and stops after its last. The returned object is filled in by before():
 * the parts read it inside their tests.
 */
export function useQueueCluster() {
	const q = {
		/** @type {Awaited<ReturnType<typeof startSandbox>>} */
		sandbox: undefined,
		/** @type {{ baseUrl: string, output: () => string, stop: () => Promise<void> }} */
		main: undefined,
		/** @type {Array<{ output: () => string, stop: () => Promise<void> }>} */
		workers: [],
		/** @type {ReturnType<typeof n8nRestApi>} */
		api: undefined,
		/** The second of each minute at which both triggers poll (UTC). */
		cronSecond: 0,
		/** Call Finished's own sandbox (queueWorkflows.mjs CALLS) and its call campaign. */
		callSandbox: undefined,
		callCampaign: undefined,
		/** What the Call Finished part keeps between its two tests (callFinished.mjs). */
		calls: undefined,
		/** The broadcast message the Messenger Trigger watches (sent through the API before start). */
		watchedMessage: undefined,
		/** What the baseline test changed after the baseline polls (the trigger tests share it). */
		changed: undefined,
		tokenRequestsOf: ({ client }) =>
			q.sandbox.tokenRequests().filter((entry) => entry.clientId === client.clientId),
		/** "Worker started execution N" lines of one worker. */
		startedBy: (worker) =>
			[...worker.output().matchAll(/Worker started execution (\d+)/g)].map((match) => match[1]),
		/** Executions started per worker so far. */
		startedCounts: () => q.workers.map((worker) => q.startedBy(worker).length),
		diagnostics: () =>
			`\n--- sandbox log (tail) ---\n${q.sandbox.log
				.slice(-25)
				.map(
					(e) =>
						`${e.at} ${e.clientId} ${e.method} ${e.path} ${JSON.stringify(e.query)} → ${e.status}`,
				)
				.join('\n')}\n--- main (tail) ---\n${q.main?.output().slice(-3000)}\n${q.workers
				.map((worker, i) => `--- worker ${i + 1} (tail) ---\n${worker.output().slice(-2000)}`)
				.join('\n')}`,
		executionsOf: (workflowId) => q.api.executionsOf(workflowId),
		/** Webhook calls made so far (each gets its own `callId`, webhookCalls.mjs). */
		callCount: 0,
		async callWebhook(path, body) {
			const main = {
				baseUrl: q.main.baseUrl,
				lostAnswer: (callId) => answerFromDatabase(postgres, q.api, callId),
			};
			try {
				return await callWebhook(main, path, body, `queue-call-${++q.callCount}`);
			} catch (error) {
				throw new Error(`${error.message} (body ${JSON.stringify(body)})${q.diagnostics()}`, {
					cause: error,
				});
			}
		},
		fanOut: (label, count, onAnswer) => fanOut(q, label, count, onAnswer),
		assertAllSucceeded: (results, workflowId) => assertAllSucceeded(q, results, workflowId),
	};
	/** @type {Array<Awaited<ReturnType<typeof createN8nInstance>>>} */
	const instances = [];
	let redis;
	let postgres;

	before(async () => {
		// The servers start while the package builds.
		const [servers, tarball] = await Promise.all([
			ensureQueueServices().then((services) =>
				Promise.allSettled([startRedis(services.redisServer), startPostgres(services.postgresBin)]),
			),
			packedTarball(),
		]);
		[redis, postgres] = servers.map((server) =>
			server.status === 'fulfilled' ? server.value : undefined,
		);
		for (const server of servers) if (server.status === 'rejected') throw server.reason;
		// No request limit while the suite sets up and fans out; the rate-limit test sets one.
		q.sandbox = await startSandbox({ port: 0, host: '127.0.0.1', rateLimitPerMinute: 0 });
		q.callSandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
		// 40 numbers on 20 lines, half of the first calls ended before activation (callFinished.mjs).
		q.callCampaign = q.callSandbox.startCallCampaign({
			numbers: 40,
			lines: 20,
			name: 'Queue calls',
		});
		q.callSandbox.stepCalls(2, q.callCampaign.id);

		const queueEnv = {
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: redis.host,
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: postgres.host,
			DB_POSTGRESDB_PORT: String(postgres.port),
			DB_POSTGRESDB_DATABASE: postgres.database,
			DB_POSTGRESDB_USER: postgres.user,
			DB_POSTGRESDB_PASSWORD: '',
			GENERIC_TIMEZONE: 'UTC',
			EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
			// n8n pings its database every 2 s and, when a ping waits 5 s (for a slot of its pool of
			// 2, busy with 40 webhook calls on a loaded machine), answers every request 503
			// "Database is not ready!" until the next ping: a larger pool, a longer wait.
			DB_POSTGRESDB_POOL_SIZE: '10',
			DB_PING_TIMEOUT_MS: '30000',
		};
		// One user folder per process, each with the package installed: as on separate machines.
		instances.push(
			...(await Promise.all(
				Array.from({ length: 1 + WORKERS }, () =>
					createN8nInstance({ tarball, extraEnv: queueEnv }),
				),
			)),
		);
		const [mainInstance] = instances;

		await mainInstance.importCredentials([
			...[FANOUT, RATE, TRIGGER, MESSENGER_TRIGGER].map(
				({ credential, client, requestsPerMinute }) =>
					sandboxCredential(credential, q.sandbox, client, { requestsPerMinute }),
			),
			sandboxCredential(CALLS.credential, q.callSandbox, CALLS.client),
		]);
		// Any second: the trigger tests count the ticks that passed, whenever they fall.
		q.cronSecond = Math.floor(Date.now() / 1000 + 45) % 60;
		const sent = await apiCall(
			q.sandbox,
			MESSENGER_TRIGGER.client,
			'POST',
			'/api/v1/messenger/broadcast/messages',
			{ channel: 'whatsapp', recipients: [{ phone: '+34600111222' }], templateId: 'order_update' },
		);
		[q.watchedMessage] = sent.items;
		// One import for all (instance.importWorkflow takes one), then one publish each (the command
		// takes one id).
		const workflows = [
			fanOutWorkflow(),
			rateWorkflow(),
			...triggerWorkflows(q.cronSecond, q.watchedMessage, q.callCampaign),
		];
		const file = join(mainInstance.userFolder, 'queue-workflows.json');
		writeFileSync(file, JSON.stringify(workflows));
		await mainInstance.n8n(['import:workflow', `--input=${file}`]);
		for (const { id } of workflows) await mainInstance.n8n(['publish:workflow', `--id=${id}`]);

		// The imports have migrated the database: the workers start beside the main instance.
		const [main, ...workers] = await Promise.allSettled([
			startWithOwner(mainInstance, OWNER, BROWSER_ID),
			...instances
				.slice(1)
				.map((instance) =>
					instance.start({}, { args: ['worker', `--concurrency=${WORKER_CONCURRENCY}`] }),
				),
		]);
		q.main = main.status === 'fulfilled' ? main.value.server : undefined;
		q.workers = workers.flatMap((worker) => (worker.status === 'fulfilled' ? [worker.value] : []));
		for (const started of [main, ...workers])
			if (started.status === 'rejected') throw started.reason;
		q.api = n8nRestApi({
			baseUrl: q.main.baseUrl,
			cookie: main.value.cookie,
			n8nDir: mainInstance.n8nDir,
			browserId: BROWSER_ID,
		});
	});

	after(async () => {
		await Promise.all(q.workers.map((worker) => worker.stop()));
		await q.main?.stop();
		for (const instance of instances) await instance.cleanup();
		await q.sandbox?.close();
		await q.callSandbox?.close();
		await Promise.all([redis?.stop(), postgres?.stop()]);
		await cleanupTarball();
	});

	return q;
}

/**
 * `count` calls, alternating voice and messenger, `CALLERS` at a time; `onAnswer` sees each
 * answer as it comes. Resolves to what each call asked for and got.
 * @param {ReturnType<typeof useQueueCluster>} q
 */
async function fanOut(q, label, count, onAnswer = () => {}) {
	const agents = q.sandbox.state.agents;
	const chats = q.sandbox.state.chats.filter((chat) => chat.status === 'open');
	const calls = Array.from({ length: count }, (_, i) =>
		i % 2 === 0
			? { kind: 'voice', path: 'queue-voice', body: { agentId: agents[i % agents.length].id } }
			: {
					kind: 'message',
					path: 'queue-message',
					body: { chatId: chats[i % chats.length].id, name: `${label} ${i}` },
				},
	);
	let answered = 0;
	const answers = await inPool(calls, CALLERS, async (call) => {
		const answer = await q.callWebhook(call.path, call.body);
		onAnswer(++answered);
		return answer;
	});
	return calls.map((call, i) => ({ ...call, answer: answers[i] }));
}

/**
 * The errors of the workflow's failed executions (the webhook answer only says "Error in workflow").
 * @param {ReturnType<typeof useQueueCluster>} q
 */
async function executionErrors(q, workflowId) {
	const failed = (await q.executionsOf(workflowId)).filter((e) => e.status === 'error');
	const errors = [];
	for (const { id } of failed.slice(0, 5)) {
		const { error } = await q.api.runDataOf(id);
		errors.push(`execution ${id}: ${error?.message} — ${error?.description ?? ''}`);
	}
	return errors.join('\n');
}

/**
 * Every call answered 200 with its own result, and each message was sent exactly once.
 * @param {ReturnType<typeof useQueueCluster>} q
 */
async function assertAllSucceeded(q, results, workflowId) {
	const lost = results.filter(({ answer }) => answer.lost).length;
	if (lost) {
		console.log(
			`# ${lost} of ${results.length} answers never came from n8n's main; their executions had ended, and their results were read from the database`,
		);
	}
	const failed = results.filter(({ answer }) => answer.status !== 200);
	assert.deepEqual(
		failed.map(
			({ path, body, answer }) =>
				`${path} ${JSON.stringify(body)} → ${answer.status} ${answer.text.slice(0, 300)}`,
		),
		[],
		failed.length ? `failed calls:\n${await executionErrors(q, workflowId)}${q.diagnostics()}` : '',
	);
	/** Location messages the sandbox recorded under `name`. */
	const messagesNamed = (name) =>
		q.sandbox.state.messages.filter(
			(message) => message.type === 'location' && message.content.name === name,
		);
	for (const { kind, body, answer } of results) {
		if (kind === 'voice') {
			assert.equal(answer.json?.id, body.agentId, answer.text.slice(0, 300));
		} else {
			assert.equal(answer.json?.content?.name, body.name, answer.text.slice(0, 300));
			assert.equal(answer.json?.chatId, body.chatId);
			const sent = messagesNamed(body.name);
			assert.equal(sent.length, 1, `"${body.name}" sent ${sent.length} times`);
			assert.equal(sent[0].id, answer.json.id);
		}
	}
}
