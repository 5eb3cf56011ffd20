// Messenger → Send and Wait for Response in a running n8n (`n8n start`), against the sandbox:
// activated workflows started by a Webhook wait at the node; the sandbox records the one message
// it was asked to send, whose text holds the signed link; the link is opened as the person's
// phone would (GET the page, POST the answer) and the execution goes on with the answer. A
// tampered link is refused and the execution keeps waiting; Limit Wait Time resumes on its own.
// Headless Chromium, at a phone's size, answers the pages as a person does (no request blocked by
// their Content-Security-Policy). On n8n 2.x, the node as the human review step of an AI Agent's
// tool, and as a plain tool (refused). One n8n for the whole file. On n8n 1.x:
// test/e2e/sendAndWait.n8n1.e2e.test.mjs.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe } from 'node:test';

import { DEMO_CLIENTS, startSandbox } from '../../sandbox/server.mjs';
import {
	cleanupPack,
	createN8nInstance,
	isN8n1,
	launchChromium,
	n8nRestApi,
	PACKAGE_NAME,
	packPackage,
	sandboxCredential,
	sandboxModelCredential,
	startWithOwner,
	suiteOptions,
	waitFor,
} from './harness.mjs';

const { version, title, it } = suiteOptions(
	'Messenger Send and Wait for Response in a running n8n',
);
const OWNER = { email: 'owner@e2e.example', password: 'E2e-owner-Passw0rd' };
const BROWSER_ID = 'e2e-send-and-wait';
const CREDENTIAL = { id: 'e2eSendAndWaitCred', name: 'Send and Wait client (e2e)' };
const ASK = 'Ask a person';
const AFTER = 'After the answer';
const PHONE = '+34600111222';
const MODEL_CREDENTIAL = { id: 'e2eSawModel', name: 'Sandbox chat model (e2e)' };
const REVIEW = 'Approve on WhatsApp';
const GATED_TOOL = 'Cancel campaign';
const AGENT = 'AI Agent';
/** Send and Wait as a plain tool of the agent (not a review step): it refuses to run. */
const PLAIN_TOOL = 'Ask a person';

