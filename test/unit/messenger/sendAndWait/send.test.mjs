// Messenger → Send and Wait for Response, the operation: what is sent (one message with the signed
// link), how the execution is put to wait, and bad input refused before anything is sent.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Messenger } from '../../../../nodes/Messenger/Messenger.node.ts';
import { DEFAULT_LABELS } from '../../../../nodes/Messenger/sendAndWait/properties.ts';
import { NodeOperationError } from '../../../../tools/nodeShared.mjs';
import {
	approvalParams as approval,
	ASKING_NODE as NODE,
	letWait,
	RESUME_LINK as LINK,
	scriptedNode,
} from '../../../support/unit.mjs';

const node = new Messenger();
const { run } = scriptedNode(node);
const WAIT_INDEFINITELY = new Date('3000-01-01T00:00:00.000Z');
const BROADCAST = '/api/v1/messenger/broadcast/messages';

/** Runs the operation; resolves to what was sent, the wait and the node's output. */
async function send(params, { items = [{ json: { a: 1 } }], type = NODE.type, v1 = false } = {}) {
	let wait;
	let validation = 0;
	const { calls, output } = await run(
		params,
		() => ({ items: [{ id: 'bcm_1', status: 'queued' }] }),
		{
			items,
			node: { ...NODE, type },
			prepare: (context) => {
				wait = letWait(context);
				if (v1) context.setSignatureValidationRequired = () => validation++;
			},
		},
	);
	return { calls, waits: wait.waits, signed: wait.signed, output, validation };
}

async function refused(params, pattern) {
	let requests = 0;
	let waits;
	const sending = run(params, () => (requests++, {}), {
		node: NODE,
		prepare: (context) => {
			waits = letWait(context).waits;
		},
	});
	await assert.rejects(sending, (error) => {
		assert.ok(error instanceof NodeOperationError, String(error));
		assert.match(error.message, pattern);
		return true;
	});
	assert.equal(requests, 0, 'nothing sent');
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
		const { output, calls } = await run(approval({ phone: '600' }), () => ({}), {
			items: [{ json: {} }, { json: {} }, { json: {} }],
			node: NODE,
			continueOnFail: true,
			prepare: (context) => {
				context.getSignedResumeUrl = () => LINK;
				context.putExecutionToWait = async () => assert.fail('no wait');
			},
		});
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
