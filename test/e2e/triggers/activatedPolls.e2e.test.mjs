// Published (activated) polling workflows inside a real n8n (DEFAULT_N8N_VERSION, the run's shared
// one: test/support/n8n.mjs) with the packed package installed, for what the Voice AI Trigger
// suite (voiceAiTrigger.e2e.test.mjs) does not cover: the Messenger Trigger on real status changes
// and Voice AI Trigger Balance Low on a real drop, created and published through the REST API as
// the editor does. Their baseline poll runs at activation; the test then changes the sandbox, and
// the next scheduled poll (n8n polls at most once a minute; a custom cron with a fixed second puts
// the first one FIRST_POLL_AFTER_S after publishing) must start exactly one execution with the
// change.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import {
	BALANCE_THRESHOLD,
	CRED,
	LOW_CREDIT,
	MESSENGER_TRIGGER_TYPE,
	VOICE_TRIGGER_TYPE,
	changeWatchedState,
	credentialsFor,
	plain,
	sendWatchedBroadcast,
	triggerWorkflow,
} from '../../support/everyOperation.mjs';
import { lastRunItems, pollDiagnostics, sleep, useSandboxAndN8n, waitFor } from '../harness.mjs';

/** Seconds from publishing the polling workflows to their first scheduled poll. */
const FIRST_POLL_AFTER_S = 12;

describe('activated polling triggers in a real n8n', { timeout: 6 * 60_000 }, () => {
	const e2e = useSandboxAndN8n({ credentials: credentialsFor });
	/** e2e's, once its before() has run. */
	let sandbox, n8n;
	let cronSecond = 0;
	/** Ids of the two published (activated) polling workflows; n8n gives them when created. */
	const active = { broadcast: '', balance: '' };
	/** When the polling workflows were published (for the diagnostics). */
	let publishedAt = 0;
	/** The broadcast messages the Messenger Trigger watches (sent through the API before publishing). */
	let watchedIds = [];
	/** Set by the baseline test: the poll counts at the moment of the change. */
	let changed;

	const executionsOf = (workflowId) => n8n.executionsOf(workflowId);
	const runDataOf = (executionId) => n8n.runDataOf(executionId);

	before(async () => {
		({ sandbox, n8n } = e2e);
		watchedIds = await sendWatchedBroadcast(sandbox);
		// Balance Low watches the credit: well above the threshold at activation.
		sandbox.state.balance.credit = 800;

		// The polling workflows are created and published the way the editor does it (POST
		// /rest/workflows, then /activate with the version), once n8n is up: so the cron's second
		// can put the first scheduled poll a fixed time after activation.
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

	// ---- polls of the activated workflows, counted in the sandbox's log
	const broadcastPolls = () =>
		sandbox.log.filter(
			(e) =>
				e.clientId === CRED.messenger.client.clientId &&
				e.method === 'GET' &&
				e.path === `/api/v1/messenger/broadcast/messages/${watchedIds[0]}`,
		).length;
	const balancePolls = () =>
		sandbox.log.filter(
			(e) =>
				e.clientId === CRED.voice.client.clientId &&
				e.method === 'GET' &&
				e.path === '/api/v1/voice/billing/balance',
		).length;
	const diagnostics = () => pollDiagnostics(sandbox, n8n, 25);

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

	/** Creates a workflow through the REST API (no id: n8n gives one) and publishes it; its id. */
	async function publish({ id, ...workflow }) {
		const created = await n8n.importWorkflow(workflow);
		assert.ok(created?.id && created.versionId, JSON.stringify(created).slice(0, 1000));
		const activated = await n8n.activate(created.id);
		assert.equal(activated.activeVersionId, created.versionId, 'the saved version is published');
		return created.id;
	}

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
			sandbox.log.filter((e) => e.status >= 400),
			[],
			'every baseline request succeeded',
		);
		assert.deepEqual(await executionsOf(active.broadcast), []);
		assert.deepEqual(await executionsOf(active.balance), []);

		// The change: every watched message moves one step (two to sent, the 0000 one to failed),
		// and the credit drops below the threshold.
		changeWatchedState(sandbox, watchedIds);
		changed = { broadcastPolls: broadcastPolls(), balancePolls: balancePolls() };
	});

	it('activated Messenger Trigger: the next poll starts one execution with every status change', async () => {
		assert.ok(changed, 'the baseline test ran');
		const runData = await theExecutionAfterChange(
			active.broadcast,
			broadcastPolls,
			changed.broadcastPolls,
		);
		const items = lastRunItems(runData, 'Messenger Trigger');
		const stored = (id) => plain(sandbox.state.broadcastMessages.find((m) => m.id === id));
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
		assert.deepEqual(lastRunItems(runData, 'No-Op'), items);
	});

	it('activated Voice AI Trigger → Balance Low: the next poll starts one execution for the drop', async () => {
		assert.ok(changed, 'the baseline test ran');
		const runData = await theExecutionAfterChange(
			active.balance,
			balancePolls,
			changed.balancePolls,
		);
		const items = lastRunItems(runData, 'Voice AI Trigger');
		const { currency, minutes, ratePerMinute } = sandbox.state.balance;
		assert.deepEqual(items, [
			{
				metric: 'credit',
				value: LOW_CREDIT,
				threshold: BALANCE_THRESHOLD,
				belowThreshold: true,
				balance: { credit: LOW_CREDIT, currency, minutes, ratePerMinute },
			},
		]);
		assert.deepEqual(lastRunItems(runData, 'No-Op'), items);
		assert.deepEqual(
			sandbox.log.filter((e) => e.status >= 400),
			[],
			'no request to the triggers sandbox failed',
		);
		assert.doesNotMatch(n8n.output(), /poll failed/);
	});
});