/** Webhook (POST /webhook/<path>, answers at once) → Messenger Send and Wait → No-Op. */
function waitingWorkflow(id, parameters) {
	return {
		id,
		name: `e2e ${id}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: randomUUID(),
				webhookId: randomUUID(),
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				parameters: { httpMethod: 'POST', path: id, responseMode: 'onReceived', options: {} },
			},
			{
				id: randomUUID(),
				name: ASK,
				type: `${PACKAGE_NAME}.messenger`,
				typeVersion: 1,
				position: [220, 0],
				parameters: {
					resource: 'message',
					operation: 'sendAndWait',
					channel: 'whatsapp',
					phone: PHONE,
					message: '=Cancel campaign {{ $json.body.campaign }}?',
					...parameters,
				},
				credentials: { voiceMessagingApi: CREDENTIAL },
			},
			{
				id: randomUUID(),
				name: AFTER,
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [440, 0],
				parameters: {},
			},
		],
		connections: {
			Webhook: { main: [[{ node: ASK, type: 'main', index: 0 }]] },
			[ASK]: { main: [[{ node: AFTER, type: 'main', index: 0 }]] },
		},
		pinData: {},
	};
}

const WORKFLOWS = {
	approval: waitingWorkflow('e2eSawApproval', {
		responseType: 'approval',
		approvalOptions: { values: { approvalType: 'double', approveLabel: 'Yes, cancel' } },
	}),
	freeText: waitingWorkflow('e2eSawFreeText', { responseType: 'freeText' }),
	customForm: waitingWorkflow('e2eSawForm', {
		responseType: 'customForm',
		formFields: {
			values: [
				{
					fieldLabel: 'Slot',
					fieldType: 'dropdown',
					requiredField: true,
					fieldOptions: { values: [{ option: 'AM' }, { option: 'PM' }] },
				},
				{ fieldLabel: 'Guests', fieldType: 'number' },
				{ fieldLabel: 'Notes', fieldType: 'textarea' },
			],
		},
	}),
	template: waitingWorkflow('e2eSawTemplate', {
		responseType: 'approval',
		sendAs: 'template',
		templateId: 'approval_request',
		options: {},
	}),
	limit: waitingWorkflow('e2eSawLimit', {
		responseType: 'approval',
		options: {
			limitWaitTime: {
				values: { limitType: 'afterTimeInterval', resumeAmount: 0.1, resumeUnit: 'minutes' },
			},
		},
	}),
};

/**
 * n8n 2.x only: Webhook → AI Agent 3.1 (the sandbox's scripted model) whose Voice AI tool "Cancel
 * campaign" is gated by the Messenger human review step (the type n8n makes: messengerHitlTool).
 */
const agentWorkflow = {
	id: 'e2eSawAgent',
	name: 'e2e agent gated by a person on WhatsApp',
	active: false,
	settings: { executionOrder: 'v1' },
	nodes: [
		{
			id: randomUUID(),
			webhookId: randomUUID(),
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			parameters: {
				httpMethod: 'POST',
				path: 'e2eSawAgent',
				responseMode: 'onReceived',
				options: {},
			},
		},
		{
			id: randomUUID(),
			name: AGENT,
			type: '@n8n/n8n-nodes-langchain.agent',
			typeVersion: 3.1,
			position: [220, 0],
			parameters: { promptType: 'define', text: '={{ $json.body.question }}', options: {} },
		},
		{
			id: randomUUID(),
			name: 'Model',
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			typeVersion: 1.3,
			position: [120, 260],
			parameters: {
				model: { __rl: true, mode: 'id', value: 'sandbox-stand-in' },
				responsesApiEnabled: false,
				options: {},
			},
			credentials: { openAiApi: MODEL_CREDENTIAL },
		},
		{
			id: randomUUID(),
			name: REVIEW,
			type: `${PACKAGE_NAME}.messengerHitlTool`,
			typeVersion: 1,
			position: [360, 260],
			parameters: {
				channel: 'whatsapp',
				phone: PHONE,
				message:
					'=The agent wants to run {{ $tool.name }} with {{ JSON.stringify($tool.parameters) }}',
				approvalOptions: { values: { approvalType: 'double' } },
				options: {},
			},
			credentials: { voiceMessagingApi: CREDENTIAL },
		},
		{
			id: randomUUID(),
			name: GATED_TOOL,
			type: `${PACKAGE_NAME}.voiceAiTool`,
			typeVersion: 1,
			position: [360, 460],
			parameters: {
				descriptionType: 'manual',
				toolDescription: 'Cancel a pending or running call campaign by its ID',
				resource: 'campaign',
				operation: 'cancel',
				campaignId: {
					__rl: true,
					mode: 'id',
					value: "={{ $fromAI('campaignId', 'ID of the campaign (cmp_…)') }}",
				},
			},
			credentials: { voiceMessagingApi: CREDENTIAL },
		},
		{
			id: randomUUID(),
			name: PLAIN_TOOL,
			type: `${PACKAGE_NAME}.messengerTool`,
			typeVersion: 1,
			position: [600, 260],
			parameters: {
				resource: 'message',
				operation: 'sendAndWait',
				channel: 'whatsapp',
				phone: PHONE,
				message: "={{ $fromAI('question', 'What to ask the person') }}",
				responseType: 'freeText',
				options: {},
			},
			credentials: { voiceMessagingApi: CREDENTIAL },
		},
	],
	connections: {
		Webhook: { main: [[{ node: AGENT, type: 'main', index: 0 }]] },
		Model: { ai_languageModel: [[{ node: AGENT, type: 'ai_languageModel', index: 0 }]] },
		[GATED_TOOL]: { ai_tool: [[{ node: REVIEW, type: 'ai_tool', index: 0 }]] },
		[PLAIN_TOOL]: { ai_tool: [[{ node: AGENT, type: 'ai_tool', index: 0 }]] },
		[REVIEW]: { ai_tool: [[{ node: AGENT, type: 'ai_tool', index: 0 }]] },
	},
	pinData: {},
};

describe(title, { timeout: 12 * 60_000 }, () => {
	/** @type {Awaited<ReturnType<typeof startSandbox>>} */
	let sandbox;
	/** @type {Awaited<ReturnType<typeof createN8nInstance>>} */
	let n8n;
	/** @type {Awaited<ReturnType<Awaited<ReturnType<typeof createN8nInstance>>['start']>>} */
	let server;
	/** @type {ReturnType<typeof n8nRestApi>} */
	let api;
	/** The execution started first and left waiting for its wait limit, while the others run. */
	let limited;
	let cookie = '';
	/** The sending number the template workflow chooses (the sandbox's second number). */
	let numberId = '';

	const diagnostics = () =>
		`\nsandbox sent: ${JSON.stringify(sandbox.state.sent.slice(-3))}\nn8n output:\n${server?.output().slice(-3000)}`;

	/**
	 * Starts `workflow` through its webhook; resolves once the execution waits, with its ID and the
	 * one message the sandbox got for it (its text holds the link).
	 */
	async function startWaiting(workflow, campaign) {
		const sentBefore = sandbox.state.sent.length;
		const known = new Set((await api.executionsOf(workflow.id)).map((e) => e.id));
		await waitFor(
			async () => {
				const response = await fetch(`${server.baseUrl}/webhook/${workflow.id}`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ campaign }),
				});
				await response.arrayBuffer();
				// Published workflows' webhooks answer 404 for a few seconds after n8n is ready.
				return response.status === 200;
			},
			{ timeoutMs: 30_000, intervalMs: 1000, describe: () => `webhook of ${workflow.id}` },
		);
		const execution = await waitFor(
			async () =>
				(await api.executionsOf(workflow.id)).find(
					(e) => !known.has(e.id) && e.status === 'waiting',
				),
			{
				timeoutMs: 30_000,
				describe: () => `no waiting execution of ${workflow.id}${diagnostics()}`,
			},
		);
		const sent = sandbox.state.sent.slice(sentBefore);
		assert.equal(sent.length, 1, `one message sent: ${JSON.stringify(sent)}`);
		assert.equal(sent[0].channel, 'whatsapp');
		assert.equal(sent[0].recipient, PHONE);
		const { text, templateId, variables } = sent[0];
		let link;
		if (templateId !== null) {
			// A template: the link and the message are its variables, there is no text.
			assert.equal(text, null);
			assert.equal(variables.message, `Cancel campaign ${campaign}?`);
			link = variables.link;
		} else {
			assert.ok(text.startsWith(`Cancel campaign ${campaign}?\n\nRespond: `), text);
			link = text.slice(text.lastIndexOf(' ') + 1);
		}
		assert.ok(
			link.startsWith(`${server.baseUrl}/webhook-waiting/${execution.id}/`),
			`${link} is the waiting webhook of execution ${execution.id}`,
		);
		return { id: execution.id, link, sent: sent[0] };
	}

	const statusOf = async (id) => (await api.runDataOf(id)).execution.status;

	/** Posts `fields` to the link as the page's form does (multipart/form-data). */
	async function answer(link, fields) {
		const body = new FormData();
		for (const [name, value] of Object.entries(fields)) body.append(name, value);
		const response = await fetch(link, { method: 'POST', body });
		return { status: response.status, html: await response.text() };
	}

	/** Waits until the execution has finished; resolves to what the node gave the next node. */
	async function resumedWith(id) {
		const run = await waitFor(
			async () => {
				const data = await api.runDataOf(id);
				const done = data.execution.status !== 'waiting' && data.execution.status !== 'running';
				// n8n 1.x can mark the execution finished a moment before its run data is saved.
				const saved =
					data.execution.status !== 'success' ||
					[ASK, AFTER].every((node) => data.runData?.[node]?.at(-1)?.data);
				return done && saved && data;
			},
			{ timeoutMs: 90_000, describe: () => `execution ${id} did not go on${diagnostics()}` },
		);
		assert.equal(run.execution.status, 'success', JSON.stringify(run.error)?.slice(0, 2000));
		const output = run.runData[ASK].at(-1).data.main[0].map((item) => item.json);
		assert.deepEqual(
			run.runData[AFTER].at(-1).data.main[0].map((item) => item.json),
			output,
			'the next node got the answer',
		);
		return output;
	}

	before(async () => {
		sandbox = await startSandbox({ progressIntervalMs: 0 });
		numberId = sandbox.state.whatsappNumbers[1].id;
		WORKFLOWS.template.nodes[1].parameters.options = { whatsappNumberId: numberId };
		const tarball = await packPackage();
		n8n = await createN8nInstance({
			version,
			tarball,
			extraEnv: { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all' },
		});
		await n8n.importCredentials([
			sandboxCredential(CREDENTIAL, sandbox, DEMO_CLIENTS.full),
			sandboxModelCredential(MODEL_CREDENTIAL, sandbox),
		]);
		const workflows = Object.values(WORKFLOWS).concat(isN8n1(version) ? [] : [agentWorkflow]);
		for (const workflow of workflows) {
			await n8n.importWorkflow(workflow);
			await n8n.n8n(
				isN8n1(version)
					? ['update:workflow', `--id=${workflow.id}`, '--active=true']
					: ['publish:workflow', `--id=${workflow.id}`],
			);
		}
		const started = await startWithOwner(n8n, OWNER, BROWSER_ID);
		server = started.server;
		cookie = started.cookie;
		api = n8nRestApi({
			baseUrl: server.baseUrl,
			cookie: started.cookie,
			n8nDir: n8n.n8nDir,
			browserId: BROWSER_ID,
		});
		// Started first: its limit (6 s) runs out while the other tests run.
		limited = await startWaiting(WORKFLOWS.limit, 'Limit');
	});

	after(async () => {
		await server?.stop();
		await n8n?.cleanup();
		await sandbox?.close();
		cleanupPack();
	});

	it('approval: the page shows the question; approving resumes the execution with approved: true', async () => {
		const { id, link } = await startWaiting(WORKFLOWS.approval, 'Spring');
		const page = await fetch(link);
		const html = await page.text();
		assert.equal(page.status, 200);
		assert.ok(html.includes('Cancel campaign Spring?'), html.slice(0, 500));
		assert.ok(html.includes('Yes, cancel') && html.includes('Decline'));
		assert.equal(await statusOf(id), 'waiting', 'opening the page answers nothing');
		const { status, html: recorded } = await answer(link, { approved: 'true' });
		assert.equal(status, 200);
		assert.match(recorded, /Got it, thanks/);
		const [output] = await resumedWith(id);
		assert.equal(output.data.approved, true);
		assert.ok(!Number.isNaN(Date.parse(output.data.respondedAt)));
		// Opened again after the execution went on: nothing happens.
		const again = await answer(link, { approved: 'false' });
		assert.notEqual(again.status, 500);
		assert.doesNotMatch(again.html, /Got it, thanks/);
		assert.equal(await statusOf(id), 'success');
		assert.equal(
			(await api.runDataOf(id)).runData[ASK].at(-1).data.main[0][0].json.data.approved,
			true,
		);
	});

	it('approval: declining resumes it with approved: false', async () => {
		const { id, link } = await startWaiting(WORKFLOWS.approval, 'Autumn');
		assert.equal((await answer(link, { approved: 'false' })).status, 200);
		const [output] = await resumedWith(id);
		assert.equal(output.data.approved, false);
	});

	it('a tampered link is refused and the execution keeps waiting', async () => {
		const { id, link } = await startWaiting(WORKFLOWS.approval, 'Winter');
		const url = new URL(link);
		const signature = [...url.searchParams.entries()].find(([, value]) => value.length >= 32);
		assert.ok(signature, `a signature in ${link}`);
		const [name, value] = signature;
		url.searchParams.set(name, `${value[0] === 'a' ? 'b' : 'a'}${value.slice(1)}`);
		const forged = await answer(url.toString(), { approved: 'true' });
		assert.equal(forged.status, 401, forged.html.slice(0, 300));
		const otherNode = link.replace(
			/\/webhook-waiting\/(\d+)\/[^?]+/,
			'/webhook-waiting/$1/other-node',
		);
		assert.notEqual((await answer(otherNode, { approved: 'true' })).status, 200);
		assert.equal(await statusOf(id), 'waiting');
		// The real link still works.
		assert.equal((await answer(link, { approved: 'true' })).status, 200);
		assert.equal((await resumedWith(id))[0].data.approved, true);
	});

	it('a WhatsApp template from a chosen number carries the link and the message as its variables', async () => {
		const { id, link, sent } = await startWaiting(WORKFLOWS.template, 'Outside24h');
		assert.equal(sent.templateId, 'approval_request');
		assert.equal(sent.whatsappNumberId, numberId);
		assert.equal((await answer(link, { approved: 'true' })).status, 200);
		assert.equal((await resumedWith(id))[0].data.approved, true);
	});

	it('free text: the text posted on the page', async () => {
		const { id, link } = await startWaiting(WORKFLOWS.freeText, 'Summer');
		const html = await (await fetch(link)).text();
		assert.match(html, /<textarea id="field-0" name="field-0" required>/);
		const empty = await answer(link, { 'field-0': ' ' });
		assert.equal(empty.status, 400);
		assert.equal(await statusOf(id), 'waiting', 'an empty answer does not resume');
		await answer(link, { 'field-0': 'Only the Madrid numbers, please' });
		const [output] = await resumedWith(id);
		assert.equal(output.data.text, 'Only the Madrid numbers, please');
	});

	it('custom form: the fields posted, by label and typed', async () => {
		const { id, link } = await startWaiting(WORKFLOWS.customForm, 'Easter');
		const missing = await answer(link, { 'field-1': '4' });
		assert.equal(missing.status, 400);
		assert.match(missing.html, /&quot;Slot&quot; is required/);
		await answer(link, { 'field-0': 'PM', 'field-1': '4', 'field-2': 'Ground floor' });
		const [{ data }] = await resumedWith(id);
		assert.deepEqual(
			{ Slot: data.Slot, Guests: data.Guests, Notes: data.Notes },
			{ Slot: 'PM', Guests: 4, Notes: 'Ground floor' },
		);
	});

	it('in a browser, as on a phone: the person taps the approve button, then fills in and submits a form', async () => {
		const approval = await startWaiting(WORKFLOWS.approval, 'Browser');
		const form = await startWaiting(WORKFLOWS.customForm, 'Browser');
		const browser = await launchChromium();
		const problems = [];
		try {
			const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
			page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
			page.on('requestfailed', (r) => problems.push(`${r.url()}: ${r.failure()?.errorText}`));
			await page.goto(approval.link);
			await Promise.all([
				page.waitForURL(approval.link, { waitUntil: 'load' }),
				page.getByRole('button', { name: 'Yes, cancel' }).click(),
			]);
			await page.getByText('Got it, thanks').waitFor();
			await page.goto(form.link);
			await page.selectOption('#field-0', 'AM');
			await page.fill('#field-1', '2');
			await page.fill('#field-2', 'Window <seat>');
			await page.getByRole('button', { name: 'Submit' }).click();
			await page.getByText('Got it, thanks').waitFor();
		} finally {
			await browser.close();
		}
		assert.deepEqual(problems, [], 'no request failed or was blocked');
		assert.equal((await resumedWith(approval.id))[0].data.approved, true);
		const [{ data }] = await resumedWith(form.id);
		assert.deepEqual(
			{ Slot: data.Slot, Guests: data.Guests, Notes: data.Notes },
			{ Slot: 'AM', Guests: 2, Notes: 'Window <seat>' },
		);
	});

	it('Limit Wait Time: the execution goes on without an answer, with the input items', async () => {
		const output = await resumedWith(limited.id);
		assert.equal(output.length, 1);
		assert.deepEqual(output[0].body, { campaign: 'Limit' });
		assert.equal(output[0].data, undefined, 'no answer');
	});
	const onlyOn2 = {
		skip:
			isN8n1(version) &&
			'n8n 1.x has no human review step for agents (the agent workflow uses one)',
	};

	it(
		'n8n lists the Messenger node under Human in the loop, as a review step for agent tools',
		onlyOn2,
		async () => {
			const response = await fetch(`${server.baseUrl}/types/nodes.json`, {
				headers: { cookie, 'browser-id': BROWSER_ID },
			});
			assert.equal(response.status, 200);
			const types = await response.json();
			const review = types.find((t) => t.name === `${PACKAGE_NAME}.messengerHitlTool`);
			assert.ok(review, 'n8n made a messengerHitlTool type');
			assert.deepEqual(review.codex.subcategories.Tools, ['Human in the Loop']);
			const hidden = Object.fromEntries(
				review.properties.filter((p) => p.type === 'hidden').map((p) => [p.name, p.default]),
			);
			assert.deepEqual(hidden, {
				resource: 'message',
				operation: 'sendAndWait',
				responseType: 'approval',
			});
			assert.match(review.properties.find((p) => p.name === 'message').default, /\$tool\.name/);
			assert.ok(
				review.properties.some((p) => p.name === 'phone'),
				'the recipient is chosen in the step',
			);
		},
	);

	/** The cancel requests of campaign `id` the sandbox got. */
	const cancels = (id) =>
		sandbox.log.filter(
			(e) => e.method === 'POST' && e.path === `/api/v1/voice/campaigns/${id}/cancel`,
		);

	/**
	 * Asks the agent (webhook) to cancel a new pending campaign, the model scripted to call the gated
	 * tool and then answer with what it got; resolves once the execution waits for the person.
	 */
	async function agentAsksToCancel() {
		const campaign = sandbox.addCampaign({ status: 'pending' });
		const model = sandbox.chatModel;
		model.reset();
		model.script(
			{
				toolCalls: [
					{
						name: 'Cancel_campaign',
						arguments: { toolParameters: { campaignId: campaign.id }, hitlParameters: {} },
					},
				],
			},
			{ answer: (request) => `Tool said: ${request.toolResults.at(-1)?.content}` },
		);
		const sentBefore = sandbox.state.sent.length;
		const known = new Set((await api.executionsOf(agentWorkflow.id)).map((e) => e.id));
		const call = await fetch(`${server.baseUrl}/webhook/${agentWorkflow.id}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ question: `Cancel campaign ${campaign.id}` }),
		});
		assert.equal(call.status, 200, await call.text());
		let seen = [];
		const execution = await waitFor(
			async () => {
				seen = (await api.executionsOf(agentWorkflow.id)).filter((e) => !known.has(e.id));
				return seen.find((e) => e.status === 'waiting');
			},
			{
				timeoutMs: 60_000,
				describe: () =>
					`the agent's execution did not wait: ${JSON.stringify(seen)}\nmodel: ${JSON.stringify(model.requests).slice(0, 3000)}${diagnostics()}`,
			},
		);
		const sent = sandbox.state.sent.slice(sentBefore);
		assert.equal(sent.length, 1, JSON.stringify(sent));
		assert.equal(sent[0].recipient, PHONE);
		assert.match(sent[0].text, /^The agent wants to run Cancel_campaign with /);
		assert.ok(sent[0].text.includes(campaign.id), sent[0].text);
		const link = sent[0].text.slice(sent[0].text.lastIndexOf(' ') + 1);
		assert.equal(cancels(campaign.id).length, 0, 'nothing cancelled before the person answers');
		return { campaign, id: execution.id, link };
	}

	/** Waits until the agent's execution has finished: its answer. */
	async function agentAnswer(id) {
		const run = await waitFor(
			async () => {
				const data = await api.runDataOf(id);
				return !['waiting', 'running', 'new'].includes(data.execution.status) && data;
			},
			{
				timeoutMs: 90_000,
				describe: () => `the agent's execution ${id} did not finish${diagnostics()}`,
			},
		);
		assert.equal(run.execution.status, 'success', JSON.stringify(run.error)?.slice(0, 2000));
		assert.equal(sandbox.chatModel.pending, 0, 'the model was asked again after the review');
		return run.runData[AGENT].at(-1).data.main[0][0].json.output;
	}

	it('AI Agent: the tool runs once after the person approves on WhatsApp', onlyOn2, async () => {
		const { campaign, id, link } = await agentAsksToCancel();
		const page = await (await fetch(link)).text();
		assert.ok(page.includes(campaign.id), 'the page shows what the agent wants to do');
		assert.equal((await answer(link, { approved: 'true' })).status, 200);
		const output = await agentAnswer(id);
		assert.equal(cancels(campaign.id).length, 1, 'cancelled once');
		assert.equal(sandbox.state.campaigns.find((c) => c.id === campaign.id).status, 'cancelled');
		assert.match(output, /cancelled/);
	});

	it(
		'AI Agent: as a plain tool, Send and Wait sends nothing and tells the model why',
		onlyOn2,
		async () => {
			const model = sandbox.chatModel;
			model.reset();
			model.script(
				{ toolCalls: [{ name: 'Ask_a_person', arguments: { question: 'Which slot suits you?' } }] },
				{ answer: (request) => `Tool said: ${request.toolResults.at(-1)?.content}` },
			);
			const sentBefore = sandbox.state.sent.length;
			const known = new Set((await api.executionsOf(agentWorkflow.id)).map((e) => e.id));
			const call = await fetch(`${server.baseUrl}/webhook/${agentWorkflow.id}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ question: 'Ask the customer which slot suits them' }),
			});
			assert.equal(call.status, 200);
			const execution = await waitFor(
				async () =>
					(await api.executionsOf(agentWorkflow.id)).find(
						(e) => !known.has(e.id) && !['new', 'running'].includes(e.status),
					),
				{ timeoutMs: 60_000, describe: () => `the agent's execution did not end${diagnostics()}` },
			);
			assert.equal(execution.status, 'success', 'it does not wait');
			assert.equal(sandbox.state.sent.length, sentBefore, 'nothing sent');
			const output = await agentAnswer(execution.id);
			assert.match(output, /cannot run as a tool/);
		},
	);

	it('AI Agent: a decline keeps the tool from running and tells the model', onlyOn2, async () => {
		const { campaign, id, link } = await agentAsksToCancel();
		assert.equal((await answer(link, { approved: 'false' })).status, 200);
		const output = await agentAnswer(id);
		assert.equal(cancels(campaign.id).length, 0, 'nothing cancelled');
		assert.equal(sandbox.state.campaigns.find((c) => c.id === campaign.id).status, 'pending');
		assert.match(output, /rejected/);
	});
});
