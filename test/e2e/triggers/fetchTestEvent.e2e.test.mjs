// Every trigger event's "Fetch Test Event" inside a real n8n (DEFAULT_N8N_VERSION, the run's shared
// one: test/support/n8n.mjs) with the packed package installed, against the sandbox: POST
// /rest/workflows/:id/run on the trigger, the call the editor makes; n8n runs `poll()` in manual
// mode, which returns a real sample. All four events: Campaign Status Changed, New Campaign,
// Balance Low, Broadcast Message Status Changed.
// (`n8n execute` cannot run a polling trigger: it only starts from a Manual Trigger and refuses a
// workflow without one, "Missing node to start execution"; in its `cli` mode n8n would not call
// `poll()` anyway, only in `manual` mode.)
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import {
	CRED,
	LOW_CREDIT,
	MESSENGER_TRIGGER_TYPE,
	VOICE_TRIGGER_TYPE,
	changeWatchedState,
	credentialsFor,
	plain,
	runSuffix,
	sendWatchedBroadcast,
	triggerWorkflow,
} from '../../support/everyOperation.mjs';
import { lastRunItems, useSandboxAndN8n, waitFor } from '../harness.mjs';

const WF = {
	sampleStatus: 'e2eCovSmpStatus',
	sampleNewCampaign: 'e2eCovSmpNewCmp',
	sampleBalance: 'e2eCovSmpBalnce',
	sampleBroadcast: 'e2eCovSmpBcast1',
};

const suffix = runSuffix();

describe('Fetch Test Event of every trigger event in a real n8n', { timeout: 5 * 60_000 }, () => {
	const e2e = useSandboxAndN8n({ credentials: credentialsFor });
	/** e2e's, once its before() has run. */
	let sandbox, n8n;
	/** The broadcast messages the Messenger Trigger watches. */
	let watchedIds = [];

	before(async () => {
		({ sandbox, n8n } = e2e);
		// The samples see the sandbox as the activated triggers' change leaves it
		// (test/e2e/triggers/activatedPolls.e2e.test.mjs): the watched messages one step on, the
		// credit below the threshold.
		watchedIds = await sendWatchedBroadcast(sandbox);
		changeWatchedState(sandbox, watchedIds);
		await n8n.importWorkflows([
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
	});

	/** Fetch Test Event on a trigger, as the editor does it: a manual run of the trigger alone. */
	async function fetchTestEvent(workflowId, triggerName) {
		const started = await n8n.rest('POST', `/rest/workflows/${n8n.workflowId(workflowId)}/run`, {
			triggerToStartFrom: { name: triggerName },
			destinationNode: { nodeName: triggerName, mode: 'inclusive' },
		});
		assert.ok(started?.executionId, `no execution started: ${JSON.stringify(started)}`);
		const summary = await waitFor(
			async () => {
				const { execution } = await n8n.runDataOf(started.executionId).catch(() => ({}));
				return execution && !['new', 'running', 'waiting'].includes(execution.status)
					? execution
					: undefined;
			},
			{ timeoutMs: 30_000, describe: () => `execution ${started.executionId} did not finish` },
		);
		assert.equal(summary.mode, 'manual');
		const { runData, error } = await n8n.runDataOf(started.executionId);
		assert.equal(error, undefined, JSON.stringify(error));
		assert.equal(summary.status, 'success', JSON.stringify(summary).slice(0, 1000));
		return lastRunItems(runData, triggerName);
	}

	it('Fetch Test Event, Voice AI Trigger → Campaign Status Changed: the newest campaign in a chosen status', async () => {
		const items = await fetchTestEvent(WF.sampleStatus, 'Voice AI Trigger');
		const statuses = ['completed', 'failed', 'cancelled'];
		const newestFirst = [...sandbox.state.campaigns].reverse().slice(0, 100);
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
		const created = sandbox.addCampaign({ name: `E2E coverage sample ${suffix}` });
		const items = await fetchTestEvent(WF.sampleNewCampaign, 'Voice AI Trigger');
		assert.deepEqual(items, [plain(created)]);
	});

	it('Fetch Test Event, Voice AI Trigger → Balance Low: the current balance against the threshold', async () => {
		const items = await fetchTestEvent(WF.sampleBalance, 'Voice AI Trigger');
		const { credit, currency, minutes, ratePerMinute } = sandbox.state.balance;
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
		const sampleRequestsBefore = sandbox.log.filter(
			(e) => e.clientId === CRED.full.client.clientId && e.path.includes('/broadcast/messages/'),
		).length;
		const items = await fetchTestEvent(WF.sampleBroadcast, 'Messenger Trigger');
		// The ids came from an expression giving an array: the first of them is sampled.
		const message = sandbox.state.broadcastMessages.find((m) => m.id === watchedIds[1]);
		assert.deepEqual(items, [
			{ messageId: watchedIds[1], previousStatus: null, status: 'sent', message: plain(message) },
		]);
		const sampleRequests = sandbox.log
			.filter(
				(e) => e.clientId === CRED.full.client.clientId && e.path.includes('/broadcast/messages/'),
			)
			.slice(sampleRequestsBefore);
		assert.deepEqual(
			sampleRequests.map((e) => [e.path.split('/').pop(), e.status]),
			[[watchedIds[1], 200]],
		);
	});
});
