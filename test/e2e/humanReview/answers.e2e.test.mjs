// Messenger → Send and Wait for Response, approval answers, in a running n8n against the sandbox:
// a published workflow started by a Webhook waits at the node; the sandbox records the one
// message it was asked to send, whose text (or template variables) holds the signed link; the
// link is opened as the person's phone would (GET the page, POST the answer) and the execution
// goes on with the answer. A tampered link is refused and the execution keeps waiting; Limit Wait
// Time resumes on its own. On n8n 1.x: n8n1.e2e.test.mjs.
import assert from 'node:assert/strict';
import { before, describe } from 'node:test';

import { suiteOptions } from '../harness.mjs';
import { ASK, RESPONSES, useSendAndWait, waitingWorkflow } from './sendAndWait.mjs';

const { version, title, it } = suiteOptions('Send and Wait for Response: approval answers');
const CREDENTIAL = { id: 'e2eSawAnswersCred', name: 'Send and Wait answers client (e2e)' };
const WORKFLOWS = {
	approval: waitingWorkflow('e2eSawApproval', RESPONSES.approval, CREDENTIAL),
	limit: waitingWorkflow('e2eSawLimit', RESPONSES.limit, CREDENTIAL),
	/** Its sending number (the sandbox's second) is set once the sandbox is up. */
	template: undefined,
};

describe(title, { timeout: 10 * 60_000 }, () => {
	/** The sending number the template workflow chooses. */
	let numberId = '';
	const saw = useSendAndWait({
		version,
		credential: CREDENTIAL,
		workflows: (sandbox) => {
			numberId = sandbox.state.whatsappNumbers[1].id;
			const template = RESPONSES.template(numberId);
			WORKFLOWS.template = waitingWorkflow('e2eSawTemplate', template, CREDENTIAL);
			return Object.values(WORKFLOWS);
		},
	});
	const { answer, resumedWith, startWaiting, statusOf } = saw;
	/** The execution started first and left waiting for its wait limit, while the others run. */
	let limited;

	before(async () => {
		// Started first: its limit (6 s) runs out while the other tests run.
		limited = await startWaiting(WORKFLOWS.limit, 'Limit');
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
			(await saw.n8n.runDataOf(id)).runData[ASK].at(-1).data.main[0][0].json.data.approved,
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

	it('Limit Wait Time: the execution goes on without an answer, with the input items', async () => {
		const output = await resumedWith(limited.id);
		assert.equal(output.length, 1);
		assert.deepEqual(output[0].body, { campaign: 'Limit' });
		assert.equal(output[0].data, undefined, 'no answer');
	});
});
