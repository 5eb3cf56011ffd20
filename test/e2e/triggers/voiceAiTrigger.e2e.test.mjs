// The Voice AI Trigger polling for real: two published workflows in a running n8n against the
// sandbox (triggers/polling.mjs says how n8n polls and how the suites count polls), each with its
// own API client. Executions are read back through n8n's own REST API.
import assert from 'node:assert/strict';
import { describe } from 'node:test';

import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import {
	lastRunItems,
	pollDiagnostics,
	POLL_NOOP_NODE,
	pollingWorkflow,
	sandboxCredential,
	sleep,
	suiteOptions,
	waitFor,
} from '../harness.mjs';
import { msToNextPoll, usePollingN8n } from './polling.mjs';

const { version, title, it } = suiteOptions(
	'Voice AI Trigger in an activated workflow of a running n8n',
);
const TRIGGER_TYPE = 'n8n-nodes-voice-messaging.voiceAiTrigger';
const TRIGGER_NODE = 'Voice AI Trigger';
const NOOP_NODE = POLL_NOOP_NODE;

/** Each workflow polls with its own client, so the sandbox log tells their polls apart. */
const STATUS = {
	workflowId: 'e2eTrigStatus01',
	credential: { id: 'e2eTrigCredFull', name: 'Voice trigger full client (e2e)' },
	client: DEMO_CLIENTS.full,
};
const CREATED = {
	workflowId: 'e2eTrigCreated1',
	credential: { id: 'e2eTrigCredVoic', name: 'Voice trigger voice client (e2e)' },
	client: DEMO_CLIENTS.voiceOnly,
};

function triggerWorkflow({ workflowId, credential }, parameters, cronSecond) {
	return pollingWorkflow({
		id: workflowId,
		name: `e2e trigger ${parameters.event}`,
		triggerName: TRIGGER_NODE,
		type: TRIGGER_TYPE,
		parameters,
		credential,
		cronSecond,
	});
}

