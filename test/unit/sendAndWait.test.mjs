// Messenger → Send and Wait for Response: what is sent (one message with the signed link), how
// the execution is put to wait, bad input refused before anything is sent, and the pages the link
// opens (escaped, self-contained) with what a submission gives the workflow.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Messenger } from '../../nodes/Messenger/Messenger.node.ts';
import { DEFAULT_LABELS } from '../../nodes/Messenger/sendAndWait/properties.ts';
import { createExecuteContext, scriptedHttp } from '../../tools/context.mjs';
import { NodeOperationError } from '../../tools/nodeShared.mjs';

const node = new Messenger();
const LINK = 'https://n8n.example.com/webhook-waiting/41/node-1?signature=abc';
const WAIT_INDEFINITELY = new Date('3000-01-01T00:00:00.000Z');
const NODE = { name: 'Ask', type: 'n8n-nodes-voice-messaging.messenger', typeVersion: 1 };
const BROADCAST = '/api/v1/messenger/broadcast/messages';

const approval = (extra = {}) => ({
	resource: 'message',
	operation: 'sendAndWait',
	channel: 'whatsapp',
	phone: '+34 600 123 456',
	message: 'Cancel campaign "Spring"?',
	sendAs: 'text',
	responseType: 'approval',
	approvalOptions: {},
	options: {},
	...extra,
});

/** Runs the operation; resolves to what was sent, the wait and the node's output. */
async function send(params, { items = [{ json: { a: 1 } }], type = NODE.type, v1 = false } = {}) {
	const { http, calls } = scriptedHttp(() => ({ items: [{ id: 'bcm_1', status: 'queued' }] }));
	const context = createExecuteContext({
		params,
		items,
		http,
		node: { ...NODE, type },
		credentials: { baseUrl: 'https://api.example.com' },
	});
	const waits = [];
	const signed = [];
	context.getSignedResumeUrl = (query = {}) => (signed.push(query), LINK);
	context.putExecutionToWait = async (date) => void waits.push(date);
	let validation = 0;
	if (v1) context.setSignatureValidationRequired = () => validation++;
	const output = await node.execute.call(context);
	return { calls, waits, signed, output: output[0], validation };
}

async function refused(params, pattern) {
	const { http, calls } = scriptedHttp(() => ({}));
	const context = createExecuteContext({ params, http, node: NODE });
	const waits = [];
	context.getSignedResumeUrl = () => LINK;
	context.putExecutionToWait = async (date) => void waits.push(date);
	await assert.rejects(node.execute.call(context), (error) => {
		assert.ok(error instanceof NodeOperationError, String(error));
		assert.match(error.message, pattern);
		return true;
	});
	assert.equal(calls.length, 0, 'nothing sent');
	assert.equal(waits.length, 0, 'no wait');
}

describe('Send and Wait for Response: description', () => {
	const operation = node.description.properties.find(
		(p) => p.name === 'operation' && p.displayOptions.show.resource.includes('message'),
	);

	it('is the sendAndWait operation of Message, with the waiting webhooks n8n looks for', () => {
		// n8n 2.x builds the agents' review step (…HitlTool) from exactly these.
		assert.ok(operation.options.some((o) => o.value === 'sendAndWait'));
		assert.deepEqual(operation.displayOptions.show.resource, ['message']);
		assert.deepEqual(
			node.description.webhooks.map((w) => [w.httpMethod, w.path, w.restartWebhook, w.isFullPath]),
			[
				['GET', '={{ $nodeId }}', true, true],
				['POST', '={{ $nodeId }}', true, true],
			],
		);
		assert.equal(typeof node.webhook, 'function');
		assert.equal(node.description.usableAsTool, true);
		const own = node.description.properties.filter((p) =>
			p.displayOptions?.show?.operation?.includes('sendAndWait'),
		);
		for (const name of ['message', 'responseType', 'approvalOptions', 'formFields', 'options'])
			assert.ok(
				own.some((p) => p.name === name),
				name,
			);
	});

	it('shows the default labels the node uses when a label is left empty', () => {
		const own = node.description.properties.filter((p) =>
			p.displayOptions?.show?.operation?.includes('sendAndWait'),
		);
		const approvalValues = own.find((p) => p.name === 'approvalOptions').options[0].values;
		const options = own.find((p) => p.name === 'options').options;
		const defaultOf = (list, name) => list.find((p) => p.name === name).default;
		assert.deepEqual(
			{
				approve: defaultOf(approvalValues, 'approveLabel'),
				disapprove: defaultOf(approvalValues, 'disapproveLabel'),
				link: defaultOf(options, 'messageButtonLabel'),
				submit: defaultOf(options, 'responseFormButtonLabel'),
			},
			{ ...DEFAULT_LABELS },
		);
	});
});

