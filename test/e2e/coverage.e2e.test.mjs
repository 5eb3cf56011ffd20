// Every operation of both nodes and every trigger event, at least once, inside a real n8n
// (DEFAULT_N8N_VERSION) with the packed package installed as a community package, against the
// sandbox. Outputs are checked against the sandbox's state and request log.
//
// Two n8n instances, each with its own sandbox:
//   actions   `n8n execute --id --rawOutput` of two workflows with many nodes: one Voice AI workflow
//             with all 8 Voice AI operations, one Messenger workflow with all 18 Messenger
//             operations. Afterwards every one of the API's 26 endpoints (token endpoint aside) must
//             have answered 2xx, and no request may have failed. (Message → Send and Wait for
//             Response pauses the execution until a person answers, which `n8n execute` cannot
//             give: sendAndWait.e2e.test.mjs runs it in a running n8n, on both n8n lines.)
//   triggers  `n8n start`. `n8n execute` cannot run a polling trigger: it only starts from a
//             Manual Trigger (or Execute Workflow Trigger) and refuses a workflow without one
//             ("Missing node to start execution"); a poll node next to a Manual Trigger never runs,
//             and in the `cli` mode n8n would not call `poll()` anyway (only in `manual` mode).
//             So the triggers run through n8n's REST API:
//             - Fetch Test Event: POST /rest/workflows/:id/run on the trigger, the call the editor
//               makes; n8n runs `poll()` in manual mode, which returns a real sample. All four
//               events: Campaign Status Changed, New Campaign, Balance Low, Broadcast Message Status
//               Changed.
//             - Published (activated) workflows for what test/e2e/voiceAiTrigger.e2e.test.mjs does
//               not cover: the Messenger Trigger on real status changes and Voice AI Trigger Balance
//               Low on a real drop, created and published through the REST API as the editor does.
//               Their baseline poll runs at activation; the test then changes the sandbox, and the
//               next scheduled poll (n8n polls at most once a minute; a custom cron with a fixed
//               second puts the first one FIRST_POLL_AFTER_S after publishing) must start exactly
//               one execution with the change. The Voice AI/Messenger workflows run on the other
//               instance meanwhile.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { matchRoute } from '../../sandbox/api.mjs';
import { DEMO_CLIENTS, ENDPOINTS, TOKEN_PATH, startSandbox } from '../../sandbox/server.mjs';
import { apiCall } from '../support/sandboxApi.mjs';
import {
	assertExecutionSucceeded,
	cleanupPack,
	createN8nInstance,
	executableWorkflow,
	n8nRestApi,
	nodeOutput,
	PACKAGE_NAME,
	packPackage,
	pollDiagnostics,
	sandboxCredential,
	sleep,
	startWithOwner,
	waitFor,
	manualTriggerNode,
} from './harness.mjs';

const VOICE_TYPE = `${PACKAGE_NAME}.voiceAi`;
const MESSENGER_TYPE = `${PACKAGE_NAME}.messenger`;
const VOICE_TRIGGER_TYPE = `${PACKAGE_NAME}.voiceAiTrigger`;
const MESSENGER_TRIGGER_TYPE = `${PACKAGE_NAME}.messengerTrigger`;

const OWNER = { email: 'owner@e2e.example', password: 'E2e-owner-Passw0rd' };
const BROWSER_ID = 'e2e-coverage-browser';

/** Credentials: one client per use, so the sandbox log tells the requests apart by client id. */
const CRED = {
	full: { id: 'e2eCovCredFull1', name: 'Coverage full client (e2e)', client: DEMO_CLIENTS.full },
	messenger: {
		id: 'e2eCovCredMsgr1',
		name: 'Coverage messenger client (e2e)',
		client: DEMO_CLIENTS.messengerOnly,
	},
	voice: {
		id: 'e2eCovCredVoic1',
		name: 'Coverage voice client (e2e)',
		client: DEMO_CLIENTS.voiceOnly,
	},
};

const WF = {
	voice: 'e2eCovVoiceAll1',
	messenger: 'e2eCovMsgrAll01',
	sampleStatus: 'e2eCovSmpStatus',
	sampleNewCampaign: 'e2eCovSmpNewCmp',
	sampleBalance: 'e2eCovSmpBalnce',
	sampleBroadcast: 'e2eCovSmpBcast1',
};

/** Seconds from publishing the polling workflows to their first scheduled poll. */
const FIRST_POLL_AFTER_S = 12;
/** The activated workflows: the Balance Low threshold (credit) and the credit the test drops to. */
const BALANCE_THRESHOLD = 100;
const LOW_CREDIT = 42.5;

const plain = (value) => JSON.parse(JSON.stringify(value));
const sha256 = (buffer) => createHash('sha256').update(buffer).digest('hex');
const suffix = randomBytes(3).toString('hex');

/**
 * A workflow from nodes (each may name the nodes it feeds in `to`); nodes without a parent are fed
 * by the Manual Trigger when `manual` is set. Branches are laid out top to bottom in the given
 * order, which is the order n8n (execution order v1) runs them in.
 */
function buildWorkflow(id, nodes, { manual = true } = {}) {
	const all = manual ? [manualTriggerNode(), ...nodes] : nodes;
	const hasParent = new Set(all.flatMap((node) => node.to ?? []));
	if (manual) {
		all[0].to = all.slice(1).flatMap((node) => (hasParent.has(node.name) ? [] : [node.name]));
	}
	const connections = {};
	for (const node of all) {
		if (!node.to?.length) continue;
		connections[node.name] = {
			main: [node.to.map((target) => ({ node: target, type: 'main', index: 0 }))],
		};
	}
	// Position: depth along x, one row per branch, so v1 runs the branches in the order given.
	const place = new Map();
	const visit = (name, depth, row) => {
		if (place.has(name)) return;
		place.set(name, [depth * 240, row * 160]);
		for (const child of all.find((n) => n.name === name)?.to ?? []) visit(child, depth + 1, row);
	};
	let rows = 0;
	for (const node of all) {
		if (hasParent.has(node.name)) continue;
		if (manual && node === all[0]) {
			place.set(node.name, [0, 0]);
			for (const child of node.to) visit(child, 1, rows++);
		} else visit(node.name, 0, rows++);
	}
	return executableWorkflow(
		id,
		connections,
		all.map(({ to, ...node }, i) => ({
			id: `${id}-${i}`,
			position: place.get(node.name) ?? [0, 0],
			...node,
		})),
	);
}

