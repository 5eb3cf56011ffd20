// Messenger → Send and Wait for Response, the page the link opens: escaped and self-contained, and
// what a submission of each response type gives the workflow.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Messenger } from '../../../../nodes/Messenger/Messenger.node.ts';
import { approvalParams as approval, ASKING_NODE as NODE } from '../../../support/unit.mjs';

const node = new Messenger();

/** Opens the link: `method`, the posted body as n8n parses it; resolves to the response and result. */
async function open(params, { method = 'GET', body = {} } = {}) {
	const response = { status: 0, headers: {}, body: undefined };
	const context = {
		getNode: () => NODE,
		getNodeParameter: (name, fallback) => (name in params ? params[name] : fallback),
		getRequestObject: () => ({ method, headers: {}, query: {} }),
		getBodyData: () => body,
		getResponseObject: () => ({
			status(code) {
				response.status = code;
				return this;
			},
			setHeader(name, value) {
				response.headers[name.toLowerCase()] = value;
			},
			end(html) {
				response.body = html;
			},
		}),
	};
	const result = await node.webhook.call(context);
	return { response, result };
}

describe('Send and Wait for Response: the page the link opens', () => {
	it('GET shows the page, escaped and self-contained, and resumes nothing', async () => {
		const { response, result } = await open(
			approval({
				message: 'Refund <script>alert(1)</script> & "more"?',
				approvalOptions: {
					values: { approvalType: 'double', approveLabel: '<b>Yes</b>', disapproveLabel: 'No' },
				},
				options: { responseFormTitle: "Ana's <i>question</i>" },
			}),
		);
		assert.deepEqual(result, { noWebhookResponse: true });
		assert.equal(response.status, 200);
		assert.match(response.headers['content-type'], /^text\/html/);
		assert.match(response.headers['content-security-policy'], /default-src 'none'/);
		const html = response.body;
		assert.ok(
			html.includes('Refund &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;more&quot;?'),
		);
		assert.ok(html.includes('&lt;b&gt;Yes&lt;/b&gt;'));
		assert.ok(html.includes('Ana&#39;s &lt;i&gt;question&lt;/i&gt;'));
		assert.doesNotMatch(html, /<script|<b>|<i>|src=|href=|@import|url\(/);
		assert.match(html, /name="viewport"/);
		assert.match(html, /name="approved" value="false"/);
		assert.match(html, /name="approved" value="true"/);
		assert.match(html, /<form method="post" enctype="multipart\/form-data">/);
	});

	it('approval: POST approve or decline gives { data: { approved } }', async () => {
		const double = approval({ approvalOptions: { values: { approvalType: 'double' } } });
		for (const approved of [true, false]) {
			const { result } = await open(double, {
				method: 'POST',
				body: { data: { approved: String(approved) } },
			});
			const { data } = result.workflowData[0][0].json;
			assert.equal(data.approved, approved);
			assert.ok(!Number.isNaN(Date.parse(data.respondedAt)));
			assert.match(result.webhookResponse, /Got it, thanks/);
		}
	});

	it('approve only: a decline or an empty post shows the page again and resumes nothing', async () => {
		for (const body of [{ data: { approved: 'false' } }, {}]) {
			const { response, result } = await open(approval(), { method: 'POST', body });
			assert.deepEqual(result, { noWebhookResponse: true });
			assert.equal(response.status, 400);
			assert.match(response.body, /Choose one of the buttons/);
			assert.doesNotMatch(response.body, /value="false"/);
		}
	});

	it('free text: POST gives { data: { text } }; an empty answer is refused', async () => {
		const params = approval({ responseType: 'freeText' });
		const page = await open(params);
		assert.match(page.response.body, /<textarea id="field-0" name="field-0" required>/);
		const { result } = await open(params, { method: 'POST', body: { 'field-0': 'Tuesday 10:00' } });
		assert.equal(result.workflowData[0][0].json.data.text, 'Tuesday 10:00');
		const empty = await open(params, { method: 'POST', body: { data: { 'field-0': '  ' } } });
		assert.equal(empty.response.status, 400);
		assert.equal(empty.result.workflowData, undefined);
	});

	it('custom form: each field by its label, typed; a refused post keeps the values, escaped', async () => {
		const params = approval({
			responseType: 'customForm',
			formFields: {
				values: [
					{
						fieldLabel: 'Name',
						fieldType: 'text',
						requiredField: true,
						placeholder: 'Your <name>',
					},
					{ fieldLabel: 'Guests', fieldType: 'number' },
					{ fieldLabel: 'Email', fieldType: 'email' },
					{ fieldLabel: 'Day', fieldType: 'date' },
					{
						fieldLabel: 'Slot',
						fieldType: 'dropdown',
						fieldOptions: { values: [{ option: 'AM' }, { option: 'PM' }] },
					},
					{ fieldLabel: 'Notes', fieldType: 'textarea' },
				],
			},
		});
		const page = (await open(params)).response.body;
		for (const html of [
			'<input type="text" id="field-0" name="field-0" required placeholder="Your &lt;name&gt;"',
			'<input type="number" step="any" id="field-1"',
			'<input type="email" id="field-2"',
			'<input type="date" id="field-3"',
			'<option value="PM">PM</option>',
			'<textarea id="field-5" name="field-5">',
		])
			assert.ok(page.includes(html), html);
		const posted = {
			'field-0': 'Ana',
			'field-1': '3',
			'field-2': 'ana@example.com',
			'field-3': '2026-12-01',
			'field-4': 'PM',
			'field-5': '',
		};
		const { result } = await open(params, { method: 'POST', body: { data: posted } });
		const { respondedAt, ...data } = result.workflowData[0][0].json.data;
		assert.deepEqual(data, {
			Name: 'Ana',
			Guests: 3,
			Email: 'ana@example.com',
			Day: '2026-12-01',
			Slot: 'PM',
			Notes: '',
		});
		assert.ok(respondedAt);
		for (const [field, value, problem] of [
			['field-0', '', /&quot;Name&quot; is required/],
			['field-1', 'three', /&quot;Guests&quot; must be a number/],
			['field-2', 'ana@', /&quot;Email&quot; must be an email address/],
			['field-3', 'tomorrow', /&quot;Day&quot; must be a date/],
			['field-4', 'Night', /&quot;Slot&quot; must be one of the choices/],
		]) {
			const bad = { ...posted, [field]: value, 'field-5': '<script>x</script>' };
			const { response, result: refusedResult } = await open(params, {
				method: 'POST',
				body: { data: bad },
			});
			assert.equal(response.status, 400, field);
			assert.equal(refusedResult.workflowData, undefined);
			assert.match(response.body, problem);
			assert.ok(response.body.includes('&lt;script&gt;x&lt;/script&gt;</textarea>'));
		}
	});
});