describe('Send and Wait for Response: the message and the wait', () => {
	it('sends one WhatsApp text with the link, waits indefinitely and passes the items on', async () => {
		const items = [{ json: { a: 1 } }, { json: { a: 2 } }, { json: { a: 3 } }];
		const { calls, waits, signed, output } = await send(approval(), { items });
		assert.equal(calls.length, 1, 'one message for three items');
		assert.equal(calls[0].method, 'POST');
		assert.equal(calls[0].url, BROADCAST);
		assert.deepEqual(calls[0].body, {
			channel: 'whatsapp',
			recipients: [{ phone: '+34600123456' }],
			text: `Cancel campaign "Spring"?\n\nRespond: ${LINK}`,
		});
		assert.deepEqual(signed, [{}], 'one link, without an answer in it');
		assert.deepEqual(waits, [WAIT_INDEFINITELY]);
		assert.deepEqual(output, items);
	});

	it('email and SMS go to the address of their channel; the link label is the option', async () => {
		const email = await send(
			approval({
				channel: 'email',
				email: ' ops@example.com ',
				options: { messageButtonLabel: 'Open' },
			}),
		);
		assert.deepEqual(email.calls[0].body.recipients, [{ email: 'ops@example.com' }]);
		assert.equal(email.calls[0].body.text, `Cancel campaign "Spring"?\n\nOpen: ${LINK}`);
		const sms = await send(approval({ channel: 'sms', options: { whatsappNumberId: 'wan_1' } }));
		assert.deepEqual(sms.calls[0].body.recipients, [{ phone: '+34600123456' }]);
		assert.equal(sms.calls[0].body.whatsappNumberId, undefined, 'the number is WhatsApp only');
	});

	it('a template carries the link and the message as variables, from the chosen number', async () => {
		const { calls } = await send(
			approval({
				sendAs: 'template',
				templateId: ' approval_request ',
				linkVariable: 'url',
				messageVariable: 'question',
				options: { whatsappNumberId: 'wan_2' },
			}),
		);
		assert.deepEqual(calls[0].body, {
			channel: 'whatsapp',
			recipients: [
				{ phone: '+34600123456', variables: { url: LINK, question: 'Cancel campaign "Spring"?' } },
			],
			templateId: 'approval_request',
			whatsappNumberId: 'wan_2',
		});
		const noMessage = await send(
			approval({ sendAs: 'template', templateId: 't', linkVariable: 'link', messageVariable: '' }),
		);
		assert.deepEqual(noMessage.calls[0].body.recipients[0].variables, { link: LINK });
	});

	it('Limit Wait Time: after an interval or at a date', async () => {
		const before = Date.now();
		const { waits } = await send(
			approval({
				options: {
					limitWaitTime: {
						values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'hours' },
					},
				},
			}),
		);
		const waited = waits[0].getTime() - before;
		assert.ok(waited >= 2 * 3_600_000 && waited < 2 * 3_600_000 + 5000, String(waited));
		const at = await send(
			approval({
				options: {
					limitWaitTime: {
						values: { limitType: 'atSpecifiedTime', maxDateAndTime: '2030-01-02T03:04:05Z' },
					},
				},
			}),
		);
		assert.deepEqual(at.waits, [new Date('2030-01-02T03:04:05Z')]);
	});

	it('asks n8n 1.x to check the link’s signature (the call n8n 2.x no longer has)', async () => {
		assert.equal((await send(approval(), { v1: true })).validation, 1);
	});

	it('runs as the agents’ human review step, but not as a plain tool', async () => {
		const review = await send(approval(), { type: `${NODE.type}HitlTool` });
		assert.equal(review.calls.length, 1);
		const { calls, waits, output } = await send(approval(), { type: `${NODE.type}Tool` });
		assert.equal(calls.length, 0);
		assert.equal(waits.length, 0);
		assert.match(output[0].json.error, /cannot run as a tool/);
	});
});

