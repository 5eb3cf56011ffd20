// n8n in queue mode, as users scale it: PostgreSQL, Redis, one main instance and two workers
// (n8n 2.41.1), each process with its own user folder and the packed package installed in it
// (as on separate machines). Webhook calls on the main instance become executions that the
// workers take from the queue; the main instance runs the polling triggers.
//
// What is shown, against the sandbox:
// - 200 operations (voice and messenger, one execution each) spread over both workers: all
//   succeed, each message is sent once, and each worker asks for a token at most once;
// - two workers at default settings (Requests per Minute 100 each, the API's limit) share the
//   API's limit of 100 per window without seeing each other: 200 sends, at most 5 % of the
//   requests answered 429 although refused requests count against the window; no item fails;
// - the polling triggers run once, on the main instance: one change, one execution each;
// - tokens revoked and expiring while both workers are busy: every item succeeds, and the token
//   requests stay within the token endpoint's 10 a minute.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';

import { DEMO_CLIENTS, startSandbox } from '../../sandbox/server.mjs';
import {
	PACKAGE_NAME,
	cleanupPack,
	createN8nInstance,
	n8nRestApi,
	packPackage,
	sandboxCredential,
	sleep,
	startWithOwner,
	waitFor,
} from '../e2e/harness.mjs';
import { apiCall } from '../support/sandboxApi.mjs';
import { ensureQueueServices, startPostgres, startRedis } from './services.mjs';

const OWNER = { email: 'owner@queue.example', password: 'Queue-owner-Passw0rd' };
const BROWSER_ID = 'queue-browser';
const WORKERS = 2;
const WORKER_CONCURRENCY = 10;
/** Webhook calls in flight at once: enough to keep both workers' ten slots busy. */
const CALLERS = 2 * WORKERS * WORKER_CONCURRENCY;

/** Each part of the suite uses its own API client, so the sandbox log tells them apart. */
const FANOUT = {
	credential: { id: 'queueCredFanOut', name: 'Queue fan-out (full client)' },
	client: DEMO_CLIENTS.full,
	// The sandbox's request limit is raised for the fan-out (see before()); so is the budget.
	requestsPerMinute: 1000,
};
/** Default settings: no Requests per Minute set, so each worker paces to the API's 100. */
const RATE = {
	credential: { id: 'queueCredRate01', name: 'Queue rate limit (messenger client)' },
	client: DEMO_CLIENTS.messengerOnly,
};
/** The goal for the share of requests answered 429 when processes share the limit. */
const MAX_REFUSED_SHARE = 0.05;
const TRIGGER = {
	credential: { id: 'queueCredTrigge', name: 'Queue trigger (voice client)' },
	client: DEMO_CLIENTS.voiceOnly,
	requestsPerMinute: 100,
};
const MESSENGER_TRIGGER = {
	credential: { id: 'queueCredMsgTrg', name: 'Queue messenger trigger (messenger client)' },
	client: DEMO_CLIENTS.messengerOnly,
	requestsPerMinute: 100,
};

const FANOUT_WORKFLOW = 'queueFanOut0001';
const RATE_WORKFLOW = 'queueRateLimit1';
const TRIGGER_WORKFLOW = 'queueTrigger001';
const TRIGGER_NODE = 'Voice AI Trigger';
const MESSENGER_TRIGGER_WORKFLOW = 'queueMsgTrigger';
const MESSENGER_TRIGGER_NODE = 'Messenger Trigger';

