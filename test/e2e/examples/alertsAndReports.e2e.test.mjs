// The alert and report examples in examples/ in a real n8n (the run's shared one:
// test/support/n8n.mjs), against the sandbox, with the credential `npm start` creates, run the way
// the editor's "Execute workflow" button runs them (REST, mode `manual`): the nightly campaign
// report from the Manual Trigger beside its schedule, and the two alerts from their Voice AI
// Trigger, which fetches a test event (a real sample from the sandbox) for the rest of the
// workflow to run on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { nodeOutput } from '../harness.mjs';
import {
	MANUAL_TRIGGER,
	examplesN8n,
	exampleSuite,
	itemsOf,
	nodeOfType,
	ranNodes,
} from './examples.mjs';

const DAY_MS = 24 * 3_600_000;
const { example, files, notRun } = exampleSuite('alertsAndReports');

describe('alert and report examples in a real n8n', { timeout: 6 * 60_000 }, () => {
	const ex = examplesN8n(files);

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
		const failing = ex.sandbox.addCampaign({ name: 'E2E report renewals [fail]' });
		const cancelled = ex.sandbox.addCampaign({ name: 'E2E report cancelled' });
		ex.sandbox.advance(2);
		Object.assign(cancelled, { status: 'cancelled', updatedAt: new Date().toISOString() });
		assert.equal(failing.status, 'failed');
		const since = Date.now() - DAY_MS;
		const expected = ex.sandbox.state.campaigns.filter(
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
		const olderFinished = ex.sandbox.state.campaigns.filter(
			(c) => ['completed', 'failed'].includes(c.status) && Date.parse(c.updatedAt) <= since,
		);
		assert.ok(olderFinished.length > 5, 'older finished campaigns the report leaves out');

		const { runData } = await ex.execute(workflow);
		assert.equal(
			itemsOf(runData, 'Get all campaigns').length,
			ex.sandbox.state.campaigns.length,
			'Return All read every campaign',
		);
		const report = nodeOutput({ data: { resultData: { runData } } }, 'Report');
		assert.deepEqual(
			report.map((row) => row.campaignId).sort(),
			expected.map((c) => c.id).sort(),
			JSON.stringify(report, null, 2),
		);
		for (const campaign of expected) {
			const calls = ex.sandbox.state.campaignData.get(campaign.id);
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

	describe('from their trigger (Fetch Test Event)', () => {
		it('campaign-alerts: a failed campaign ends in the failure alert, a completed one in the completion alert', async () => {
			const workflow = example('campaign-alerts.json');
			const trigger = nodeOfType(workflow, 'n8n-nodes-voice-messaging.voiceAiTrigger');
			assert.deepEqual(trigger.parameters.statuses, ['completed', 'failed']);
			assert.deepEqual(trigger.parameters.pollTimes, { item: [{ mode: 'everyMinute' }] });

			// The test event is the newest campaign in one of the chosen statuses.
			const failed = ex.sandbox.addCampaign({ name: 'E2E alert onboarding' });
			Object.assign(failed, { status: 'failed', updatedAt: new Date().toISOString() });
			let run = await ex.runTrigger(workflow);
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

			const completed = ex.sandbox.addCampaign({ name: 'E2E alert renewals' });
			Object.assign(completed, { status: 'completed', updatedAt: new Date().toISOString() });
			run = await ex.runTrigger(workflow);
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
			const balance = ex.sandbox.state.balance;
			balance.credit = 12.34;
			assert.ok(balance.credit < threshold);
			const run = await ex.runTrigger(workflow);
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
	});

	it('every example of this suite (RUN_BY in examples.mjs) was run by a test above', () => {
		assert.deepEqual(
			notRun(),
			[],
			'examples without a test: add one to test/e2e/examples/alertsAndReports.e2e.test.mjs',
		);
	});
});
