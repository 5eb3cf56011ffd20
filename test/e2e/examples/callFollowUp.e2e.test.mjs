// The call follow-up example in a real n8n (the run's shared one), against the sandbox, with the
// data table `npm start` creates: each trigger run as the editor's "Execute workflow" runs it (a
// Fetch Test Event, a real call of a finished call campaign), its item carried to the WhatsApp
// template or to a row of the data table. Its polling is tested in test/e2e/triggers.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';

import { ANSWERED_CALLS_TABLE, ensureDataTable } from '../../../scripts/demo.mjs';
import { examplesN8n, exampleSuite, itemsOf, nodeNamed } from './examples.mjs';

const { example, files, notRun } = exampleSuite('callFollowUp');

describe('call follow-up example in a real n8n', { timeout: 5 * 60_000 }, () => {
	const ex = examplesN8n(files);
	let table;
	let campaign;

	before(async () => {
		table = await ensureDataTable(ex.n8n.rest, ANSWERED_CALLS_TABLE);
		campaign = ex.sandbox.startCallCampaign({ numbers: 30, lines: 10, name: 'Spring offer' });
		while (campaign.status !== 'completed') ex.sandbox.stepCalls(1, campaign.id);
	});

	const run = async (workflow, trigger) => {
		const result = await ex.n8n.runManually(workflow.id, trigger);
		assert.equal(
			result.error,
			undefined,
			`${JSON.stringify(result.error)?.slice(0, 2000)}\n${ex.output()}`,
		);
		return result.runData;
	};

	it('a number not reached gets the WhatsApp template with its campaign', async () => {
		const workflow = example('call-follow-up.json');
		const send = nodeNamed(workflow, 'WhatsApp: we tried to reach you');
		const sentBefore = ex.sandbox.state.sent.length;
		const runData = await run(workflow, 'No answer or busy');
		const [call] = itemsOf(runData, 'No answer or busy');
		assert.ok(['no_answer', 'busy'].includes(call.status), call.status);
		assert.equal(call.campaign.name, 'Spring offer');
		const sent = ex.sandbox.state.sent.slice(sentBefore);
		assert.equal(sent.length, 1);
		assert.equal(sent[0].recipient, call.phoneNumber);
		assert.equal(sent[0].templateId, send.parameters.templateId);
		assert.deepEqual(sent[0].variables, { campaign: 'Spring offer', outcome: call.status });
	});

	it('an answered call becomes a row of the data table "Answered calls"', async () => {
		const workflow = example('call-follow-up.json');
		const runData = await run(workflow, 'Answered call');
		const [call] = itemsOf(runData, 'Answered call');
		assert.equal(call.status, 'answered');
		const rows = await ex.n8n.rest(
			'GET',
			`/rest/projects/${table.projectId}/data-tables/${table.id}/rows`,
		);
		const row = rows.data.find((r) => r.phoneNumber === call.phoneNumber);
		assert.ok(row, JSON.stringify(rows).slice(0, 1000));
		assert.equal(row.campaign, 'Spring offer');
		assert.equal(row.result, call.result);
		assert.equal(row.durationSeconds, call.durationSeconds);
	});

	it('every example of this suite (RUN_BY in examples.mjs) was run by a test above', () => {
		assert.deepEqual(notRun(), []);
	});
});
