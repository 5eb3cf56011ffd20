// Messenger Send and Wait as the human review step of an AI Agent's tool, in a running n8n 2.x
// against the sandbox (its scripted chat model): n8n lists the node as a review step; the gated
// Voice AI tool runs once after the person approves on WhatsApp, not at all after a decline; as a
// plain tool Send and Wait refuses to run. n8n 1.x has no human review step for agents.
import assert from 'node:assert/strict';
import { describe } from 'node:test';

import { agentWorkflow, exampleAgentParts } from '../../support/agentWorkflows.mjs';
import { isN8n1, PACKAGE_NAME, suiteOptions, waitFor } from '../harness.mjs';
import { PHONE, useSendAndWait, webhookNode } from './sendAndWait.mjs';

const { version, title, it } = suiteOptions(
	'Send and Wait for Response as the human review step of an AI Agent',
);
const CREDENTIAL = { id: 'e2eSawAgentCred', name: 'Send and Wait agent client (e2e)' };
const MODEL_CREDENTIAL = { id: 'e2eSawModel', name: 'Sandbox chat model (e2e)' };
const REVIEW = 'Approve on WhatsApp';
const GATED_TOOL = 'Cancel campaign';
/** Send and Wait as a plain tool of the agent (not a review step): it refuses to run. */
const PLAIN_TOOL = 'Ask a person';
const WORKFLOW_ID = 'e2eSawAgent';

const parts = exampleAgentParts({
	voiceMessagingApi: CREDENTIAL,
	openAiApi: MODEL_CREDENTIAL,
});
const AGENT = parts.agent.name;
const voiceMessagingApi = CREDENTIAL;

/**
 * Webhook → AI Agent 3.1 (the sandbox's scripted model) whose Voice AI tool "Cancel campaign" is
 * gated by the Messenger human review step (the type n8n makes: messengerHitlTool), and Send and
 * Wait as a plain tool.
 */
const WORKFLOW = agentWorkflow(WORKFLOW_ID, {
	trigger: webhookNode(WORKFLOW_ID),
	agent: {
		...parts.agent,
		typeVersion: 3.1,
		parameters: { promptType: 'define', text: '={{ $json.body.question }}', options: {} },
	},
	model: parts.model,
	reviewedBy: { [GATED_TOOL]: REVIEW },
	tools: [
		{
			id: 'e2e-saw-review',
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
			credentials: { voiceMessagingApi },
		},
		{
			id: 'e2e-saw-gated',
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
			credentials: { voiceMessagingApi },
		},
		{
			id: 'e2e-saw-plain',
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
			credentials: { voiceMessagingApi },
		},
	],
});

describe(title, { timeout: 10 * 60_000 }, () => {
	const onlyOn2 = {
		skip:
			isN8n1(version) &&
			'n8n 1.x has no human review step for agents (the agent workflow uses one)',
	};
	const saw = useSendAndWait({
		version,
		credential: CREDENTIAL,
		modelCredential: MODEL_CREDENTIAL,
		workflows: () => (isN8n1(version) ? [] : [WORKFLOW]),
	});
	const { answer, diagnostics } = saw;

	it(
		'n8n lists the Messenger node under Human in the loop, as a review step for agent tools',
		onlyOn2,
		async () => {
			const response = await fetch(`${saw.n8n.baseUrl}/types/nodes.json`, {
				headers: { cookie: saw.n8n.cookie, 'browser-id': saw.n8n.browserId },
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
		saw.sandbox.log.filter(
			(e) => e.method === 'POST' && e.path === `/api/v1/voice/campaigns/${id}/cancel`,
		);

	/** Posts `question` to the agent's webhook; the IDs of the workflow's executions before. */
	async function askAgent(question) {
		const known = new Set((await saw.n8n.executionsOf(WORKFLOW_ID)).map((e) => e.id));
		const call = await fetch(`${saw.n8n.baseUrl}/webhook/${WORKFLOW_ID}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ question }),
		});
		assert.equal(call.status, 200, await call.text());
		return known;
	}

	/**
	 * Asks the agent (webhook) to cancel a new pending campaign, the model scripted to call the gated
	 * tool and then answer with what it got; resolves once the execution waits for the person.
	 */
	async function agentAsksToCancel() {
		const { sandbox } = saw;
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
		const known = await askAgent(`Cancel campaign ${campaign.id}`);
		let seen = [];
		const execution = await waitFor(
			async () => {
				seen = (await saw.n8n.executionsOf(WORKFLOW_ID)).filter((e) => !known.has(e.id));
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
				const data = await saw.n8n.runDataOf(id);
				return !['waiting', 'running', 'new'].includes(data.execution.status) && data;
			},
			{
				timeoutMs: 90_000,
				describe: () => `the agent's execution ${id} did not finish${diagnostics()}`,
			},
		);
		assert.equal(run.execution.status, 'success', JSON.stringify(run.error)?.slice(0, 2000));
		assert.equal(saw.sandbox.chatModel.pending, 0, 'the model was asked again after the review');
		return run.runData[AGENT].at(-1).data.main[0][0].json.output;
	}

	const campaignStatus = (id) => saw.sandbox.state.campaigns.find((c) => c.id === id).status;

	it('AI Agent: the tool runs once after the person approves on WhatsApp', onlyOn2, async () => {
		const { campaign, id, link } = await agentAsksToCancel();
		const page = await (await fetch(link)).text();
		assert.ok(page.includes(campaign.id), 'the page shows what the agent wants to do');
		assert.equal((await answer(link, { approved: 'true' })).status, 200);
		const output = await agentAnswer(id);
		assert.equal(cancels(campaign.id).length, 1, 'cancelled once');
		assert.equal(campaignStatus(campaign.id), 'cancelled');
		assert.match(output, /cancelled/);
	});

	it(
		'AI Agent: as a plain tool, Send and Wait sends nothing and tells the model why',
		onlyOn2,
		async () => {
			const { sandbox } = saw;
			const model = sandbox.chatModel;
			model.reset();
			model.script(
				{ toolCalls: [{ name: 'Ask_a_person', arguments: { question: 'Which slot suits you?' } }] },
				{ answer: (request) => `Tool said: ${request.toolResults.at(-1)?.content}` },
			);
			const sentBefore = sandbox.state.sent.length;
			const known = await askAgent('Ask the customer which slot suits them');
			const execution = await waitFor(
				async () =>
					(await saw.n8n.executionsOf(WORKFLOW_ID)).find(
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
		assert.equal(campaignStatus(campaign.id), 'pending');
		assert.match(output, /rejected/);
	});
});