describe('Send and Wait for Response: bad input sends nothing', () => {
	it('with Continue On Fail: one error item for the execution, not one per item', async () => {
		const { http, calls } = scriptedHttp(() => ({}));
		const context = createExecuteContext({
			params: approval({ phone: '600' }),
			items: [{ json: {} }, { json: {} }, { json: {} }],
			http,
			node: NODE,
			continueOnFail: true,
		});
		context.getSignedResumeUrl = () => LINK;
		context.putExecutionToWait = async () => assert.fail('no wait');
		const [output] = await node.execute.call(context);
		assert.equal(output.length, 1);
		assert.match(output[0].json.error, /Recipient phone "600" is not a phone number/);
		assert.deepEqual(output[0].pairedItem, { item: 0 });
		assert.equal(calls.length, 0);
	});

	const form = (values) => approval({ responseType: 'customForm', formFields: { values } });
	for (const [name, params, pattern] of [
		['no phone', approval({ phone: '' }), /Recipient phone is empty/],
		['a phone without country code', approval({ phone: '600123456' }), /not a phone number/],
		[
			'a bad email',
			approval({ channel: 'email', email: 'ops@' }),
			/Recipient email "ops@" is not an email/,
		],
		['no email', approval({ channel: 'email', email: '' }), /Recipient email is empty/],
		['an empty message', approval({ message: '  ' }), /^Message is empty/],
		[
			'a message too long with the link',
			approval({ message: 'x'.repeat(4090) }),
			/Message is too long/,
		],
		[
			'a template without ID',
			approval({ sendAs: 'template', templateId: '' }),
			/Template ID is empty/,
		],
		['a form without fields', form([]), /Form Fields is empty/],
		[
			'a form field without label',
			form([{ fieldLabel: ' ', fieldType: 'text' }]),
			/Form field 1 has no Field Label/,
		],
		[
			'a dropdown without options',
			form([{ fieldLabel: 'Slot', fieldType: 'dropdown' }]),
			/"Slot" is a dropdown list without options/,
		],
		[
			'two fields with one label',
			form([{ fieldLabel: 'A' }, { fieldLabel: 'A' }]),
			/Two form fields have the label "A"/,
		],
		[
			'a wait limit that is no date',
			approval({
				options: {
					limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: 'soon' } },
				},
			}),
			/Max Date and Time "soon" is not a date/,
		],
		[
			'a negative wait',
			approval({
				options: { limitWaitTime: { values: { resumeAmount: -1, resumeUnit: 'hours' } } },
			}),
			/Amount must be a number from 0/,
		],
	]) {
		it(name, async () => refused(params, pattern));
	}
});

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

describe('the README describes Send and Wait for Response as the node has it', () => {
	it('names every response type and form field type, and the default link label', async () => {
		const { readFileSync } = await import('node:fs');
		const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
		const section = /### Send and Wait for Response\n([^]*?)\n### /.exec(readme)?.[1];
		assert.ok(section, 'the README has the section');
		const own = node.description.properties.filter((p) =>
			p.displayOptions?.show?.operation?.includes('sendAndWait'),
		);
		const names = (parameter) =>
			own.find((p) => p.name === parameter).options.map((o) => o.name.toLowerCase());
		for (const name of names('responseType')) assert.ok(section.toLowerCase().includes(name), name);
		const fieldTypes = own
			.find((p) => p.name === 'formFields')
			.options[0].values.find((v) => v.name === 'fieldType')
			.options.map((o) => o.name.toLowerCase());
		assert.equal(fieldTypes.length, 6);
		for (const type of fieldTypes) assert.ok(section.toLowerCase().includes(type), type);
		assert.ok(section.includes(`\`${DEFAULT_LABELS.link}: https://…\``));
	});
});