describe(title, { timeout: 10 * 60_000 }, () => {
	const suite = usePollingN8n({
		version,
		credentials: (sandbox) =>
			[STATUS, CREATED].map(({ credential, client }) =>
				sandboxCredential(credential, sandbox, client),
			),
		workflows: (sandbox, cronSecond) => [
			triggerWorkflow(
				STATUS,
				{
					event: 'campaignStatusChanged',
					campaignScope: 'all',
					statuses: ['completed', 'failed', 'cancelled'],
				},
				cronSecond,
			),
			triggerWorkflow(CREATED, { event: 'newCampaign' }, cronSecond),
		],
	});

	// What the test changed after the baseline, and the poll counts at that moment.
	/** @type {{ finished: any, started: any, created: any, statusPollsBefore: number, createdPollsBefore: number }} */
	let changed;

	/** Campaign-list requests of one client that mark one poll (the baseline included). */
	const pollCount = (which) =>
		suite.sandbox.log.filter((entry) => {
			if (entry.clientId !== which.client.clientId || entry.method !== 'GET') return false;
			if (!/\/voice\/campaigns$/.test(entry.path)) return false;
			// Campaign Status Changed: one in-progress list per poll. New Campaign: one newest-first
			// page 1 per poll.
			return which === STATUS
				? entry.query.status === 'in_progress'
				: entry.query.status === undefined && String(entry.query.page) === '1';
		}).length;

	const failedRequests = () => suite.sandbox.log.filter((entry) => entry.status >= 400);
	const executionsOf = (workflowId) => suite.api.executionsOf(workflowId);
	const runDataOf = (executionId) => suite.api.runDataOf(executionId);

	const diagnostics = () => pollDiagnostics(suite.sandbox, suite, 30);

	it('activation polls once for a baseline and starts no execution, although campaigns exist', async () => {
		await waitFor(() => pollCount(STATUS) >= 1 && pollCount(CREATED) >= 1, {
			timeoutMs: 60_000,
			describe: () => `no baseline poll of both workflows in the sandbox log${diagnostics()}`,
		});
		// When n8n came up late and the first scheduled poll is imminent, let that poll pass first
		// (it must not start an execution either), so that no poll races the changes below.
		const { cronSecond, sandbox } = suite;
		const pollsSoFar = msToNextPoll(cronSecond) < 8_000 ? 2 : 1;
		// The baseline's three requests run in parallel; let the poll finish storing its state.
		await sleep(1_500);
		if (pollsSoFar === 2) {
			await waitFor(() => pollCount(STATUS) >= 2 && pollCount(CREATED) >= 2, {
				timeoutMs: 30_000,
				describe: () => `no scheduled poll at second ${cronSecond}${diagnostics()}`,
			});
			await sleep(3_000);
		}
		assert.equal(pollCount(STATUS), pollsSoFar, `baseline poll count${diagnostics()}`);
		assert.equal(pollCount(CREATED), pollsSoFar, `baseline poll count${diagnostics()}`);
		assert.deepEqual(failedRequests(), [], 'the baseline polls all succeeded');

		const campaigns = sandbox.state.campaigns;
		assert.ok(campaigns.length >= 10, 'the sandbox has campaigns to report');
		assert.ok(campaigns.some((c) => ['completed', 'failed', 'cancelled'].includes(c.status)));
		assert.ok(campaigns.some((c) => c.status === 'in_progress'));
		assert.deepEqual(await executionsOf(STATUS.workflowId), []);
		assert.deepEqual(await executionsOf(CREATED.workflowId), []);

		// Now change the sandbox before the first scheduled poll:
		// - an in-progress campaign completes (wanted by the status filter);
		// - a pending campaign starts (a change, but filtered out: in_progress is not chosen);
		// - a campaign is created (pending: not a status event; a New Campaign event).
		const statusPollsBefore = pollCount(STATUS);
		const createdPollsBefore = pollCount(CREATED);
		const changedAt = new Date().toISOString();
		const finished = campaigns.find((c) => c.status === 'in_progress');
		const started = campaigns.find((c) => c.status === 'pending');
		assert.ok(finished && started);
		Object.assign(finished, { status: 'completed', updatedAt: changedAt });
		Object.assign(started, { status: 'in_progress', updatedAt: changedAt });
		const created = sandbox.addCampaign({ name: 'E2E trigger campaign' });
		changed = { finished, started, created, statusPollsBefore, createdPollsBefore };
		// Guard: no poll ran while the sandbox was being changed.
		assert.equal(pollCount(STATUS), statusPollsBefore);
		assert.equal(pollCount(CREATED), createdPollsBefore);
	});

	/** Waits for the workflow's next scheduled poll, then for its executions to finish. */
	async function executionsAfterNextPoll(workflow, pollsBefore) {
		await waitFor(() => pollCount(workflow) > pollsBefore, {
			timeoutMs: 75_000,
			describe: () => `no scheduled poll after the baseline${diagnostics()}`,
		});
		return await waitFor(
			async () => {
				const list = await executionsOf(workflow.workflowId);
				return list.length > 0 && list.every((e) => e.status !== 'running' && e.status !== 'new')
					? list
					: undefined;
			},
			{
				timeoutMs: 30_000,
				describe: () => `no finished execution after the poll${diagnostics()}`,
			},
		);
	}

	it('Campaign Status Changed: the next poll starts exactly one execution with the change', async () => {
		assert.ok(changed, 'the baseline test ran');
		const executions = await executionsAfterNextPoll(STATUS, changed.statusPollsBefore);
		assert.equal(executions.length, 1, JSON.stringify(executions, null, 2));
		const [summary] = executions;
		assert.equal(summary.status, 'success', JSON.stringify(summary));
		assert.equal(summary.mode, 'trigger', JSON.stringify(summary));

		const { runData, error } = await runDataOf(summary.id);
		assert.equal(error, undefined, JSON.stringify(error));
		const items = lastRunItems(runData, TRIGGER_NODE);
		assert.equal(items.length, 1, `only the completed campaign: ${JSON.stringify(items, null, 2)}`);
		const [event] = items;
		assert.equal(event.campaignId, changed.finished.id);
		assert.equal(event.campaignName, changed.finished.name);
		assert.equal(event.previousStatus, 'in_progress');
		assert.equal(event.status, 'completed');
		assert.equal(event.campaign.id, changed.finished.id);
		assert.equal(event.campaign.status, 'completed');
		// The rest of the workflow ran on that item.
		assert.deepEqual(lastRunItems(runData, NOOP_NODE), items);
	});

	it('New Campaign: the next poll starts exactly one execution with the created campaign', async () => {
		assert.ok(changed, 'the baseline test ran');
		const executions = await executionsAfterNextPoll(CREATED, changed.createdPollsBefore);
		assert.equal(executions.length, 1, JSON.stringify(executions, null, 2));
		assert.equal(executions[0].status, 'success', JSON.stringify(executions[0]));
		const { runData, error } = await runDataOf(executions[0].id);
		assert.equal(error, undefined, JSON.stringify(error));
		const items = lastRunItems(runData, TRIGGER_NODE);
		assert.equal(items.length, 1, `only the new campaign: ${JSON.stringify(items, null, 2)}`);
		assert.equal(items[0].id, changed.created.id);
		assert.equal(items[0].name, 'E2E trigger campaign');
		assert.equal(items[0].status, 'pending');
		assert.deepEqual(lastRunItems(runData, NOOP_NODE), items);
	});

	it('a further poll with no change starts no execution in either workflow', async () => {
		assert.ok(changed, 'the baseline test ran');
		await waitFor(
			() =>
				pollCount(STATUS) > changed.statusPollsBefore + 1 &&
				pollCount(CREATED) > changed.createdPollsBefore + 1,
			{ timeoutMs: 75_000, describe: () => `no second scheduled poll${diagnostics()}` },
		);
		// Give an (unwanted) execution time to be saved before counting.
		await sleep(5_000);
		const status = await executionsOf(STATUS.workflowId);
		const created = await executionsOf(CREATED.workflowId);
		assert.equal(status.length, 1, `status workflow: ${JSON.stringify(status, null, 2)}`);
		assert.equal(created.length, 1, `new-campaign workflow: ${JSON.stringify(created, null, 2)}`);
		assert.deepEqual(failedRequests(), [], 'every poll request succeeded');
		assert.doesNotMatch(suite.output(), /poll failed/, 'no poll failed');
	});
});