const credentialRef = (cred) => ({ voiceMessagingApi: { id: cred.id, name: cred.name } });

/** A Voice AI / Messenger node with the full client. */
const voice = (name, parameters, extra = {}) => ({
	name,
	type: VOICE_TYPE,
	typeVersion: 1,
	parameters,
	credentials: credentialRef(CRED.full),
	...extra,
});
const messenger = (name, parameters, extra = {}) => ({
	name,
	type: MESSENGER_TYPE,
	typeVersion: 1,
	parameters,
	credentials: credentialRef(CRED.full),
	...extra,
});

const byId = (value) => ({ __rl: true, mode: 'id', value });
const fromList = (value, cachedResultName) => ({
	__rl: true,
	mode: 'list',
	value,
	...(cachedResultName ? { cachedResultName } : {}),
});

/** A trigger workflow: the trigger, and for an activated one a No-Op after it and a cron. */
function triggerWorkflow(id, { type, name, parameters, cred, cronSecond }) {
	const active = cronSecond !== undefined;
	const nodes = [
		{
			name,
			type,
			typeVersion: 1,
			parameters: active
				? {
						...parameters,
						pollTimes: { item: [{ mode: 'custom', cronExpression: `${cronSecond} * * * * *` }] },
					}
				: parameters,
			credentials: credentialRef(cred),
			...(active ? { to: ['No-Op'] } : {}),
		},
	];
	if (active) {
		nodes.push({ name: 'No-Op', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} });
	}
	return buildWorkflow(id, nodes, { manual: false });
}

/** `METHOD /path/{param}` of the endpoint a logged request went to, or undefined. */
function endpointOf(entry) {
	if (entry.path === TOKEN_PATH) return `POST ${TOKEN_PATH}`;
	let segments;
	try {
		segments = entry.path
			.replace(/(.)\/$/, '$1')
			.split('/')
			.slice(1)
			.map((segment) => decodeURIComponent(segment));
	} catch {
		return undefined;
	}
	const { route } = matchRoute(entry.method, segments);
	if (!route) return undefined;
	const template = route.segments.map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s));
	return `${route.method} /${template.join('/')}`;
}

