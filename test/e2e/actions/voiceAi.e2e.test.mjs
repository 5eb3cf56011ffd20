// The packed package inside a real n8n (installed as a community package), against the sandbox.
import assert from 'node:assert/strict';
import { describe } from 'node:test';

import { DEMO_CLIENTS, TOKEN_PATH } from '../../../sandbox/server.mjs';
import {
	assertExecutionSucceeded,
	byId,
	executionError,
	nodeOutput,
	pollDiagnostics,
	sandboxCredential,
	suiteOptions,
	useSandboxAndN8n,
	voiceAiWorkflow,
} from '../harness.mjs';

// The n8n version (and `it`): run directly, DEFAULT_N8N_VERSION and every test, as always;
// test/e2e/actions/n8n1.e2e.test.mjs imports this file to run it on n8n 1.x (harness importSuite).
const { version: N8N_VERSION, title, it } = suiteOptions('Voice AI node in a real n8n');

const CREDENTIAL = { id: 'e2eVoiceCred001', name: 'Voice sandbox (e2e)' };
const AGENT_COUNT = 130; // more than one page of 100, so Return All must follow totalPages

describe(title, { timeout: 15 * 60_000 }, () => {
	const e2e = useSandboxAndN8n({
		version: N8N_VERSION,
		sandbox: { agentCount: AGENT_COUNT },
		credentials: (sandbox) => [sandboxCredential(CREDENTIAL, sandbox, DEMO_CLIENTS.full)],
	});
	let executions = 0;

	/** Imports a Manual Trigger → Voice AI workflow and executes it; returns the parsed run data. */
	async function runVoiceAi(id, parameters, nodeSettings) {
		await e2e.n8n.importWorkflow(
			voiceAiWorkflow({ id, parameters, credential: CREDENTIAL, nodeSettings }),
		);
		executions++;
		const result = await e2e.n8n.execute(id);
		return result;
	}

	/** Output items of the Voice AI node; fails with n8n's stderr when the execution failed. */
	function voiceOutput(result) {
		return nodeOutput(assertExecutionSucceeded(result, e2e.n8n.log()), 'Voice AI');
	}

	const apiEntries = () => e2e.sandbox.log.filter((entry) => entry.path !== TOKEN_PATH);
	/** What the sandbox was asked, with n8n's output: the message of the exact-log checks below. */
	const diagnostics = () => pollDiagnostics(e2e.sandbox, e2e.n8n, 30);
	const successfulTokenRequests = () =>
		e2e.sandbox.tokenRequests().filter((entry) => entry.status === 200);

	it('Agent → Get Many with Return All returns every agent, in pages of 100', async () => {
		e2e.sandbox.clearLog();
		const result = await runVoiceAi('e2eAgentsAll001', {
			resource: 'agent',
			operation: 'getAll',
			returnAll: true,
		});
		const items = voiceOutput(result);
		assert.equal(items.length, e2e.sandbox.state.agents.length);
		assert.equal(items.length, AGENT_COUNT);
		assert.deepEqual(
			items.map((agent) => agent.id).sort(),
			e2e.sandbox.state.agents.map((agent) => agent.id).sort(),
		);
		const lists = apiEntries().filter(
			(entry) => entry.method === 'GET' && entry.path === '/api/v1/voice/agents',
		);
		assert.deepEqual(
			lists.map((entry) => [entry.query.page, entry.query.limit, entry.status]),
			[
				['1', '100', 200],
				['2', '100', 200],
			],
		);
	});

	it('Campaign → Get returns the campaign as the API holds it', async () => {
		const campaign = e2e.sandbox.state.campaigns[3];
		const result = await runVoiceAi('e2eCampaignGet1', {
			resource: 'campaign',
			operation: 'get',
			campaignId: byId(campaign.id),
		});
		const items = voiceOutput(result);
		assert.equal(items.length, 1);
		assert.deepEqual(items[0], JSON.parse(JSON.stringify(campaign)));
	});

	it('Campaign → Cancel cancels a running campaign', async () => {
		const campaign =
			e2e.sandbox.state.campaigns.find(
				(c) => c.status === 'pending' || c.status === 'in_progress',
			) ?? e2e.sandbox.addCampaign();
		const before = campaign.status;
		assert.ok(before === 'pending' || before === 'in_progress');
		const result = await runVoiceAi('e2eCampaignCxl1', {
			resource: 'campaign',
			operation: 'cancel',
			campaignId: byId(campaign.id),
		});
		const items = voiceOutput(result);
		assert.equal(items.length, 1);
		assert.equal(items[0].id, campaign.id);
		assert.equal(items[0].status, 'cancelled');
		const stored = e2e.sandbox.state.campaigns.find((c) => c.id === campaign.id);
		assert.equal(stored?.status, 'cancelled');
	});

	it('Cancel of a finished campaign with Continue On Fail puts a clear error on the item', async () => {
		const finished = e2e.sandbox.state.campaigns.find((c) => c.status === 'completed');
		assert.ok(finished, 'the sandbox seed has a completed campaign');
		const result = await runVoiceAi(
			'e2eCampaignCxl2',
			{ resource: 'campaign', operation: 'cancel', campaignId: byId(finished.id) },
			{ onError: 'continueRegularOutput' },
		);
		const items = voiceOutput(result);
		assert.equal(items.length, 1);
		const error = items[0].error;
		assert.ok(error, `expected an error on the item, got ${JSON.stringify(items[0])}`);
		const text = typeof error === 'string' ? error : JSON.stringify(error);
		assert.match(text, /already finished/i);
		assert.match(text, new RegExp(finished.id));
		const cancels = apiEntries().filter(
			(entry) => entry.path === `/api/v1/voice/campaigns/${finished.id}/cancel`,
		);
		assert.deepEqual(
			cancels.map((entry) => entry.status),
			[409],
		);
		assert.equal(
			e2e.sandbox.state.campaigns.find((c) => c.id === finished.id)?.status,
			'completed',
		);
	});

	it('all executions so far shared ONE token, stored in the credential', () => {
		assert.ok(executions >= 3, `only ${executions} executions ran`);
		const tokens = e2e.sandbox.tokenRequests();
		assert.equal(successfulTokenRequests().length, 1, `token requests: ${JSON.stringify(tokens)}`);
		assert.equal(tokens.length, 1, `token requests: ${JSON.stringify(tokens)}`);
		assert.equal(e2e.sandbox.tokensIssued, 1);
		// No API request was ever rejected for its token.
		assert.deepEqual(
			apiEntries().filter((entry) => entry.status === 401),
			[],
		);
	});

	it('an expired token is renewed once and the request resent', async () => {
		const campaign = e2e.sandbox.state.campaigns[0];
		e2e.sandbox.expireTokens();
		e2e.sandbox.clearLog();
		const result = await runVoiceAi('e2eCampaignGet2', {
			resource: 'campaign',
			operation: 'get',
			campaignId: byId(campaign.id),
		});
		const items = voiceOutput(result);
		assert.equal(items[0]?.id, campaign.id);
		const path = `/api/v1/voice/campaigns/${campaign.id}`;
		assert.deepEqual(
			e2e.sandbox.log.map((entry) => [entry.method, entry.path, entry.status]),
			[
				['GET', path, 401],
				['POST', TOKEN_PATH, 200],
				['GET', path, 200],
			],
			diagnostics(),
		);
		assert.equal(e2e.sandbox.tokensIssued, 2);
	});

	it('the renewed token is stored too: the next execution asks for no token', async () => {
		e2e.sandbox.clearLog();
		const result = await runVoiceAi('e2eBalance00001', {
			resource: 'billing',
			operation: 'getBalance',
		});
		const items = voiceOutput(result);
		assert.equal(items.length, 1);
		assert.equal(items[0].credit, e2e.sandbox.state.balance.credit);
		assert.deepEqual(e2e.sandbox.tokenRequests(), [], diagnostics());
		assert.deepEqual(
			e2e.sandbox.log.map((entry) => entry.status),
			[200],
			diagnostics(),
		);
	});

	it('a wrong client secret fails the execution with a message about the credential', async () => {
		const wrong = { id: 'e2eVoiceCredBad', name: 'Voice sandbox, wrong secret (e2e)' };
		await e2e.n8n.importCredentials([
			sandboxCredential(wrong, e2e.sandbox, DEMO_CLIENTS.full, { clientSecret: 'not-the-secret' }),
		]);
		e2e.sandbox.clearLog();
		await e2e.n8n.importWorkflow(
			voiceAiWorkflow({
				id: 'e2eBadSecret001',
				parameters: { resource: 'billing', operation: 'getBalance' },
				credential: wrong,
			}),
		);
		const result = await e2e.n8n.execute('e2eBadSecret001');
		const error = executionError(result);
		assert.ok(error, `expected the execution to fail: ${JSON.stringify(result).slice(0, 2000)}`);
		const text = `${error.message ?? ''} ${error.description ?? ''}`;
		assert.match(
			text,
			/rejected the Client ID or Client Secret/,
			JSON.stringify(error) + diagnostics(),
		);
		assert.doesNotMatch(JSON.stringify(error), /not-the-secret/);
		assert.deepEqual(
			e2e.sandbox.log.map((entry) => [entry.path, entry.status]),
			[[TOKEN_PATH, 401]],
			diagnostics(),
		);
	});
});
