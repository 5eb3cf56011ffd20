// The example workflows in examples/ (the ones `npm start` imports) in a real n8n, against the
// sandbox, with the credential `npm start` creates. Each example runs as users run it:
// - examples that start with a Manual Trigger: `n8n execute --id` (the CLI);
// - examples that start with a polling trigger: the CLI cannot start them (it starts only at a
//   Manual Trigger, "Missing node to start execution"), so they run in a running n8n the way the
//   editor's "Execute workflow" button runs them (REST, mode `manual`): the trigger fetches a test
//   event (a real sample from the sandbox) and the rest of the workflow runs on it.
// - the AI Agent example (a Chat Trigger): in a running n8n as the editor's chat panel runs it (REST,
//   the message typed given as the trigger's output), with the sandbox's stand-in model.
// Every file in examples/ must be run by a test here: a new example without a test fails.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { STAND_IN_NOTE } from '../../sandbox/chatModel.mjs';
import { DEMO_CLIENTS, startSandbox } from '../../sandbox/server.mjs';
import {
	bcryptHash,
	cleanupPack,
	createN8nInstance,
	executionError,
	logIn,
	n8nRestApi,
	nodeOutput,
	packPackage,
	ROOT,
	runManually,
	sandboxCredential,
	sandboxModelCredential,
	waitFor,
} from './harness.mjs';

/** The credential scripts/start.mjs creates; every example must use exactly this one. */
const CREDENTIAL = { id: 'sandboxVoiceMessaging', name: 'Voice & Messaging sandbox' };
/** The model credential scripts/start.mjs creates (n8n's OpenAI credential, Base URL: the sandbox). */
const MODEL_CREDENTIAL = { id: 'sandboxChatModel', name: 'Sandbox chat model (stand-in)' };
const PACKAGE_NODE_TYPES = [
	'n8n-nodes-voice-messaging.voiceAi',
	'n8n-nodes-voice-messaging.messenger',
	'n8n-nodes-voice-messaging.voiceAiTool',
	'n8n-nodes-voice-messaging.messengerTool',
	'n8n-nodes-voice-messaging.voiceAiTrigger',
	'n8n-nodes-voice-messaging.messengerTrigger',
];
const MANUAL_TRIGGER = 'n8n-nodes-base.manualTrigger';
const STICKY = 'n8n-nodes-base.stickyNote';
const OWNER = { email: 'owner@e2e.example', password: 'E2e-owner-Passw0rd' };
const BROWSER_ID = 'e2e-browser';
const DAY_MS = 24 * 3_600_000;

const EXAMPLES_DIR = join(ROOT, 'examples');
const FILES = readdirSync(EXAMPLES_DIR)
	.filter((name) => name.endsWith('.json'))
	.sort();
/** file name → parsed workflow */
const EXAMPLES = new Map(
	FILES.map((name) => [name, JSON.parse(readFileSync(join(EXAMPLES_DIR, name), 'utf8'))]),
);
/** Files whose workflow a test below ran. */
const ran = new Set();

/** The example in `file`, marked as run by the calling test. */
function example(file) {
	const workflow = EXAMPLES.get(file);
	assert.ok(workflow, `examples/${file} exists (found: ${FILES.join(', ')})`);
	ran.add(file);
	return workflow;
}

const nodeNamed = (workflow, name) => {
	const node = workflow.nodes.find((n) => n.name === name);
	assert.ok(node, `${workflow.name}: no node "${name}"`);
	return node;
};
const nodeOfType = (workflow, type) => {
	const nodes = workflow.nodes.filter((n) => n.type === type);
	assert.equal(nodes.length, 1, `${workflow.name}: one node of type ${type}`);
	return nodes[0];
};
/** The value of an Edit Fields assignment. */
const assignment = (node, name) => {
	const found = node.parameters.assignments.assignments.find((a) => a.name === name);
	assert.ok(found, `"${node.name}" sets no field "${name}"`);
	return found.value;
};
const ranNodes = (runData) => Object.keys(runData);
const itemsOf = (runData, name, output = 0) =>
	(runData[name]?.at(-1)?.data?.main?.[output] ?? []).map((item) => item.json);

