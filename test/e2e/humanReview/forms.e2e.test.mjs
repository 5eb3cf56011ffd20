// Messenger → Send and Wait for Response, the pages a person fills in, in a running n8n against
// the sandbox: free text and a custom form posted as the page posts them (empty or missing
// answers refused), and headless Chromium at a phone's size answering an approval and a form as a
// person does (no request blocked by the pages' Content-Security-Policy). On n8n 1.x:
// n8n1.e2e.test.mjs.
import assert from 'node:assert/strict';
import { describe } from 'node:test';

import { launchChromium, suiteOptions } from '../harness.mjs';
import { RESPONSES, useSendAndWait, waitingWorkflow } from './sendAndWait.mjs';

const { version, title, it } = suiteOptions('Send and Wait for Response: forms and free text');
const CREDENTIAL = { id: 'e2eSawFormsCred', name: 'Send and Wait forms client (e2e)' };
const WORKFLOWS = {
	approval: waitingWorkflow('e2eSawFormsApproval', RESPONSES.approval, CREDENTIAL),
	freeText: waitingWorkflow('e2eSawFreeText', RESPONSES.freeText, CREDENTIAL),
	customForm: waitingWorkflow('e2eSawForm', RESPONSES.customForm, CREDENTIAL),
};

describe(title, { timeout: 10 * 60_000 }, () => {
	const { answer, resumedWith, startWaiting, statusOf } = useSendAndWait({
		version,
		credential: CREDENTIAL,
		workflows: () => Object.values(WORKFLOWS),
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
});
