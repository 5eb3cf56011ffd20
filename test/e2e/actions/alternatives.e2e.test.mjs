// A running n8n against an API that chose differently where its description is silent: pages of
// 20 as { data, meta } whatever limit asks, no campaign status filter, a balance under names no
// trigger reads. The operations return the same records, the Campaign Status Changed trigger
// reports nothing on its baseline and quiet polls and the change once, and Balance Low fails in
// the package's words (n8n would turn a message quoting `ratePerMinute` into "Operation not
// permitted").
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import {
	byId,
	pollDiagnostics,
	pollingWorkflow,
	sandboxCredential,
	sleep,
	useSandboxAndN8n,
	voiceAiWorkflow,
	waitFor,
} from '../harness.mjs';

const CREDENTIAL = { id: 'e2eAltCredFull1', name: 'Voice full client (alternatives e2e)' };
const STATUS_WORKFLOW = 'e2eAltStatus001';
const BALANCE_WORKFLOW = 'e2eAltBalance01';
const TRIGGER_NODE = 'Voice AI Trigger';
/**
 * Seconds from writing the workflows until the first scheduled poll, with a margin (activating
 * the workflow makes the baseline poll at once).
 */
const FIRST_POLL_AFTER_S = 15;

const ids = (items) => items.map((item) => item.id ?? item.phoneNumber);

describe(
	'a running n8n against an API with pages of 20 as { data, meta }, no status filter, another balance',
	{ timeout: 8 * 60_000 },
	() => {
		const e2e = useSandboxAndN8n({
			sandbox: {
				campaignCount: 57,
				activeCampaignCount: 20,
				fixedPageSize: 20,
				listEnvelope: 'data-meta',
				ignoreStatusFilter: true,
				balanceShape: 'unknown',
			},
			credentials: (sandbox) => [sandboxCredential(CREDENTIAL, sandbox, DEMO_CLIENTS.full)],
		});
		let cronSecond = 0;
		let biggest;
		const operations = {};

		/** One poll of the status workflow: its first in-progress list page, newest first. */
		const statusPolls = () =>
			e2e.sandbox.log.filter(
				(e) =>
					e.method === 'GET' &&
					/\/voice\/campaigns$/.test(e.path) &&
					e.query.status === 'in_progress' &&
					e.query.sort === 'desc' &&
					String(e.query.page) === '1',
			).length;
		const diagnostics = () => pollDiagnostics(e2e.sandbox, e2e.n8n, 30);

		before(async () => {
			biggest = e2e.sandbox.state.campaigns
				.map((c) => ({ id: c.id, rows: e2e.sandbox.state.campaignData.get(c.id) }))
				.sort((a, b) => b.rows.length - a.rows.length)[0];
			assert.ok(biggest.rows.length > 25);
			Object.assign(operations, {
				e2eAltInProgres: {
					resource: 'campaign',
					operation: 'getAll',
					returnAll: true,
					filters: { status: 'in_progress' },
					options: {},
				},
				e2eAltGetDataAl: {
					resource: 'campaign',
					operation: 'getData',
					campaignId: byId(biggest.id),
					returnAll: true,
				},
				e2eAltGetData25: {
					resource: 'campaign',
					operation: 'getData',
					campaignId: byId(biggest.id),
					returnAll: false,
					limit: 25,
				},
			});
			for (const [id, parameters] of Object.entries(operations)) {
				await e2e.n8n.importWorkflow(voiceAiWorkflow({ id, parameters, credential: CREDENTIAL }));
			}
			cronSecond = Math.floor(Date.now() / 1000 + FIRST_POLL_AFTER_S) % 60;
			const trigger = (id, parameters) =>
				pollingWorkflow({
					id,
					name: `e2e alternatives ${parameters.event}`,
					triggerName: TRIGGER_NODE,
					type: 'n8n-nodes-voice-messaging.voiceAiTrigger',
					parameters,
					credential: CREDENTIAL,
					cronSecond,
				});
			await e2e.n8n.importWorkflow(
				trigger(STATUS_WORKFLOW, {
					event: 'campaignStatusChanged',
					campaignScope: 'all',
					statuses: [],
				}),
			);
			await e2e.n8n.importWorkflow(
				trigger(BALANCE_WORKFLOW, { event: 'balanceLow', metric: 'credit', threshold: 10 }),
			);
			await e2e.n8n.activate(STATUS_WORKFLOW);
		});

		it('Campaign → Get Many "In Progress" and Get Data (Return All, Limit 25) return the right records', async () => {
			const output = async (id) => {
				const { runData, error } = await e2e.n8n.runManually(id, 'Manual Trigger');
				assert.equal(error, undefined, JSON.stringify(error));
				return runData['Voice AI'][0].data.main[0].map((item) => item.json);
			};
			const inProgress = await output('e2eAltInProgres');
			assert.ok(inProgress.length > 0);
			assert.ok(inProgress.every((c) => c.status === 'in_progress'));
			assert.deepEqual(
				ids(inProgress).sort(),
				ids(e2e.sandbox.state.campaigns.filter((c) => c.status === 'in_progress')).sort(),
			);
			assert.deepEqual(ids(await output('e2eAltGetDataAl')), ids(biggest.rows));
			assert.deepEqual(ids(await output('e2eAltGetData25')), ids(biggest.rows.slice(0, 25)));
		});

		it('Balance Low, Fetch Test Event: n8n shows the message the node wrote', async () => {
			const { error } = await e2e.n8n.runManually(BALANCE_WORKFLOW, TRIGGER_NODE);
			assert.ok(error, 'the manual poll failed');
			assert.equal(
				error.message,
				'The balance has no numeric "credit" field',
				JSON.stringify(error),
			);
			assert.match(String(error.description), /amountLeft \(number\)/);
		});

		it('Campaign Status Changed: no execution for the baseline and a quiet poll, one for a change', async () => {
			await waitFor(() => statusPolls() >= 2, {
				timeoutMs: 100_000,
				describe: () => `no scheduled poll after the baseline${diagnostics()}`,
			});
			await sleep(5_000);
			assert.deepEqual(await e2e.n8n.executionsOf(STATUS_WORKFLOW), [], diagnostics());
			const finished = e2e.sandbox.state.campaigns.find((c) => c.status === 'in_progress');
			Object.assign(finished, { status: 'completed', updatedAt: new Date().toISOString() });
			const before = statusPolls();
			await waitFor(() => statusPolls() > before, {
				timeoutMs: 75_000,
				describe: () => `no scheduled poll after the change${diagnostics()}`,
			});
			const executions = await waitFor(
				async () => {
					const list = await e2e.n8n.executionsOf(STATUS_WORKFLOW);
					return list.length > 0 && list.every((e) => !['new', 'running'].includes(e.status))
						? list
						: undefined;
				},
				{ timeoutMs: 30_000, describe: () => `no execution after the change${diagnostics()}` },
			);
			assert.equal(executions.length, 1, JSON.stringify(executions));
			const { runData } = await e2e.n8n.runDataOf(executions[0].id);
			const events = runData[TRIGGER_NODE][0].data.main[0].map((item) => item.json);
			assert.deepEqual(
				events.map((e) => [e.campaignId, e.previousStatus, e.status]),
				[[finished.id, 'in_progress', 'completed']],
			);
			assert.doesNotMatch(e2e.n8n.output(), /poll failed/);
		});
	},
);