describe('Example workflows (examples/*.json) in a real n8n', { timeout: 10 * 60_000 }, () => {
	/** @type {Awaited<ReturnType<typeof startSandbox>>} */
	let sandbox;
	/** @type {Awaited<ReturnType<typeof createN8nInstance>>} */
	let n8n;

	/** Runs an imported example with `n8n execute --id`; fails with n8n's stderr when it failed. */
	async function execute(workflowId) {
		const result = await n8n.execute(workflowId);
		const error = executionError(result);
		assert.equal(
			error,
			undefined,
			`execution of ${workflowId} failed: ${JSON.stringify(error)?.slice(0, 2000)}\n${n8n.log().slice(-4000)}`,
		);
		return { result, runData: result.data.resultData.runData };
	}

	before(async () => {
		// No progression by itself: each test moves the sandbox when it needs to.
		sandbox = await startSandbox({ port: 0, host: '127.0.0.1', progressIntervalMs: 0 });
		const tarball = await packPackage();
		n8n = await createN8nInstance({ tarball, extraEnv: { GENERIC_TIMEZONE: 'UTC' } });
		// As scripts/start.mjs does: the demo credential, then every example as it is.
		await n8n.importCredentials([
			sandboxCredential(CREDENTIAL, sandbox, DEMO_CLIENTS.full),
			sandboxModelCredential(MODEL_CREDENTIAL, sandbox),
		]);
		for (const workflow of EXAMPLES.values()) await n8n.importWorkflow(workflow);
	});

	after(async () => {
		await n8n?.cleanup();
		await sandbox?.close();
		cleanupPack();
	});

	it('every example is a complete workflow: the demo credentials, existing node versions, notes, left to right', () => {
		assert.ok(FILES.length >= 6, `examples: ${FILES.join(', ')}`);
		const n8nRequire = createRequire(join(n8n.n8nDir, 'node_modules', 'n8n', 'package.json'));
		/** Versions of a node type of n8n's own packages, from the node class n8n itself loads. */
		const baseVersions = (type) => {
			const packageName = type.slice(0, type.lastIndexOf('.'));
			const name = type.slice(packageName.length + 1);
			const npmName = packageName === 'n8n-nodes-base' ? packageName : '@n8n/n8n-nodes-langchain';
			const packageJson = n8nRequire.resolve(`${npmName}/package.json`);
			for (const file of n8nRequire(packageJson).n8n.nodes) {
				if (basename(file).toLowerCase() !== `${name.toLowerCase()}.node.js`) continue;
				// By path: the langchain package's `exports` do not list its node files.
				const NodeClass = Object.values(n8nRequire(join(dirname(packageJson), file)))[0];
				const node = new NodeClass();
				if (node.description.name !== name) continue;
				return node.nodeVersions
					? Object.keys(node.nodeVersions).map(Number)
					: [].concat(node.description.version);
			}
			return [];
		};
		const ids = new Set();
		const names = new Set();
		for (const [file, workflow] of EXAMPLES) {
			const where = `examples/${file}`;
			assert.match(workflow.id ?? '', /^[A-Za-z0-9]{16}$/, `${where}: an id like n8n's own`);
			assert.ok(!ids.has(workflow.id), `${where}: id ${workflow.id} is used twice`);
			ids.add(workflow.id);
			assert.ok(workflow.name?.length > 10 && !names.has(workflow.name), `${where}: a clear name`);
			names.add(workflow.name);
			assert.equal(workflow.active, false, `${where}: imported inactive`);
			assert.equal(workflow.settings?.executionOrder, 'v1', where);
			assert.ok(
				!workflow.pinData || Object.keys(workflow.pinData).length === 0,
				`${where}: no pinned data`,
			);

			const byName = new Map(workflow.nodes.map((node) => [node.name, node]));
			assert.equal(byName.size, workflow.nodes.length, `${where}: node names are unique`);
			assert.ok(
				workflow.nodes.some((node) => node.type === STICKY && node.parameters.content.length > 100),
				`${where}: a sticky note that explains it`,
			);
			for (const node of workflow.nodes) {
				const label = `${where}, node "${node.name}"`;
				assert.ok(Array.isArray(node.position) && node.position.length === 2, label);
				if (node.type.startsWith('n8n-nodes-voice-messaging.')) {
					assert.ok(PACKAGE_NODE_TYPES.includes(node.type), `${label}: ${node.type}`);
					assert.equal(node.typeVersion, 1, label);
					assert.deepEqual(node.credentials, { voiceMessagingApi: CREDENTIAL }, label);
				} else {
					assert.match(node.type, /^(n8n-nodes-base|@n8n\/n8n-nodes-langchain)\./, label);
					assert.ok(
						baseVersions(node.type).includes(node.typeVersion),
						`${label}: ${node.type} v${node.typeVersion} does not exist in n8n ${n8n.version} (has ${baseVersions(node.type)})`,
					);
					const model = node.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi';
					assert.deepEqual(
						node.credentials,
						model ? { openAiApi: MODEL_CREDENTIAL } : undefined,
						label,
					);
				}
			}

			// Connections join existing nodes, left to right (sub-nodes of an agent: below it), and
			// every node is reached from a trigger.
			const reached = new Set();
			const targets = new Set();
			/** Sub-nodes (model, memory, tools) → the node they serve. */
			const servesNode = new Map();
			for (const [source, outputs] of Object.entries(workflow.connections)) {
				assert.ok(byName.has(source), `${where}: connection from unknown node "${source}"`);
				for (const [kind, branches] of Object.entries(outputs))
					for (const { node: target, type } of branches.flat()) {
						assert.ok(byName.has(target), `${where}: connection to unknown node "${target}"`);
						assert.equal(type, kind, `${where}: ${source} → ${target}`);
						const [from, to] = [byName.get(source).position, byName.get(target).position];
						if (kind === 'main') {
							assert.ok(to[0] > from[0], `${where}: "${target}" is right of "${source}"`);
							targets.add(target);
						} else {
							assert.match(kind, /^ai_/, `${where}: ${source} → ${target}`);
							assert.ok(from[1] > to[1], `${where}: sub-node "${source}" is below "${target}"`);
							servesNode.set(source, target);
						}
					}
			}
			const starts = workflow.nodes.filter(
				(n) => n.type !== STICKY && !targets.has(n.name) && !servesNode.has(n.name),
			);
			assert.ok(
				starts.every((n) => /trigger/i.test(n.type)),
				`${where}: only triggers start the flow: ${starts.map((n) => n.name)}`,
			);
			const visit = (name) => {
				if (reached.has(name)) return;
				reached.add(name);
				for (const branch of workflow.connections[name]?.main ?? [])
					for (const { node } of branch) visit(node);
			};
			starts.forEach((n) => visit(n.name));
			for (const [subNode, target] of servesNode) if (reached.has(target)) reached.add(subNode);
			for (const node of workflow.nodes)
				if (node.type !== STICKY)
					assert.ok(reached.has(node.name), `${where}: "${node.name}" is connected`);
		}
	});

	it('nightly-campaign-report: one report row per campaign completed or failed in the last 24 h, with its call counts', async () => {
		const workflow = example('nightly-campaign-report.json');
		const schedule = nodeOfType(workflow, 'n8n-nodes-base.scheduleTrigger');
		assert.deepEqual(
			schedule.parameters.rule.interval.map(
				({ field, daysInterval, triggerAtHour, triggerAtMinute }) => ({
					field,
					daysInterval,
					triggerAtHour,
					triggerAtMinute,
				}),
			),
			[{ field: 'days', daysInterval: 1, triggerAtHour: 7, triggerAtMinute: 0 }],
		);
		nodeOfType(workflow, MANUAL_TRIGGER);

		// The seeded campaigns finished long ago (2025). Let the running ones finish now, and add
		// one that fails and one cancelled today (cancelled is not in the report).
		const failing = sandbox.addCampaign({ name: 'E2E report renewals [fail]' });
		const cancelled = sandbox.addCampaign({ name: 'E2E report cancelled' });
		sandbox.advance(2);
		Object.assign(cancelled, { status: 'cancelled', updatedAt: new Date().toISOString() });
		assert.equal(failing.status, 'failed');
		const since = Date.now() - DAY_MS;
		const expected = sandbox.state.campaigns.filter(
			(c) => ['completed', 'failed'].includes(c.status) && Date.parse(c.updatedAt) > since,
		);
		assert.ok(
			expected.some((c) => c.status === 'completed'),
			'a campaign completed today',
		);
		assert.ok(
			expected.some((c) => c.status === 'failed'),
			'a campaign failed today',
		);
		const olderFinished = sandbox.state.campaigns.filter(
			(c) => ['completed', 'failed'].includes(c.status) && Date.parse(c.updatedAt) <= since,
		);
		assert.ok(olderFinished.length > 5, 'older finished campaigns the report leaves out');

		const { runData } = await execute(workflow.id);
		assert.equal(
			itemsOf(runData, 'Get all campaigns').length,
			sandbox.state.campaigns.length,
			'Return All read every campaign',
		);
		const report = nodeOutput({ data: { resultData: { runData } } }, 'Report');
		assert.deepEqual(
			report.map((row) => row.campaignId).sort(),
			expected.map((c) => c.id).sort(),
			JSON.stringify(report, null, 2),
		);
		for (const campaign of expected) {
			const calls = sandbox.state.campaignData.get(campaign.id);
			const count = (status) => calls.filter((call) => call.status === status).length;
			const answered = count('answered');
			assert.deepEqual(
				report.find((row) => row.campaignId === campaign.id),
				{
					campaign: campaign.name,
					campaignId: campaign.id,
					status: campaign.status,
					finishedAt: campaign.updatedAt,
					calls: calls.length,
					answered,
					noAnswer: count('no_answer'),
					busy: count('busy'),
					failed: count('failed'),
					answerRatePercent: Math.round((answered / calls.length) * 100),
				},
				`report row of ${campaign.name}`,
			);
		}
	});

	describe('send-document-by-phone', () => {
		const FILE = 'send-document-by-phone.json';

		/** Runs the example (or a copy with another phone); returns the run data and the new messages. */
		async function sendTo(workflow) {
			const before = sandbox.state.messages.length;
			const chatsBefore = sandbox.state.chats.length;
			const { runData } = await execute(workflow.id);
			return {
				runData,
				sent: sandbox.state.messages.slice(before),
				newChats: sandbox.state.chats.slice(chatsBefore),
			};
		}

		it('as shipped: the contact has an open chat, so exactly one document goes into that chat', async () => {
			const workflow = example(FILE);
			const input = nodeNamed(workflow, 'Phone and document');
			const phone = assignment(input, 'phone');
			const url = assignment(input, 'documentUrl');
			const fileName = assignment(input, 'fileName');
			const contact = sandbox.state.contacts.find((c) => c.phone === phone);
			const chat = sandbox.state.chats.find((c) => c.phone === phone && c.status === 'open');
			assert.ok(
				contact && chat,
				`the sample phone ${phone} is a sandbox contact with an open chat`,
			);

			const { runData, sent, newChats } = await sendTo(workflow);
			assert.deepEqual(itemsOf(runData, 'Find contact by phone'), [contact]);
			assert.deepEqual(itemsOf(runData, 'Open chat?'), [{ exists: true, chatId: chat.id }]);
			assert.ok(!ranNodes(runData).includes('Send to the phone'), 'the phone branch did not run');
			assert.equal(sent.length, 1, JSON.stringify(sent, null, 2));
			assert.deepEqual(newChats, []);
			const [message] = sent;
			assert.equal(message.chatId, chat.id);
			assert.equal(message.type, 'document');
			assert.equal(message.direction, 'outbound');
			assert.deepEqual(message.content, {
				url,
				caption: `Hello ${contact.name}, here is your document.`,
				fileName,
			});
			assert.deepEqual(itemsOf(runData, 'Send to the open chat'), [
				JSON.parse(JSON.stringify(message)),
			]);
		});

		it('a contact without an open chat: exactly one document goes to their phone, in a new chat', async () => {
			const workflow = structuredClone(example(FILE));
			const contact = sandbox.state.contacts.find(
				(c) => !sandbox.state.chats.some((chat) => chat.phone === c.phone),
			);
			assert.ok(contact, 'the sandbox has a contact without any chat');
			workflow.id = 'vmExampleSendDo2';
			workflow.name += ' (contact without a chat)';
			const input = nodeNamed(workflow, 'Phone and document');
			input.parameters.assignments.assignments.find((a) => a.name === 'phone').value =
				contact.phone;
			await n8n.importWorkflow(workflow);

			const { runData, sent, newChats } = await sendTo(workflow);
			assert.deepEqual(itemsOf(runData, 'Open chat?'), [{ exists: false, chatId: null }]);
			assert.ok(
				!ranNodes(runData).includes('Send to the open chat'),
				'the chat branch did not run',
			);
			assert.equal(sent.length, 1, JSON.stringify(sent, null, 2));
			assert.equal(newChats.length, 1);
			assert.equal(newChats[0].phone, contact.phone);
			assert.equal(newChats[0].contactId, contact.id);
			assert.equal(sent[0].chatId, newChats[0].id);
			assert.equal(sent[0].type, 'document');
			assert.equal(sent[0].content.caption, `Hello ${contact.name}, here is your document.`);
			assert.deepEqual(itemsOf(runData, 'Send to the phone'), [
				JSON.parse(JSON.stringify(sent[0])),
			]);
		});
	});

	it('broadcast-delivery-follow-up: N messages sent, N statuses after the wait, the failed one listed', async () => {
		const workflow = example('broadcast-delivery-follow-up.json');
		const send = nodeNamed(workflow, 'Send order updates');
		const rows = send.parameters.recipients.recipient;
		assert.ok(rows.length >= 2, 'a few recipients');
		const failing = rows.filter((row) => /0000$/.test(row.phone));
		assert.equal(failing.length, 1, 'one sample number the sandbox fails on purpose');

		// The sandbox does not progress by itself here: move it one step as soon as the messages
		// exist (queued → sent; a number ending in 0000 → failed), i.e. during the Wait.
		const before = sandbox.state.broadcastMessages.length;
		let advanced = false;
		const watcher = setInterval(() => {
			if (!advanced && sandbox.state.broadcastMessages.length > before) {
				advanced = true;
				sandbox.advance(1);
			}
		}, 20);
		let runData;
		try {
			({ runData } = await execute(workflow.id));
		} finally {
			clearInterval(watcher);
		}
		const created = sandbox.state.broadcastMessages.slice(before);
		assert.equal(created.length, rows.length, 'one message per recipient');
		assert.deepEqual(
			created.map((m) => [m.channel, m.recipient]),
			rows.map((row) => ['whatsapp', row.phone]),
		);
		const sentItems = itemsOf(runData, 'Send order updates');
		assert.deepEqual(
			sentItems.map((m) => [m.id, m.status]),
			created.map((m) => [m.id, 'queued']),
		);

		const wait = runData['Wait 5 seconds'][0];
		assert.ok(wait.executionTime >= 4_900, `the Wait node waited ${wait.executionTime} ms`);
		const statuses = itemsOf(runData, 'Get delivery status');
		assert.deepEqual(
			statuses.map((m) => m.id),
			created.map((m) => m.id),
			'one status per message, in order',
		);
		assert.deepEqual(
			statuses.map((m) => m.status),
			rows.map((row) => (/0000$/.test(row.phone) ? 'failed' : 'sent')),
		);
		const failedMessage = created.find((m) => m.recipient === failing[0].phone);
		assert.deepEqual(itemsOf(runData, 'List failures'), [
			{
				recipient: failing[0].phone,
				channel: 'whatsapp',
				messageId: failedMessage.id,
				error: 'Recipient unreachable',
				alert: `❌ whatsapp message ${failedMessage.id} to ${failing[0].phone} failed: Recipient unreachable`,
			},
		]);
		assert.equal(itemsOf(runData, 'Failed?', 1).length, rows.length - 1, 'the others: not failed');
	});

	it('`n8n execute` cannot start an example that begins with a polling trigger (the CLI needs a Manual Trigger)', async () => {
		// Why the trigger examples below run through a running n8n instead. Should a later n8n start
		// them from the CLI, this fails: then they can run like the others.
		const triggerOnly = [...EXAMPLES.values()].filter(
			(w) => !w.nodes.some((n) => n.type === MANUAL_TRIGGER),
		);
		assert.ok(triggerOnly.length >= 2, 'the alert examples start with a Voice AI Trigger');
		const error = await n8n.execute(triggerOnly[0].id).then(
			(result) => assert.fail(`n8n execute ran it: ${JSON.stringify(result).slice(0, 1000)}`),
			(error) => error,
		);
		assert.match(`${error.message}`, /Missing node to start execution/);
	});

	describe('examples run in a running n8n, as the editor runs them (triggers: Fetch Test Event)', () => {
		/** @type {Awaited<ReturnType<Awaited<ReturnType<typeof createN8nInstance>>['start']>>} */
		let server;
		let session;

		before(async () => {
			server = await n8n.start({
				N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
				N8N_INSTANCE_OWNER_EMAIL: OWNER.email,
				N8N_INSTANCE_OWNER_PASSWORD_HASH: bcryptHash(n8n.n8nDir, OWNER.password),
			});
			const cookie = await logIn(server.baseUrl, OWNER, BROWSER_ID);
			session = { baseUrl: server.baseUrl, cookie, n8nDir: n8n.n8nDir, browserId: BROWSER_ID };
		});

		after(async () => {
			await server?.stop();
		});

		async function runTrigger(workflow) {
			const trigger = workflow.nodes.find((n) => n.type.endsWith('Trigger'));
			const run = await runManually(session, workflow.id, trigger.name);
			assert.equal(
				run.error,
				undefined,
				`execution failed: ${JSON.stringify(run.error)?.slice(0, 2000)}\n${server.output().slice(-3000)}`,
			);
			assert.equal(run.execution.mode, 'manual');
			assert.equal(run.execution.status, 'success');
			return { ...run, trigger: trigger.name };
		}

		it('campaign-alerts: a failed campaign ends in the failure alert, a completed one in the completion alert', async () => {
			const workflow = example('campaign-alerts.json');
			const trigger = nodeOfType(workflow, 'n8n-nodes-voice-messaging.voiceAiTrigger');
			assert.deepEqual(trigger.parameters.statuses, ['completed', 'failed']);
			assert.deepEqual(trigger.parameters.pollTimes, { item: [{ mode: 'everyMinute' }] });

			// The test event is the newest campaign in one of the chosen statuses.
			const failed = sandbox.addCampaign({ name: 'E2E alert onboarding' });
			Object.assign(failed, { status: 'failed', updatedAt: new Date().toISOString() });
			let run = await runTrigger(workflow);
			assert.deepEqual(
				itemsOf(run.runData, run.trigger).map((e) => [e.campaignId, e.status]),
				[[failed.id, 'failed']],
			);
			assert.ok(!ranNodes(run.runData).includes('Completion alert'));
			const [failure] = itemsOf(run.runData, 'Failure alert');
			assert.equal(failure.campaignId, failed.id);
			assert.equal(failure.status, 'failed');
			assert.match(failure.alert, /FAILED/);
			assert.ok(failure.alert.includes(`"${failed.name}" (${failed.id})`), failure.alert);
			assert.ok(failure.alert.includes(failed.agentName), failure.alert);

			const completed = sandbox.addCampaign({ name: 'E2E alert renewals' });
			Object.assign(completed, { status: 'completed', updatedAt: new Date().toISOString() });
			run = await runTrigger(workflow);
			assert.ok(!ranNodes(run.runData).includes('Failure alert'));
			const [completion] = itemsOf(run.runData, 'Completion alert');
			assert.equal(completion.campaignId, completed.id);
			assert.ok(
				completion.alert.includes(`"${completed.name}" (${completed.id}) has completed`),
				completion.alert,
			);
		});

		it('low-balance-alert: the alert names the sampled credit, currency, threshold and minutes left', async () => {
			const workflow = example('low-balance-alert.json');
			const trigger = nodeOfType(workflow, 'n8n-nodes-voice-messaging.voiceAiTrigger');
			assert.equal(trigger.parameters.event, 'balanceLow');
			const { threshold } = trigger.parameters;
			const balance = sandbox.state.balance;
			balance.credit = 12.34;
			assert.ok(balance.credit < threshold);
			const run = await runTrigger(workflow);
			assert.deepEqual(itemsOf(run.runData, run.trigger), [
				{
					metric: 'credit',
					value: 12.34,
					threshold,
					belowThreshold: true,
					balance: {
						credit: 12.34,
						currency: balance.currency,
						minutes: balance.minutes,
						ratePerMinute: balance.ratePerMinute,
					},
				},
			]);
			const [alert] = itemsOf(run.runData, 'Low-balance alert');
			assert.equal(
				alert.alert,
				`💳 Voice AI credit is down to 12.34 ${balance.currency} (alert below ${threshold}): about ${balance.minutes} minutes of calls left at ${balance.ratePerMinute} ${balance.currency} a minute. Top up before campaigns stop.`,
			);
			assert.deepEqual(
				{ credit: alert.credit, currency: alert.currency, belowThreshold: alert.belowThreshold },
				{ credit: 12.34, currency: balance.currency, belowThreshold: true },
			);
		});

		it('ops-assistant: in one chat, the stand-in model calls the tool each question names and answers with what it returned', async () => {
			const workflow = example('ops-assistant.json');
			const trigger = nodeOfType(workflow, '@n8n/n8n-nodes-langchain.chatTrigger');
			const agent = nodeOfType(workflow, '@n8n/n8n-nodes-langchain.agent');
			assert.equal(agent.typeVersion, 3.1, 'the agent version the editor adds');
			nodeOfType(workflow, '@n8n/n8n-nodes-langchain.memoryBufferWindow');
			const model = nodeOfType(workflow, '@n8n/n8n-nodes-langchain.lmChatOpenAi');
			assert.equal(
				model.parameters.responsesApiEnabled,
				false,
				'chat completions, as any OpenAI-compatible service has',
			);
			const sessionId = 'e2e-ops-assistant';
			/** Sends a chat message as the editor's chat panel does; the tool requests and the answer. */
			const ask = async (chatInput) => {
				const logStart = sandbox.log.length;
				const run = await runManually(session, workflow.id, trigger.name, {
					timeoutMs: 120_000,
					triggerItems: [{ sessionId, action: 'sendMessage', chatInput }],
				});
				assert.equal(
					run.error,
					undefined,
					`${JSON.stringify(run.error)?.slice(0, 2000)}\n${server.output().slice(-3000)}`,
				);
				const api = sandbox.log.slice(logStart).filter((e) => !e.path.endsWith('/auth/token'));
				return {
					api: api.map((e) => `${e.method} ${e.path} ${e.status}`),
					answer: itemsOf(run.runData, agent.name)[0].output,
				};
			};
			sandbox.chatModel.reset();

			const { balance } = sandbox.state;
			let reply = await ask('What is my balance?');
			assert.deepEqual(reply.api, ['GET /api/v1/voice/billing/balance 200']);
			assert.ok(reply.answer.startsWith(STAND_IN_NOTE), reply.answer);
			assert.ok(reply.answer.includes(`"credit":${balance.credit}`), reply.answer);

			const contact = sandbox.state.contacts[2];
			const before = sandbox.state.messages.length;
			reply = await ask(
				`Send the document https://example.com/brochure.pdf to ${contact.phone} with "Our brochure"`,
			);
			assert.deepEqual(reply.api, ['POST /api/v1/messenger/messages/send/media-to-phone 200']);
			const sent = sandbox.state.messages.slice(before);
			assert.equal(sent.length, 1);
			assert.equal(sandbox.state.chats.find((c) => c.id === sent[0].chatId).phone, contact.phone);
			assert.equal(sent[0].type, 'document');
			assert.deepEqual(sent[0].content, {
				url: 'https://example.com/brochure.pdf',
				caption: 'Our brochure',
			});
			assert.ok(reply.answer.includes(sent[0].id), reply.answer);

			// The memory gave the model the first exchange along with the second question.
			const [, , third] = sandbox.chatModel.requests;
			assert.ok(
				third.messages.some((m) => m.role === 'user' && m.content === 'What is my balance?'),
				JSON.stringify(third.messages).slice(0, 2000),
			);
		});

		it('reply-follow-up: the customer’s newest message marks the chat important and gets the price list', async () => {
			const workflow = example('reply-follow-up.json');
			const trigger = nodeOfType(workflow, 'n8n-nodes-voice-messaging.messengerTrigger');
			assert.equal(trigger.parameters.event, 'messageReceived');
			const chat = sandbox.state.chats.find((c) => c.phone === trigger.parameters.chats);
			assert.ok(chat, `the sandbox has a chat for ${trigger.parameters.chats}`);
			chat.important = false;
			const [wrote] = sandbox.customerWrites({
				chatId: chat.id,
				text: 'E2E: is the quote still valid?',
			}).items;
			const run = await runTrigger(workflow);
			const [event] = itemsOf(run.runData, run.trigger);
			assert.deepEqual(
				[event.messageId, event.chatId, event.phone, event.direction, event.text],
				[wrote.id, chat.id, chat.phone, 'inbound', 'E2E: is the quote still valid?'],
			);
			assert.equal(itemsOf(run.runData, 'Mark the chat important')[0].important, true);
			assert.equal(chat.important, true);
			const [sent] = itemsOf(run.runData, 'Answer with the price list');
			const reply = sandbox.state.messages.find((m) => m.id === sent.id);
			assert.deepEqual(
				[reply.chatId, reply.direction, reply.type],
				[chat.id, 'outbound', 'document'],
			);
			assert.match(reply.content.caption, /"E2E: is the quote still valid\?"/);
		});

		it('approve-campaign-cancel: the execution waits for the person on WhatsApp; approving cancels the campaign, declining keeps it', async () => {
			const workflow = example('approve-campaign-cancel.json');
			const trigger = nodeOfType(workflow, MANUAL_TRIGGER);
			const ask = nodeOfType(workflow, 'n8n-nodes-voice-messaging.messenger');
			assert.equal(ask.parameters.operation, 'sendAndWait');
			const { rest, runDataOf } = n8nRestApi(session);
			for (const approved of [true, false]) {
				const campaign = sandbox.addCampaign({ status: 'in_progress' });
				const sentBefore = sandbox.state.sent.length;
				const { executionId } = await rest('POST', `/rest/workflows/${workflow.id}/run`, {
					triggerToStartFrom: { name: trigger.name },
				});
				const sent = await waitFor(
					() => sandbox.state.sent.length > sentBefore && sandbox.state.sent.at(-1),
					{
						timeoutMs: 30_000,
						describe: () => `nothing sent\n${server.output().slice(-3000)}`,
					},
				);
				assert.equal(sent.recipient, ask.parameters.phone);
				assert.ok(sent.text.includes(campaign.id), sent.text);
				await waitFor(async () => (await runDataOf(executionId)).execution.status === 'waiting', {
					timeoutMs: 30_000,
					describe: () => `execution ${executionId} is not waiting`,
				});
				const link = sent.text.slice(sent.text.lastIndexOf(' ') + 1);
				const page = await (await fetch(link)).text();
				assert.ok(page.includes('Cancel it') && page.includes('Keep it running'));
				const body = new FormData();
				body.append('approved', String(approved));
				assert.equal((await fetch(link, { method: 'POST', body })).status, 200);
				const run = await waitFor(
					async () => {
						const data = await runDataOf(executionId);
						return !['waiting', 'running', 'new'].includes(data.execution.status) && data;
					},
					{ timeoutMs: 60_000, describe: () => `execution ${executionId} did not finish` },
				);
				assert.equal(run.execution.status, 'success', JSON.stringify(run.error)?.slice(0, 1000));
				const stored = sandbox.state.campaigns.find((c) => c.id === campaign.id);
				if (approved) {
					assert.equal(itemsOf(run.runData, 'Cancel the campaign')[0].status, 'cancelled');
					assert.equal(stored.status, 'cancelled');
				} else {
					assert.deepEqual(itemsOf(run.runData, 'Kept running'), [
						{ campaignId: campaign.id, outcome: 'declined on WhatsApp' },
					]);
					assert.equal(stored.status, 'in_progress');
				}
			}
		});
	});

	it('every file in examples/ was run by a test above', () => {
		assert.deepEqual(
			FILES.filter((file) => !ran.has(file)),
			[],
			'examples without a test: add one to test/e2e/examples.e2e.test.mjs',
		);
	});
});