/** Runs `task` over `inputs` with at most `limit` in flight; results in input order. */
async function inPool(inputs, limit, task) {
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

const credentialRef = ({ credential }) => ({
	voiceMessagingApi: { id: credential.id, name: credential.name },
});

function webhookNode(name, path, position) {
	return {
		id: randomUUID(),
		webhookId: randomUUID(),
		name,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position,
		parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', options: {} },
	};
}

function packageNode(name, type, parameters, credentials, position) {
	return {
		id: randomUUID(),
		name,
		type: `${PACKAGE_NAME}.${type}`,
		typeVersion: 1,
		position,
		parameters,
		credentials,
	};
}

/** The location message a webhook call asks for: the chat and a name that identifies the call. */
const sendLocationParameters = {
	resource: 'message',
	operation: 'sendLocation',
	chatId: '={{ $json.body.chatId }}',
	latitude: 40.4168,
	longitude: -3.7038,
	options: { name: '={{ $json.body.name }}' },
};

/** Two webhooks, one workflow: POST /webhook/queue-voice gets an agent, /webhook/queue-message sends a location. */
const fanOutWorkflow = () => ({
	id: FANOUT_WORKFLOW,
	name: 'Queue fan-out',
	active: false,
	settings: { executionOrder: 'v1' },
	nodes: [
		webhookNode('Voice Webhook', 'queue-voice', [0, 0]),
		packageNode(
			'Get Agent',
			'voiceAi',
			{
				resource: 'agent',
				operation: 'get',
				agentId: { __rl: true, mode: 'id', value: '={{ $json.body.agentId }}' },
			},
			credentialRef(FANOUT),
			[220, 0],
		),
		webhookNode('Message Webhook', 'queue-message', [0, 200]),
		packageNode(
			'Send Location',
			'messenger',
			sendLocationParameters,
			credentialRef(FANOUT),
			[220, 200],
		),
	],
	connections: {
		'Voice Webhook': { main: [[{ node: 'Get Agent', type: 'main', index: 0 }]] },
		'Message Webhook': { main: [[{ node: 'Send Location', type: 'main', index: 0 }]] },
	},
	pinData: {},
});

const rateWorkflow = () => ({
	id: RATE_WORKFLOW,
	name: 'Queue rate limit',
	active: false,
	settings: { executionOrder: 'v1' },
	nodes: [
		webhookNode('Rate Webhook', 'queue-rate', [0, 0]),
		packageNode(
			'Send Location',
			'messenger',
			sendLocationParameters,
			credentialRef(RATE),
			[220, 0],
		),
	],
	connections: { 'Rate Webhook': { main: [[{ node: 'Send Location', type: 'main', index: 0 }]] } },
	pinData: {},
});

/** A polling trigger → No-Op workflow that polls every minute at `cronSecond`. */
const triggerWorkflow = ({ id, name, nodeName, type, parameters, credentials }, cronSecond) => ({
	id,
	name,
	active: false,
	settings: { executionOrder: 'v1' },
	nodes: [
		packageNode(
			nodeName,
			type,
			{
				...parameters,
				pollTimes: { item: [{ mode: 'custom', cronExpression: `${cronSecond} * * * * *` }] },
			},
			credentials,
			[0, 0],
		),
		{
			id: randomUUID(),
			name: 'No-Op',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: [220, 0],
			parameters: {},
		},
	],
	connections: { [nodeName]: { main: [[{ node: 'No-Op', type: 'main', index: 0 }]] } },
	pinData: {},
});

describe(
	'queue mode: PostgreSQL, Redis, a main instance and two workers (n8n 2.41.1)',
	{ timeout: 20 * 60_000 },
	() => {
		let sandbox;
		let redis;
		let postgres;
		/** @type {Array<Awaited<ReturnType<typeof createN8nInstance>>>} */
		const instances = [];
		let main;
		/** @type {Array<{ output: () => string, stop: () => Promise<void> }>} */
		let workers = [];
		let cookie = '';
		let cronSecond = 0;
		/** The broadcast message the Messenger Trigger watches (sent through the API before start). */
		let watchedMessage;
		/** What the trigger test changed after the baseline polls, and the poll counts then. */
		let changed;

		const tokenRequestsOf = ({ client }) =>
			sandbox.tokenRequests().filter((entry) => entry.clientId === client.clientId);
		/**
		 * Campaign Status Changed polls of the trigger's client: one in-progress list per poll (counted
		 * when answered: a request that met a 401 is sent again with the new token).
		 */
		const triggerPolls = () =>
			sandbox.log.filter(
				(entry) =>
					entry.clientId === TRIGGER.client.clientId &&
					entry.status === 200 &&
					entry.method === 'GET' &&
					/\/voice\/campaigns$/.test(entry.path) &&
					entry.query.status === 'in_progress',
			).length;
		/** Messenger Trigger polls: one GET of the watched message per poll (counted when answered). */
		const messengerTriggerPolls = () =>
			sandbox.log.filter(
				(entry) =>
					entry.clientId === MESSENGER_TRIGGER.client.clientId &&
					entry.status === 200 &&
					entry.method === 'GET' &&
					entry.path === `/api/v1/messenger/broadcast/messages/${watchedMessage.id}`,
			).length;
		/** "Worker started execution N" lines per worker. */
		const startedBy = (worker) =>
			[...worker.output().matchAll(/Worker started execution (\d+)/g)].map((match) => match[1]);

		const diagnostics = () =>
			`\n--- sandbox log (tail) ---\n${sandbox.log
				.slice(-25)
				.map(
					(e) =>
						`${e.at} ${e.clientId} ${e.method} ${e.path} ${JSON.stringify(e.query)} → ${e.status}`,
				)
				.join('\n')}\n--- main (tail) ---\n${main?.output().slice(-3000)}\n${workers
				.map((worker, i) => `--- worker ${i + 1} (tail) ---\n${worker.output().slice(-2000)}`)
				.join('\n')}`;

		/** @type {ReturnType<typeof n8nRestApi>} */
		let api;
		const executionsOf = (workflowId) => api.executionsOf(workflowId);

		/** POSTs to a production webhook of the main instance; resolves to the status and JSON answer. */
		async function callWebhook(path, body) {
			const response = await fetch(`${main.baseUrl}/webhook/${path}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(body),
				signal: AbortSignal.timeout(180_000),
			});
			const text = await response.text();
			let json;
			try {
				json = JSON.parse(text);
			} catch {
				json = undefined;
			}
			return { status: response.status, text, json };
		}

		/** Location messages the sandbox recorded under `name`. */
		const messagesNamed = (name) =>
			sandbox.state.messages.filter(
				(message) => message.type === 'location' && message.content.name === name,
			);

		/**
		 * `count` calls, alternating voice and messenger, `CALLERS` at a time; `onAnswer` sees each
		 * answer as it comes. Resolves to what each call asked for and got.
		 */
		async function fanOut(label, count, onAnswer = () => {}) {
			const agents = sandbox.state.agents;
			const chats = sandbox.state.chats.filter((chat) => chat.status === 'open');
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
				const answer = await callWebhook(call.path, call.body);
				onAnswer(++answered);
				return answer;
			});
			return calls.map((call, i) => ({ ...call, answer: answers[i] }));
		}

		/** The errors of the workflow's failed executions (the webhook answer only says "Error in workflow"). */
		async function executionErrors(workflowId) {
			const failed = (await executionsOf(workflowId)).filter((e) => e.status === 'error');
			const errors = [];
			for (const { id } of failed.slice(0, 5)) {
				const { error } = await api.runDataOf(id);
				errors.push(`execution ${id}: ${error?.message} — ${error?.description ?? ''}`);
			}
			return errors.join('\n');
		}

		/** Every call answered 200 with its own result, and each message was sent exactly once. */
		async function assertAllSucceeded(results, workflowId) {
			const failed = results.filter(({ answer }) => answer.status !== 200);
			assert.deepEqual(
				failed.map(
					({ path, body, answer }) =>
						`${path} ${JSON.stringify(body)} → ${answer.status} ${answer.text.slice(0, 300)}`,
				),
				[],
				failed.length ? `failed calls:\n${await executionErrors(workflowId)}${diagnostics()}` : '',
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

		before(async () => {
			const [services, tarball] = await Promise.all([ensureQueueServices(), packPackage()]);
			[redis, postgres] = await Promise.all([
				startRedis(services.redisServer),
				startPostgres(services.postgresBin),
			]);
			// No request limit while the suite sets up and fans out; the rate-limit test sets one.
			sandbox = await startSandbox({ port: 0, host: '127.0.0.1', rateLimitPerMinute: 0 });

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
			};
			// One user folder per process, each with the package installed: as on separate machines.
			for (let i = 0; i <= WORKERS; i++) {
				instances.push(await createN8nInstance({ tarball, extraEnv: queueEnv }));
			}
			const [mainInstance] = instances;

			await mainInstance.importCredentials(
				[FANOUT, RATE, TRIGGER, MESSENGER_TRIGGER].map(
					({ credential, client, requestsPerMinute }) =>
						sandboxCredential(credential, sandbox, client, { requestsPerMinute }),
				),
			);
			// Any second: the trigger test waits for whichever poll comes next.
			cronSecond = Math.floor(Date.now() / 1000 + 45) % 60;
			// The broadcast message the Messenger Trigger watches.
			const sent = await apiCall(
				sandbox,
				MESSENGER_TRIGGER.client,
				'POST',
				'/api/v1/messenger/broadcast/messages',
				{
					channel: 'whatsapp',
					recipients: [{ phone: '+34600111222' }],
					templateId: 'order_update',
				},
			);
			[watchedMessage] = sent.items;
			const triggers = [
				triggerWorkflow(
					{
						id: TRIGGER_WORKFLOW,
						name: 'Queue campaign status trigger',
						nodeName: TRIGGER_NODE,
						type: 'voiceAiTrigger',
						parameters: {
							event: 'campaignStatusChanged',
							campaignScope: 'all',
							statuses: ['completed', 'failed', 'cancelled'],
						},
						credentials: credentialRef(TRIGGER),
					},
					cronSecond,
				),
				triggerWorkflow(
					{
						id: MESSENGER_TRIGGER_WORKFLOW,
						name: 'Queue broadcast status trigger',
						nodeName: MESSENGER_TRIGGER_NODE,
						type: 'messengerTrigger',
						parameters: {
							event: 'broadcastStatusChanged',
							messageIds: watchedMessage.id,
							statuses: [],
						},
						credentials: credentialRef(MESSENGER_TRIGGER),
					},
					cronSecond,
				),
			];
			for (const workflow of [fanOutWorkflow(), rateWorkflow(), ...triggers]) {
				await mainInstance.importWorkflow(workflow);
				await mainInstance.n8n(['publish:workflow', `--id=${workflow.id}`]);
			}

			({ server: main, cookie } = await startWithOwner(mainInstance, OWNER, BROWSER_ID));
			api = n8nRestApi({
				baseUrl: main.baseUrl,
				cookie,
				n8nDir: mainInstance.n8nDir,
				browserId: BROWSER_ID,
			});
			workers = await Promise.all(
				instances
					.slice(1)
					.map((instance) =>
						instance.start({}, { args: ['worker', `--concurrency=${WORKER_CONCURRENCY}`] }),
					),
			);
		});

		after(async () => {
			await Promise.all(workers.map((worker) => worker.stop()));
			await main?.stop();
			for (const instance of instances) await instance.cleanup();
			await sandbox?.close();
			await Promise.all([redis?.stop(), postgres?.stop()]);
			cleanupPack();
		});

		it("the main instance alone makes the triggers' baseline polls; then a campaign and a message change", async () => {
			const bothPolled = (count) => triggerPolls() >= count && messengerTriggerPolls() >= count;
			await waitFor(() => bothPolled(1), {
				timeoutMs: 60_000,
				describe: () => `no baseline polls${diagnostics()}`,
			});
			// Let a scheduled poll that is due within seconds pass first, so none races the change.
			const now = new Date();
			const msToNextPoll =
				(((cronSecond - now.getUTCSeconds() + 60) % 60) * 1000 || 60_000) -
				now.getUTCMilliseconds();
			if (msToNextPoll < 8_000) {
				await waitFor(() => bothPolled(2), {
					timeoutMs: 30_000,
					describe: () => `no scheduled poll at second ${cronSecond}${diagnostics()}`,
				});
			}
			await sleep(2_000);
			const expected = msToNextPoll < 8_000 ? 2 : 1;
			const polls = { voice: triggerPolls(), messenger: messengerTriggerPolls() };
			assert.deepEqual(
				polls,
				{ voice: expected, messenger: expected },
				`one poll per activation or tick, not one per process${diagnostics()}`,
			);
			assert.deepEqual(
				await executionsOf(TRIGGER_WORKFLOW),
				[],
				'the baseline starts no execution',
			);
			assert.deepEqual(await executionsOf(MESSENGER_TRIGGER_WORKFLOW), []);

			const at = new Date().toISOString();
			const campaign = sandbox.state.campaigns.find((c) => c.status === 'in_progress');
			assert.ok(campaign, 'the sandbox has a campaign in progress');
			Object.assign(campaign, { status: 'completed', updatedAt: at });
			const message = sandbox.state.broadcastMessages.find((m) => m.id === watchedMessage.id);
			assert.equal(message?.status, 'queued');
			Object.assign(message, { status: 'sent', updatedAt: at });
			changed = { campaign, message, polls };
		});

		it(`fans 200 operations out over both workers: all succeed, each message once, one token per worker`, async () => {
			const startedBefore = workers.map((worker) => startedBy(worker).length);
			const results = await fanOut('fan-out', 200);
			await assertAllSucceeded(results, FANOUT_WORKFLOW);

			const started = workers.map((worker, i) => startedBy(worker).length - startedBefore[i]);
			assert.ok(
				started.every((count) => count > 0),
				`both workers ran executions: ${started}${diagnostics()}`,
			);
			assert.ok(started.reduce((a, b) => a + b, 0) >= 200, `executions started: ${started}`);

			// The messages went out once each: one send request per message call, no resend.
			const sends = sandbox.log.filter(
				(entry) =>
					entry.clientId === FANOUT.client.clientId &&
					entry.method === 'POST' &&
					/send\/location$/.test(entry.path),
			);
			assert.equal(sends.length, 100);
			const tokens = tokenRequestsOf(FANOUT);
			assert.ok(
				tokens.length >= 1 && tokens.length <= WORKERS,
				`token requests: ${tokens.length}${diagnostics()}`,
			);
			assert.ok(tokens.every((entry) => entry.status === 200));
			console.log(
				`# fan-out: executions per worker ${started.join(' / ')}, token requests ${tokens.length}`,
			);
		});

		it(`two workers at default settings share the API's limit: 200 sends, at most ${MAX_REFUSED_SHARE * 100} % answered 429`, async () => {
			// The API allows 100 requests a minute and counts refused ones too; each worker alone
			// would send 100 a minute. The window stays a minute: the workers pace to the real one.
			sandbox.setOptions({ rateLimitPerMinute: 100, countRefusedRequests: true });
			sandbox.resetRateLimits();
			const logBefore = sandbox.log.length;
			const startedBefore = workers.map((worker) => startedBy(worker).length);
			const chats = sandbox.state.chats.filter((chat) => chat.status === 'open');
			const calls = Array.from({ length: 200 }, (_, i) => ({
				kind: 'message',
				path: 'queue-rate',
				body: { chatId: chats[i % chats.length].id, name: `rate ${i}` },
			}));
			const startedAt = Date.now();
			const answers = await inPool(calls, CALLERS, (call) => callWebhook(call.path, call.body));
			const seconds = (Date.now() - startedAt) / 1000;
			sandbox.setOptions({
				rateLimitPerMinute: 0,
				rateWindowMs: 60_000,
				countRefusedRequests: false,
			});
			await assertAllSucceeded(
				calls.map((call, i) => ({ ...call, answer: answers[i] })),
				RATE_WORKFLOW,
			);
			const started = workers.map((worker, i) => startedBy(worker).length - startedBefore[i]);
			assert.ok(
				started.every((count) => count > 0),
				`both workers sent: ${started}`,
			);

			// Only this workflow sends messages now. A 429 is answered before the token is read, so
			// its log entry names no client.
			const sends = sandbox.log
				.slice(logBefore)
				.filter((entry) => /send\/location$/.test(entry.path));
			const limited = sends.filter((entry) => entry.status === 429);
			assert.ok(
				sends.every((entry) => entry.status === 429 || entry.clientId === RATE.client.clientId),
				'every accepted send came from the rate-limit workflow',
			);
			assert.equal(sends.filter((entry) => entry.status === 200).length, calls.length);
			assert.equal(
				sends.length,
				calls.length + limited.length,
				'nothing but the 429s was sent again',
			);
			assert.ok(
				limited.length <= MAX_REFUSED_SHARE * sends.length,
				`${limited.length} of ${sends.length} requests answered 429${diagnostics()}`,
			);
			console.log(
				`# shared limit: ${calls.length} sends over workers ${started.join(' / ')} in ${seconds.toFixed(1)} s ` +
					`(limit 100 a minute), ${limited.length} of ${sends.length} requests answered 429`,
			);
		});

		it('the triggers ran once: one change each, exactly one execution each', async () => {
			assert.ok(changed, 'the baseline test ran');
			const ran = (count) =>
				triggerPolls() > count.voice && messengerTriggerPolls() > count.messenger;
			await waitFor(() => ran(changed.polls), {
				timeoutMs: 75_000,
				describe: () => `no scheduled polls after the change${diagnostics()}`,
			});
			const finished = async (workflowId) => {
				const list = await executionsOf(workflowId);
				return list.length > 0 && list.every((e) => !['new', 'running'].includes(e.status));
			};
			await waitFor(
				async () =>
					(await finished(TRIGGER_WORKFLOW)) && (await finished(MESSENGER_TRIGGER_WORKFLOW)),
				{
					timeoutMs: 60_000,
					describe: () => `no finished executions after the polls${diagnostics()}`,
				},
			);
			// One more tick: no process emits the changes again.
			const pollsNow = { voice: triggerPolls(), messenger: messengerTriggerPolls() };
			await waitFor(() => ran(pollsNow), {
				timeoutMs: 75_000,
				describe: () => `no second scheduled poll${diagnostics()}`,
			});
			await sleep(5_000);

			/** The items the workflow's only execution started with. */
			const onlyExecution = async (workflowId, nodeName) => {
				const all = await executionsOf(workflowId);
				assert.equal(all.length, 1, JSON.stringify(all, null, 2));
				assert.equal(all[0].status, 'success', JSON.stringify(all[0]));
				assert.equal(all[0].mode, 'trigger');
				const { runData } = await api.runDataOf(all[0].id);
				return runData[nodeName].at(-1).data.main[0].map((item) => item.json);
			};
			const campaignEvents = await onlyExecution(TRIGGER_WORKFLOW, TRIGGER_NODE);
			assert.deepEqual(
				campaignEvents.map((item) => [item.campaignId, item.previousStatus, item.status]),
				[[changed.campaign.id, 'in_progress', 'completed']],
			);
			const messageEvents = await onlyExecution(MESSENGER_TRIGGER_WORKFLOW, MESSENGER_TRIGGER_NODE);
			assert.deepEqual(
				messageEvents.map((item) => [item.messageId, item.previousStatus, item.status]),
				[[changed.message.id, 'queued', 'sent']],
			);
			// Each tick was one poll per trigger: the workers do not poll.
			assert.deepEqual(
				{ voice: triggerPolls(), messenger: messengerTriggerPolls() },
				{ voice: pollsNow.voice + 1, messenger: pollsNow.messenger + 1 },
				`one poll per tick${diagnostics()}`,
			);
		});

		// Last: the trigger test's wait leaves this part a token-endpoint minute of its own.
		it('tokens revoked and expiring while both workers are busy: every item succeeds within the token limit', async () => {
			const tokensBefore = tokenRequestsOf(FANOUT).length;
			const logBefore = sandbox.log.length;
			const lifetimeSeconds = 6;
			// Tokens issued from now on live 6 s; the ones in use are revoked once the run is under
			// way, and the calls go on until the new tokens have run out at least once.
			sandbox.setOptions({ tokenLifetimeSeconds: lifetimeSeconds });
			const startedAt = Date.now();
			let revokedAt = 0;
			const results = [];
			for (
				let round = 0;
				results.length < 200 || Date.now() - revokedAt < (lifetimeSeconds + 3) * 1000;
				round++
			) {
				results.push(
					...(await fanOut(`expiry ${round}`, 50, (answered) => {
						if (round === 0 && answered === 25) {
							sandbox.expireTokens();
							revokedAt = Date.now();
						}
					})),
				);
			}
			const endedAt = Date.now();
			sandbox.setOptions({ tokenLifetimeSeconds: 3600 });
			await assertAllSucceeded(results, FANOUT_WORKFLOW);

			const phase = sandbox.log.slice(logBefore);
			const rejected = phase.filter((entry) => entry.status === 401);
			// A token's exp counts from its issue time in whole seconds: up to 1 s sooner than 6 s.
			const expired = rejected.filter(
				(entry) => Date.parse(entry.at) > revokedAt + (lifetimeSeconds - 1) * 1000,
			);
			assert.ok(rejected.length > 0, 'the revoked tokens met 401 answers');
			const timeline = () =>
				`\nrevoked at +${revokedAt - startedAt} ms, ended at +${endedAt - startedAt} ms; 401s at ${rejected
					.map((entry) => `+${Date.parse(entry.at) - startedAt}`)
					.join(' ')}; token requests at ${sandbox
					.tokenRequests()
					.filter((entry) => Date.parse(entry.at) >= startedAt)
					.map((entry) => `+${Date.parse(entry.at) - startedAt} ${entry.clientId}`)
					.join(', ')}`;
			assert.ok(
				expired.length > 0,
				`tokens issued after the revocation expired during the run${timeline()}`,
			);
			// Per worker: one token after the revocation, plus one per lifetime that ran out.
			const tokens = tokenRequestsOf(FANOUT).slice(tokensBefore);
			const lifetimes = 1 + Math.ceil((endedAt - revokedAt) / 1000 / lifetimeSeconds);
			assert.ok(
				tokens.length >= 2 && tokens.length <= WORKERS * lifetimes,
				`${tokens.length} token requests; at most ${WORKERS} × ${lifetimes} lifetimes expected${diagnostics()}`,
			);
			// The token endpoint (10 a minute per IP, for all processes and clients) never refused,
			// and no minute of the whole suite saw more than 10 token requests.
			const all = sandbox.tokenRequests();
			assert.deepEqual(
				all.filter((entry) => entry.status !== 200),
				[],
				'no token request was refused',
			);
			const times = all.map((entry) => Date.parse(entry.at));
			const busiestMinute = Math.max(
				...times.map((t) => times.filter((u) => u >= t && u < t + 60_000).length),
			);
			assert.ok(busiestMinute <= 10, `busiest minute: ${busiestMinute} token requests`);
			console.log(
				`# expiry: ${results.length} calls in ${((endedAt - startedAt) / 1000).toFixed(1)} s, ` +
					`${rejected.length} answers 401 (${expired.length} after a token ran out), ` +
					`${tokens.length} token requests; busiest minute of the suite: ${busiestMinute} token requests`,
			);
		});
	},
);