describe('every operation and trigger event in a real n8n', { timeout: 8 * 60_000 }, () => {
	/** @type {Awaited<ReturnType<typeof startSandbox>>} */ let actionsSandbox;
	/** @type {Awaited<ReturnType<typeof startSandbox>>} */ let triggersSandbox;
	/** @type {Awaited<ReturnType<typeof createN8nInstance>>} */ let actionsN8n;
	/** @type {Awaited<ReturnType<typeof createN8nInstance>>} */ let triggersN8n;
	/** @type {Awaited<ReturnType<Awaited<ReturnType<typeof createN8nInstance>>['start']>>} */
	let server;
	let cookie = '';
	let cronSecond = 0;
	/** Ids of the two published (activated) polling workflows; n8n gives them when created. */
	const active = { broadcast: '', balance: '' };
	/** When the polling workflows were published (for the diagnostics). */
	let publishedAt = 0;
	/** What each workflow on the actions instance is expected to do (picked from the seed). */
	const plan = {};
	/** The broadcast messages the Messenger Triggers watch (sent through the API before start). */
	let watchedIds = [];
	/** Set by the baseline test: the changes made and the poll counts at that moment. */
	let changed;
	/** Run data of the two action workflows. */
	const results = {};

	const credentialsFor = (sandbox) =>
		Object.values(CRED).map(({ client, ...cred }) => sandboxCredential(cred, sandbox, client));

	async function importWorkflows(n8n, workflows) {
		const file = join(n8n.userFolder, `coverage-workflows-${randomBytes(4).toString('hex')}.json`);
		writeFileSync(file, JSON.stringify(workflows));
		await n8n.n8n(['import:workflow', `--input=${file}`]);
	}

	/** Executes a workflow on the actions instance; fails with n8n's output when it failed. */
	async function execute(workflowId) {
		return assertExecutionSucceeded(await actionsN8n.execute(workflowId), actionsN8n.log());
	}

	// ---- the running n8n's REST API (set once n8n is up)
	/** @type {ReturnType<typeof n8nRestApi>} */
	let api;
	const rest = (method, path, body) => api.rest(method, path, body);
	const executionsOf = (workflowId) => api.executionsOf(workflowId);
	const runDataOf = (executionId) => api.runDataOf(executionId);

	const itemsOf = (runData, nodeName) => {
		const runs = runData[nodeName];
		assert.ok(runs?.length, `node "${nodeName}" did not run; ran: ${Object.keys(runData)}`);
		const last = runs[runs.length - 1];
		assert.equal(last.error, undefined, `node "${nodeName}" failed: ${JSON.stringify(last.error)}`);
		return (last.data?.main?.[0] ?? []).map((item) => item.json);
	};

	/** Fetch Test Event on a trigger, as the editor does it: a manual run of the trigger alone. */
	async function fetchTestEvent(workflowId, triggerName) {
		const started = await rest('POST', `/rest/workflows/${workflowId}/run`, {
			triggerToStartFrom: { name: triggerName },
			destinationNode: { nodeName: triggerName, mode: 'inclusive' },
		});
		assert.ok(started?.executionId, `no execution started: ${JSON.stringify(started)}`);
		const summary = await waitFor(
			async () => {
				const { execution } = await runDataOf(started.executionId).catch(() => ({}));
				return execution && !['new', 'running', 'waiting'].includes(execution.status)
					? execution
					: undefined;
			},
			{ timeoutMs: 30_000, describe: () => `execution ${started.executionId} did not finish` },
		);
		assert.equal(summary.mode, 'manual');
		const { runData, error } = await runDataOf(started.executionId);
		assert.equal(error, undefined, JSON.stringify(error));
		assert.equal(summary.status, 'success', JSON.stringify(summary).slice(0, 1000));
		return itemsOf(runData, triggerName);
	}

	// ---- polls of the activated workflows, counted in the triggers sandbox's log
	const broadcastPolls = () =>
		triggersSandbox.log.filter(
			(e) =>
				e.clientId === CRED.messenger.client.clientId &&
				e.method === 'GET' &&
				e.path === `/api/v1/messenger/broadcast/messages/${watchedIds[0]}`,
		).length;
	const balancePolls = () =>
		triggersSandbox.log.filter(
			(e) =>
				e.clientId === CRED.voice.client.clientId &&
				e.method === 'GET' &&
				e.path === '/api/v1/voice/billing/balance',
		).length;
	const diagnostics = () => pollDiagnostics(triggersSandbox, server, 25);

	/** The one finished execution an activated workflow has after the change. */
	async function theExecutionAfterChange(workflowId, polls, pollsBefore) {
		await waitFor(() => polls() > pollsBefore, {
			timeoutMs: 75_000,
			describe: () => `no scheduled poll after the change${diagnostics()}`,
		});
		const executions = await waitFor(
			async () => {
				const list = await executionsOf(workflowId);
				return list.length > 0 && list.every((e) => !['new', 'running'].includes(e.status))
					? list
					: undefined;
			},
			{ timeoutMs: 30_000, describe: () => `no finished execution after the poll${diagnostics()}` },
		);
		assert.equal(executions.length, 1, JSON.stringify(executions, null, 2));
		assert.equal(executions[0].status, 'success', JSON.stringify(executions[0]));
		assert.equal(executions[0].mode, 'trigger');
		const { runData, error } = await runDataOf(executions[0].id);
		assert.equal(error, undefined, JSON.stringify(error));
		return runData;
	}

	/** Creates a workflow through the REST API and publishes (activates) it; returns its id. */
	async function publish(workflow) {
		const { name, nodes, connections, settings } = workflow;
		const created = await rest('POST', '/rest/workflows', { name, nodes, connections, settings });
		assert.ok(created?.id && created.versionId, JSON.stringify(created).slice(0, 1000));
		const activated = await rest('POST', `/rest/workflows/${created.id}/activate`, {
			versionId: created.versionId,
		});
		assert.equal(activated.activeVersionId, created.versionId, 'the saved version is published');
		return created.id;
	}

	before(async () => {
		[actionsSandbox, triggersSandbox] = await Promise.all([
			startSandbox({ port: 0, host: '127.0.0.1' }),
			startSandbox({ port: 0, host: '127.0.0.1' }),
		]);
		const tarball = await packPackage();
		[actionsN8n, triggersN8n] = await Promise.all([
			createN8nInstance({ tarball }),
			createN8nInstance({
				tarball,
				extraEnv: { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all', GENERIC_TIMEZONE: 'UTC' },
			}),
		]);

		// The broadcast the Messenger Triggers watch; a phone ending in 0000 fails at the first step.
		const sent = await apiCall(
			triggersSandbox,
			DEMO_CLIENTS.full,
			'POST',
			'/api/v1/messenger/broadcast/messages',
			{
				channel: 'whatsapp',
				recipients: [
					{ phone: '+34600111222' },
					{ phone: '+34600333444' },
					{ phone: '+34600990000' },
				],
				templateId: 'order_update',
			},
		);
		watchedIds = sent.items.map((m) => m.id);
		assert.deepEqual(
			sent.items.map((m) => m.status),
			['queued', 'queued', 'queued'],
		);
		// Balance Low watches the credit: well above the threshold at activation.
		triggersSandbox.state.balance.credit = 800;

		const setUpActions = async () => {
			await actionsN8n.importCredentials(credentialsFor(actionsSandbox));
			await importWorkflows(actionsN8n, [voiceWorkflow(), messengerWorkflow()]);
		};

		const setUpTriggers = async () => {
			await triggersN8n.importCredentials(credentialsFor(triggersSandbox));
			await importWorkflows(triggersN8n, [
				triggerWorkflow(WF.sampleStatus, {
					type: VOICE_TRIGGER_TYPE,
					name: 'Voice AI Trigger',
					parameters: {
						event: 'campaignStatusChanged',
						campaignScope: 'all',
						statuses: ['completed', 'failed', 'cancelled'],
					},
					cred: CRED.full,
				}),
				triggerWorkflow(WF.sampleNewCampaign, {
					type: VOICE_TRIGGER_TYPE,
					name: 'Voice AI Trigger',
					parameters: { event: 'newCampaign' },
					cred: CRED.full,
				}),
				triggerWorkflow(WF.sampleBalance, {
					type: VOICE_TRIGGER_TYPE,
					name: 'Voice AI Trigger',
					parameters: { event: 'balanceLow', metric: 'minutes', threshold: 1_000_000 },
					cred: CRED.full,
				}),
				triggerWorkflow(WF.sampleBroadcast, {
					type: MESSENGER_TRIGGER_TYPE,
					name: 'Messenger Trigger',
					// An expression giving an array of ids.
					parameters: {
						event: 'broadcastStatusChanged',
						messageIds: `={{ ${JSON.stringify([watchedIds[1], watchedIds[0]])} }}`,
					},
					cred: CRED.full,
				}),
			]);
			({ server, cookie } = await startWithOwner(triggersN8n, OWNER, BROWSER_ID));
			api = n8nRestApi({
				baseUrl: server.baseUrl,
				cookie,
				n8nDir: triggersN8n.n8nDir,
				browserId: BROWSER_ID,
			});
		};

		await Promise.all([setUpActions(), setUpTriggers()]);

		// The polling workflows are created and published the way the editor does it (POST
		// /rest/workflows, then /activate with the version), once n8n is up: so the cron's second
		// can put the first scheduled poll a fixed time after activation. (The Voice AI Trigger
		// suite publishes with the CLI before the start instead.)
		publishedAt = Date.now();
		cronSecond = Math.floor(publishedAt / 1000 + FIRST_POLL_AFTER_S) % 60;
		const ids = watchedIds.join(', ');
		[active.broadcast, active.balance] = await Promise.all(
			[
				triggerWorkflow('e2eCovTrgBcast', {
					type: MESSENGER_TRIGGER_TYPE,
					name: 'Messenger Trigger',
					parameters: { event: 'broadcastStatusChanged', messageIds: ids, statuses: [] },
					cred: CRED.messenger,
					cronSecond,
				}),
				triggerWorkflow('e2eCovTrgBalnc', {
					type: VOICE_TRIGGER_TYPE,
					name: 'Voice AI Trigger',
					parameters: { event: 'balanceLow', metric: 'credit', threshold: BALANCE_THRESHOLD },
					cred: CRED.voice,
					cronSecond,
				}),
			].map(publish),
		);
	});

	after(async () => {
		await server?.stop();
		await actionsN8n?.cleanup();
		await triggersN8n?.cleanup();
		await actionsSandbox?.close();
		await triggersSandbox?.close();
		cleanupPack();
	});

	// ------------------------------------------------------------------ workflows (actions instance)

	/** Manual Trigger → every Voice AI operation (the seed picks the records). */
	function voiceWorkflow() {
		const state = actionsSandbox.state;
		plan.listedCampaign = state.campaigns[4];
		plan.cancelled = state.campaigns.findLast((c) => c.status === 'pending');
		assert.ok(plan.cancelled, 'the seed has a pending campaign');
		plan.trends = { from: '2025-05-01', to: '2025-05-31', granularity: 'week' };
		return buildWorkflow(WF.voice, [
			voice(
				'Get Many Agents',
				{
					resource: 'agent',
					operation: 'getAll',
					returnAll: false,
					limit: 3,
					options: { sort: 'asc' },
				},
				{ to: ['Get Agent'] },
			),
			// Once per item, the id from the previous node through an expression.
			voice('Get Agent', { resource: 'agent', operation: 'get', agentId: byId('={{ $json.id }}') }),
			voice(
				'Get Completed Campaigns',
				{
					resource: 'campaign',
					operation: 'getAll',
					returnAll: true,
					filters: { status: 'completed' },
				},
				{ to: ['Get Campaign Data'] },
			),
			voice(
				'Get Campaign Data',
				{
					resource: 'campaign',
					operation: 'getData',
					campaignId: byId('={{ $json.id }}'),
					returnAll: true,
					options: {},
				},
				{ executeOnce: true },
			),
			// The Resource Locator's "From List" mode, as the editor saves a picked campaign.
			voice('Get Campaign', {
				resource: 'campaign',
				operation: 'get',
				campaignId: fromList(plan.listedCampaign.id, plan.listedCampaign.name),
			}),
			voice('Cancel Campaign', {
				resource: 'campaign',
				operation: 'cancel',
				campaignId: byId(plan.cancelled.id),
			}),
			voice('Get Balance', { resource: 'billing', operation: 'getBalance' }),
			voice('Get Call Trends', {
				resource: 'report',
				operation: 'getCallTrends',
				...plan.trends,
				options: {},
			}),
		]);
	}

	/** Manual Trigger → every Messenger operation. */
	function messengerWorkflow() {
		const state = actionsSandbox.state;
		const chats = state.chats;
		plan.checkedChat = chats[1]; // open and marked important in the seed
		assert.equal(plan.checkedChat.status, 'open');
		assert.equal(plan.checkedChat.important, true);
		plan.closedChat = chats.find((c) => c.status === 'closed');
		assert.ok(plan.closedChat, 'the seed has a closed chat');
		plan.mediaChat = chats[3];
		plan.locationChat = chats[0];
		plan.fileChat = chats[2];
		let reacted = state.messages.find(
			(m) => m.reaction !== null && m.chatId !== plan.checkedChat.id,
		);
		if (!reacted) {
			reacted = state.messages.find((m) => m.chatId !== plan.checkedChat.id);
			reacted.reaction = '👍';
		}
		plan.reacted = reacted;
		plan.sendingNumber = state.whatsappNumbers[1];
		let phoneDigits;
		do phoneDigits = `6${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
		while (chats.some((c) => c.phone === `+34${phoneDigits}`));
		plan.newPhone = `+34${phoneDigits}`;
		plan.file = {
			bytes: Buffer.concat([
				Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
				randomBytes(3000),
			]),
			fileName: `coverage-${suffix}.png`,
			mimeType: 'image/png',
		};
		const digits = () => String(100 + Math.floor(Math.random() * 900));
		let contactPhone;
		do contactPhone = `+34 699 ${digits()} ${digits()}`;
		while (state.contacts.some((c) => c.phone === contactPhone.replaceAll(' ', '')));
		plan.contact = {
			name: `E2E Coverage ${suffix}`,
			phone: contactPhone,
			email: `coverage-${suffix}@example.com`,
		};
		plan.contact.normalized = plan.contact.phone.replaceAll(' ', '');
		plan.broadcastEmails = [`ana-${suffix}@example.com`, `ben-${suffix}@example.com`];

		return buildWorkflow(WF.messenger, [
			messenger('Get WhatsApp Numbers', {
				resource: 'whatsappNumber',
				operation: 'getAll',
				returnAll: true,
				options: {},
			}),
			messenger(
				'Check Existing',
				{
					resource: 'chat',
					operation: 'checkExisting',
					// Spaces and dashes: the node sends E.164.
					phone: plan.checkedChat.phone.replace(/^(\+\d{2})(\d{3})(\d+)$/, '$1 $2-$3'),
					options: {},
				},
				{ to: ['Get Messages'] },
			),
			messenger(
				'Get Messages',
				{
					resource: 'chat',
					operation: 'getMessages',
					chatId: '={{ $json.chatId }}',
					returnAll: true,
					options: { sort: 'asc' },
				},
				{ to: ['Mark Important'] },
			),
			messenger(
				'Mark Important',
				{
					resource: 'chat',
					operation: 'markImportant',
					chatId: "={{ $('Check Existing').first().json.chatId }}",
					important: false,
					options: {},
				},
				{ executeOnce: true },
			),
			messenger('Reopen Chat', {
				resource: 'chat',
				operation: 'reopen',
				chatId: plan.closedChat.id,
			}),
			messenger(
				'Send Media by URL',
				{
					resource: 'message',
					operation: 'sendMedia',
					chatId: plan.mediaChat.id,
					url: 'https://example.com/brochure.pdf',
					mediaType: 'document',
					options: { caption: 'The brochure', fileName: 'brochure.pdf' },
				},
				{ to: ['Get Message'] },
			),
			messenger('Get Message', {
				resource: 'message',
				operation: 'get',
				messageId: '={{ $json.id }}',
			}),
			messenger('Send Media to Phone', {
				resource: 'message',
				operation: 'sendMediaToPhone',
				phone: plan.newPhone,
				url: 'https://example.com/photo.jpg',
				mediaType: 'image',
				options: { caption: 'A photo', whatsappNumberId: plan.sendingNumber.id },
			}),
			messenger('Send Location', {
				resource: 'message',
				operation: 'sendLocation',
				chatId: plan.locationChat.id,
				latitude: 40.4168,
				longitude: -3.7038,
				options: { name: 'Office', address: 'Puerta del Sol, Madrid' },
			}),
			messenger('Remove Reaction', {
				resource: 'message',
				operation: 'removeReaction',
				messageId: plan.reacted.id,
			}),
			{
				name: 'Edit Fields',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				parameters: {
					mode: 'manual',
					assignments: {
						assignments: [
							{
								id: 'fileBase64',
								name: 'fileBase64',
								value: plan.file.bytes.toString('base64'),
								type: 'string',
							},
						],
					},
					options: {},
				},
				to: ['Convert to File'],
			},
			{
				name: 'Convert to File',
				type: 'n8n-nodes-base.convertToFile',
				typeVersion: 1.1,
				parameters: {
					operation: 'toBinary',
					sourceProperty: 'fileBase64',
					binaryPropertyName: 'data',
					options: { fileName: plan.file.fileName, mimeType: plan.file.mimeType },
				},
				to: ['Send Media File'],
			},
			messenger('Send Media File', {
				resource: 'message',
				operation: 'sendMediaFile',
				chatId: plan.fileChat.id,
				binaryPropertyName: 'data',
				options: { caption: 'The file' },
			}),
			messenger(
				'Create Contact',
				{
					resource: 'contact',
					operation: 'create',
					name: plan.contact.name,
					phone: plan.contact.phone,
					options: { email: plan.contact.email, attributes: '{"plan": "silver"}' },
				},
				{ to: ['Update Attribute'] },
			),
			messenger(
				'Update Attribute',
				{
					resource: 'contact',
					operation: 'updateAttribute',
					contactId: byId('={{ $json.id }}'),
					key: 'score',
					valueType: 'json',
					value: '{"level": 2}',
					options: {},
				},
				{ to: ['Replace Attributes'] },
			),
			messenger(
				'Replace Attributes',
				{
					resource: 'contact',
					operation: 'replaceAttributes',
					// "From List" mode with a value mapped from the previous node.
					contactId: fromList('={{ $json.id }}'),
					attributes: '{"city": "Sevilla", "vip": true}',
					options: {},
				},
				{ to: ['Get Contact'] },
			),
			messenger(
				'Get Contact',
				{
					resource: 'contact',
					operation: 'get',
					contactId: byId("={{ $('Create Contact').item.json.id }}"),
				},
				{ to: ['Search Contacts'] },
			),
			messenger('Search Contacts', {
				resource: 'contact',
				operation: 'search',
				customer: `COVERAGE ${suffix.toUpperCase()}`,
				returnAll: true,
				options: {},
			}),
			messenger(
				'Send Broadcast',
				{
					resource: 'broadcast',
					operation: 'send',
					channel: 'email',
					recipientsInput: 'rows',
					recipients: {
						recipient: [
							{ email: plan.broadcastEmails[0], variables: '{"name": "Ana"}' },
							{ email: plan.broadcastEmails[1], variables: '{}' },
						],
					},
					messageContent: 'template',
					templateId: 'order_confirmation',
					options: {},
				},
				{ to: ['Get Broadcast Status'] },
			),
			messenger('Get Broadcast Status', {
				resource: 'broadcast',
				operation: 'getStatus',
				messageIds: '={{ $json.id }}',
			}),
		]);
	}

	// ------------------------------------------------------------------ tests

	it('activated triggers: the baseline poll at activation starts no execution; then the sandbox changes', async (t) => {
		await waitFor(() => broadcastPolls() >= 1 && balancePolls() >= 1, {
			timeoutMs: 60_000,
			describe: () => `no baseline poll of both workflows${diagnostics()}`,
		});
		// Let the poll finish (one request per watched message), and let an imminent scheduled poll
		// pass first, so that no poll runs while the sandbox changes.
		await sleep(1_500);
		const now = new Date();
		const msToNextPoll =
			(((cronSecond - now.getUTCSeconds() + 60) % 60) * 1000 || 60_000) - now.getUTCMilliseconds();
		t.diagnostic(
			`published ${((Date.now() - publishedAt) / 1000).toFixed(1)} s ago; next poll in ${msToNextPoll} ms`,
		);
		if (msToNextPoll < 6_000) {
			const [broadcast, balance] = [broadcastPolls(), balancePolls()];
			await waitFor(() => broadcastPolls() > broadcast && balancePolls() > balance, {
				timeoutMs: 30_000,
				describe: () => `no scheduled poll at second ${cronSecond}${diagnostics()}`,
			});
			await sleep(2_000);
		}
		// Each poll so far (the baseline, and maybe a scheduled one) saw no change.
		assert.equal(broadcastPolls(), balancePolls(), `both workflows poll together${diagnostics()}`);
		assert.deepEqual(
			triggersSandbox.log.filter((e) => e.status >= 400),
			[],
			'every baseline request succeeded',
		);
		assert.deepEqual(await executionsOf(active.broadcast), []);
		assert.deepEqual(await executionsOf(active.balance), []);

		// The change: every watched message moves one step (two to sent, the 0000 one to failed),
		// and the credit drops below the threshold.
		triggersSandbox.advance();
		triggersSandbox.state.balance.credit = LOW_CREDIT;
		changed = { broadcastPolls: broadcastPolls(), balancePolls: balancePolls() };
		const statuses = watchedIds.map(
			(id) => triggersSandbox.state.broadcastMessages.find((m) => m.id === id)?.status,
		);
		assert.deepEqual(statuses, ['sent', 'sent', 'failed']);
	});

	it('Voice AI: all 8 operations in one workflow', async (t) => {
		const started = Date.now();
		results.voice = await execute(WF.voice);
		t.diagnostic(`n8n execute took ${Date.now() - started} ms`);
		const state = actionsSandbox.state;
		const result = results.voice;

		// Agent → Get Many (Limit 3, oldest first), then Agent → Get once per item.
		const agents = nodeOutput(result, 'Get Many Agents');
		assert.deepEqual(agents, plain(state.agents.slice(0, 3)));
		assert.deepEqual(nodeOutput(result, 'Get Agent'), agents);
		const agentLists = actionsSandbox.log.filter((e) => e.path === '/api/v1/voice/agents');
		assert.deepEqual(
			agentLists.map((e) => [e.query.sort, e.query.page, e.status]),
			[['asc', '1', 200]],
		);
		assert.deepEqual(
			actionsSandbox.log
				.filter((e) => e.path.startsWith('/api/v1/voice/agents/'))
				.map((e) => e.path.split('/').pop()),
			agents.map((a) => a.id),
		);

		// Campaign → Get Many, status filter, Return All: newest first.
		const completed = nodeOutput(result, 'Get Completed Campaigns');
		const expectedCompleted = state.campaigns.filter((c) => c.status === 'completed').reverse();
		assert.ok(expectedCompleted.length >= 2, 'the seed has completed campaigns');
		assert.deepEqual(completed, plain(expectedCompleted));
		assert.ok(
			actionsSandbox.log.some(
				(e) => e.path === '/api/v1/voice/campaigns' && e.query.status === 'completed',
			),
		);

		// Campaign → Get Data (Execute Once): the records of the first completed campaign only.
		const records = nodeOutput(result, 'Get Campaign Data');
		const expectedRecords = plain(state.campaignData.get(completed[0].id));
		assert.ok(expectedRecords.length > 0);
		assert.deepEqual(records, expectedRecords);
		assert.ok(
			records.every((r) => r.status !== 'pending'),
			'a completed campaign has no pending calls',
		);
		assert.deepEqual(
			[...new Set(actionsSandbox.log.filter((e) => e.path.endsWith('/data')).map((e) => e.path))],
			[`/api/v1/voice/campaigns/${completed[0].id}/data`],
		);

		// Campaign → Get with the "From List" mode.
		assert.deepEqual(nodeOutput(result, 'Get Campaign'), [plain(plan.listedCampaign)]);

		// Campaign → Cancel.
		const [cancelled] = nodeOutput(result, 'Cancel Campaign');
		assert.equal(cancelled.id, plan.cancelled.id);
		assert.equal(cancelled.status, 'cancelled');
		assert.equal(state.campaigns.find((c) => c.id === plan.cancelled.id)?.status, 'cancelled');

		// Billing → Get Balance.
		const { credit, currency, minutes, ratePerMinute } = state.balance;
		assert.deepEqual(nodeOutput(result, 'Get Balance'), [
			{ credit, currency, minutes, ratePerMinute },
		]);

		// Report → Get Call Trends: one item per week; what the API answers for the same query.
		const trends = nodeOutput(result, 'Get Call Trends');
		const trendRequests = actionsSandbox.log.filter(
			(e) => e.path === '/api/v1/voice/reports/trends',
		);
		assert.deepEqual(
			trendRequests.map((e) => e.query),
			[plan.trends],
		);
		assert.deepEqual(
			trends.map((p) => p.period),
			['2025-04-28', '2025-05-05', '2025-05-12', '2025-05-19', '2025-05-26'],
		);
		const reference = await apiCall(
			actionsSandbox,
			DEMO_CLIENTS.voiceOnly,
			'GET',
			`/api/v1/voice/reports/trends?${new URLSearchParams(plan.trends)}`,
		);
		assert.deepEqual(trends, reference.items);
	});

	it('Messenger: all 18 operations in one workflow', async (t) => {
		const started = Date.now();
		const messagesBefore = actionsSandbox.state.messages.length;
		results.messenger = await execute(WF.messenger);
		t.diagnostic(`n8n execute took ${Date.now() - started} ms`);
		const state = actionsSandbox.state;
		const result = results.messenger;
		const stored = (id) => plain(state.messages.find((m) => m.id === id));

		// WhatsApp Number → Get Many.
		assert.deepEqual(nodeOutput(result, 'Get WhatsApp Numbers'), plain(state.whatsappNumbers));

		// Chat → Check Existing, Get Messages (oldest first), Mark Important (Execute Once, off).
		assert.deepEqual(nodeOutput(result, 'Check Existing'), [
			{ exists: true, chatId: plan.checkedChat.id },
		]);
		assert.deepEqual(
			actionsSandbox.log
				.filter((e) => e.path === '/api/v1/messenger/chats/check-existing')
				.map((e) => e.query.phone),
			[plan.checkedChat.phone],
		);
		const history = state.messages
			.filter((m) => m.chatId === plan.checkedChat.id)
			.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
		assert.ok(history.length >= 3);
		assert.deepEqual(nodeOutput(result, 'Get Messages'), plain(history));
		const marked = nodeOutput(result, 'Mark Important');
		assert.equal(marked.length, 1, 'Execute Once: one request for all the messages');
		assert.equal(marked[0].id, plan.checkedChat.id);
		assert.equal(marked[0].important, false);
		assert.equal(state.chats.find((c) => c.id === plan.checkedChat.id)?.important, false);

		// Chat → Reopen.
		const [reopened] = nodeOutput(result, 'Reopen Chat');
		assert.equal(reopened.id, plan.closedChat.id);
		assert.equal(reopened.status, 'open');
		assert.equal(state.chats.find((c) => c.id === plan.closedChat.id)?.status, 'open');

		// Message → Send Media by URL, then Get of the id from the previous node.
		const [media] = nodeOutput(result, 'Send Media by URL');
		assert.equal(media.chatId, plan.mediaChat.id);
		assert.equal(media.type, 'document');
		assert.deepEqual(media.content, {
			url: 'https://example.com/brochure.pdf',
			caption: 'The brochure',
			fileName: 'brochure.pdf',
		});
		assert.deepEqual(media, stored(media.id));
		assert.deepEqual(nodeOutput(result, 'Get Message'), [stored(media.id)]);

		// Message → Send Media to Phone: a phone without a chat gets a new one.
		const [toPhone] = nodeOutput(result, 'Send Media to Phone');
		const newChat = state.chats.find((c) => c.phone === plan.newPhone);
		assert.ok(newChat, 'a chat was opened for the phone');
		assert.equal(newChat.status, 'open');
		assert.equal(toPhone.chatId, newChat.id);
		assert.equal(toPhone.type, 'image');
		assert.deepEqual(toPhone.content, { url: 'https://example.com/photo.jpg', caption: 'A photo' });
		assert.deepEqual(toPhone, stored(toPhone.id));

		// Message → Send Location.
		const [location] = nodeOutput(result, 'Send Location');
		assert.equal(location.chatId, plan.locationChat.id);
		assert.equal(location.type, 'location');
		assert.deepEqual(location.content, {
			latitude: 40.4168,
			longitude: -3.7038,
			name: 'Office',
			address: 'Puerta del Sol, Madrid',
		});
		assert.deepEqual(location, stored(location.id));

		// Message → Remove Reaction.
		assert.deepEqual(nodeOutput(result, 'Remove Reaction'), [{ success: true }]);
		assert.equal(state.messages.find((m) => m.id === plan.reacted.id)?.reaction, null);

		// Message → Send Media File: the bytes made in n8n arrive unchanged.
		const [fileMessage] = nodeOutput(result, 'Send Media File');
		const upload = state.uploads.find((u) => u.messageId === fileMessage.id);
		assert.ok(upload, 'the upload is in the sandbox');
		assert.equal(upload.sha256, sha256(plan.file.bytes));
		assert.equal(upload.size, plan.file.bytes.length);
		assert.equal(upload.fileName, plan.file.fileName);
		assert.equal(upload.mimeType, plan.file.mimeType);
		assert.equal(upload.chatId, plan.fileChat.id);
		assert.equal(upload.caption, 'The file');
		assert.equal(fileMessage.type, 'image');
		assert.deepEqual(fileMessage, stored(fileMessage.id));
		assert.equal(state.messages.length, messagesBefore + 4, 'four sends, each once');

		// Contact → Create, Update Attribute (JSON value), Replace Attributes ("From List" mode with
		// a mapped id), Get, Search (another case than the name).
		const [created] = nodeOutput(result, 'Create Contact');
		assert.equal(created.name, plan.contact.name);
		assert.equal(created.phone, plan.contact.normalized);
		assert.equal(created.email, plan.contact.email);
		assert.deepEqual(created.attributes, { plan: 'silver' });
		const [updated] = nodeOutput(result, 'Update Attribute');
		assert.equal(updated.id, created.id);
		assert.deepEqual(updated.attributes, { plan: 'silver', score: { level: 2 } });
		const [replaced] = nodeOutput(result, 'Replace Attributes');
		assert.equal(replaced.id, created.id);
		assert.deepEqual(replaced.attributes, { city: 'Sevilla', vip: true });
		const storedContact = plain(state.contacts.find((c) => c.id === created.id));
		assert.deepEqual(nodeOutput(result, 'Get Contact'), [storedContact]);
		assert.deepEqual(nodeOutput(result, 'Search Contacts'), [storedContact]);

		// Broadcast → Send (email, recipients as rows, a template), then Get Status per message.
		const broadcast = nodeOutput(result, 'Send Broadcast');
		assert.deepEqual(
			broadcast.map((m) => [m.channel, m.recipient, m.status]),
			plan.broadcastEmails.map((email) => ['email', email, 'queued']),
		);
		const statuses = nodeOutput(result, 'Get Broadcast Status');
		assert.deepEqual(
			statuses,
			broadcast.map((m) => plain(state.broadcastMessages.find((b) => b.id === m.id))),
		);
	});

	it('the two workflows called each of the 26 endpoints with a 2xx answer, and nothing failed', () => {
		assert.ok(results.voice && results.messenger, 'both workflows ran');
		const endpoints = ENDPOINTS.filter((e) => e.path !== TOKEN_PATH).map(
			(e) => `${e.method} ${e.path}`,
		);
		assert.equal(endpoints.length, 26);
		const byN8n = actionsSandbox.log.filter(
			(e) => e.clientId === CRED.full.client.clientId && e.path !== TOKEN_PATH,
		);
		const failed = byN8n.filter((e) => e.status < 200 || e.status >= 300);
		assert.deepEqual(failed, [], 'no request failed');
		const answered = new Set(byN8n.map(endpointOf));
		const missing = endpoints.filter((endpoint) => !answered.has(endpoint));
		assert.deepEqual(missing, [], `endpoints never called: ${missing.join(', ')}`);
		assert.equal(ENDPOINTS.filter((e) => e.scope === 'voicebot').length, 8);
		assert.equal(ENDPOINTS.filter((e) => e.scope === 'messenger').length, 18);
	});

	it('Fetch Test Event, Voice AI Trigger → Campaign Status Changed: the newest campaign in a chosen status', async () => {
		const items = await fetchTestEvent(WF.sampleStatus, 'Voice AI Trigger');
		const statuses = ['completed', 'failed', 'cancelled'];
		const newestFirst = [...triggersSandbox.state.campaigns].reverse().slice(0, 100);
		const expected = newestFirst.find((c) => statuses.includes(c.status));
		assert.ok(expected);
		assert.ok(
			!statuses.includes(newestFirst[0].status),
			'the newest campaign is still running, so the status filter matters',
		);
		assert.deepEqual(items, [
			{
				campaignId: expected.id,
				campaignName: expected.name,
				previousStatus: null,
				status: expected.status,
				campaign: plain(expected),
			},
		]);
	});

	it('Fetch Test Event, Voice AI Trigger → New Campaign: the newest campaign', async () => {
		const created = triggersSandbox.addCampaign({ name: `E2E coverage sample ${suffix}` });
		const items = await fetchTestEvent(WF.sampleNewCampaign, 'Voice AI Trigger');
		assert.deepEqual(items, [plain(created)]);
	});

	it('Fetch Test Event, Voice AI Trigger → Balance Low: the current balance against the threshold', async () => {
		const items = await fetchTestEvent(WF.sampleBalance, 'Voice AI Trigger');
		const { credit, currency, minutes, ratePerMinute } = triggersSandbox.state.balance;
		assert.equal(credit, LOW_CREDIT);
		assert.deepEqual(items, [
			{
				metric: 'minutes',
				value: minutes,
				threshold: 1_000_000,
				belowThreshold: true,
				balance: { credit, currency, minutes, ratePerMinute },
			},
		]);
	});

	it('Fetch Test Event, Messenger Trigger → Broadcast Message Status Changed: the first watched message', async () => {
		const sampleRequestsBefore = triggersSandbox.log.filter(
			(e) => e.clientId === CRED.full.client.clientId && e.path.includes('/broadcast/messages/'),
		).length;
		const items = await fetchTestEvent(WF.sampleBroadcast, 'Messenger Trigger');
		// The ids came from an expression giving an array: the first of them is sampled.
		const message = triggersSandbox.state.broadcastMessages.find((m) => m.id === watchedIds[1]);
		assert.deepEqual(items, [
			{ messageId: watchedIds[1], previousStatus: null, status: 'sent', message: plain(message) },
		]);
		const sampleRequests = triggersSandbox.log
			.filter(
				(e) => e.clientId === CRED.full.client.clientId && e.path.includes('/broadcast/messages/'),
			)
			.slice(sampleRequestsBefore);
		assert.deepEqual(
			sampleRequests.map((e) => [e.path.split('/').pop(), e.status]),
			[[watchedIds[1], 200]],
		);
	});

	it('activated Messenger Trigger: the next poll starts one execution with every status change', async () => {
		assert.ok(changed, 'the baseline test ran');
		const runData = await theExecutionAfterChange(
			active.broadcast,
			broadcastPolls,
			changed.broadcastPolls,
		);
		const items = itemsOf(runData, 'Messenger Trigger');
		const stored = (id) => plain(triggersSandbox.state.broadcastMessages.find((m) => m.id === id));
		assert.deepEqual(
			items,
			watchedIds.map((id, i) => ({
				messageId: id,
				previousStatus: 'queued',
				status: i === 2 ? 'failed' : 'sent',
				message: stored(id),
			})),
		);
		assert.equal(items[2].message.error, 'Recipient unreachable');
		assert.deepEqual(itemsOf(runData, 'No-Op'), items);
	});

	it('activated Voice AI Trigger → Balance Low: the next poll starts one execution for the drop', async () => {
		assert.ok(changed, 'the baseline test ran');
		const runData = await theExecutionAfterChange(
			active.balance,
			balancePolls,
			changed.balancePolls,
		);
		const items = itemsOf(runData, 'Voice AI Trigger');
		const { currency, minutes, ratePerMinute } = triggersSandbox.state.balance;
		assert.deepEqual(items, [
			{
				metric: 'credit',
				value: LOW_CREDIT,
				threshold: BALANCE_THRESHOLD,
				belowThreshold: true,
				balance: { credit: LOW_CREDIT, currency, minutes, ratePerMinute },
			},
		]);
		assert.deepEqual(itemsOf(runData, 'No-Op'), items);
		assert.deepEqual(
			triggersSandbox.log.filter((e) => e.status >= 400),
			[],
			'no request to the triggers sandbox failed',
		);
		assert.doesNotMatch(server.output(), /poll failed/);
	});
});
