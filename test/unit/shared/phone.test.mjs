// One phone rule for every field that takes a phone: the same spellings (as WhatsApp shows a number,
// as people type it, as it comes copied with invisible direction marks) give the same E.164
// number in the request of every Messenger operation and in the Message Received trigger's Chats
// list, whose entries are separated by commas, semicolons or new lines (never spaces). A field that
// takes a phone and is missing from the table below fails the last test, and so does a field whose
// description does not say how a phone may be written.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Messenger } from '../../../nodes/Messenger/Messenger.node.ts';
import { MessengerTrigger } from '../../../nodes/Messenger/MessengerTrigger.node.ts';
import { PHONE_FORMAT_HINT } from '../../../nodes/shared/phone.ts';
import { approvalParams, letWait, scriptedNode, scriptedPoll } from '../../support/unit.mjs';

const E164 = '+5215512345678';
const SPELLINGS = [
	E164,
	'+52 1 55 1234-5678',
	'+52 1 55 1234 5678',
	'+52 (1) 55 1234 5678',
	'+52.1.55.1234.5678',
	'0052 1 55 1234 5678',
	'  +52 1 55 1234 5678 ',
	'+52\u00a01\u00a055\u00a01234\u00a05678',
	'\u202a+52 1 55 1234\u20115678\u202c',
];

const { run } = scriptedNode(new Messenger());

/** The requests the Messenger node sends for `params` (a waiting operation gets a link and waits). */
async function messengerCalls(params) {
	const { calls } = await run(params, () => ({ items: [] }), { prepare: letWait });
	return calls;
}

/** The phone sent by the Messenger node for `params` with the phone added, read by `pick(request)`. */
const sentIn = (params, pick) => async (phone) =>
	pick((await messengerCalls({ ...params, phone }))[0]);

/** The phone each field sends, by field: `resource/operation/parameter` or `event/parameter`. */
const FIELDS = {
	'chat/checkExisting/phone': sentIn(
		{ resource: 'chat', operation: 'checkExisting', options: {} },
		(call) => call.qs.phone,
	),
	'contact/create/phone': sentIn(
		{ resource: 'contact', operation: 'create', name: 'Ana', options: {} },
		(call) => call.body.phone,
	),
	'message/sendMediaToPhone/phone': sentIn(
		{
			resource: 'message',
			operation: 'sendMediaToPhone',
			url: 'https://example.com/a.png',
			mediaType: 'image',
			options: {},
		},
		(call) => call.body.phone,
	),
	'message/sendAndWait/phone': sentIn(
		approvalParams({ message: 'Approve?' }),
		(call) => call.body.recipients[0].phone,
	),
	'broadcast/send/recipients/phone': async (phone) =>
		(await broadcastRecipients({ recipientsInput: 'rows', recipients: { recipient: [{ phone }] } }))
			.phone,
	'broadcast/send/recipientsJson': async (phone) => {
		const sent = await Promise.all(
			[[{ phone }], [phone], JSON.stringify([{ phone }])].map((recipientsJson) =>
				broadcastRecipients({ recipientsInput: 'json', recipientsJson }),
			),
		);
		// A recipient object, a plain string and JSON text: one phone each time.
		assert.equal(new Set(sent.map((recipient) => recipient.phone)).size, 1);
		return sent[0].phone;
	},
	'messageReceived/chats': async (phone) => {
		const { calls, context } = scriptedPoll(
			(options) =>
				options.url.endsWith('/check-existing') ? { exists: false, chatId: null } : { items: [] },
			{ params: { event: 'messageReceived', chats: `ch_0001, ${phone}`, messageTypes: [] } },
		);
		await new MessengerTrigger().poll.call(context);
		// Two entries: the chat ID's history is read, the phone is looked up.
		assert.ok(calls.some((call) => call.url.endsWith('/messages/chat/ch_0001')));
		const checks = calls.filter((call) => call.url.endsWith('/check-existing'));
		assert.equal(checks.length, 1);
		return checks[0].qs.phone;
	},
};

async function broadcastRecipients(recipients) {
	const [call] = await messengerCalls({
		resource: 'broadcast',
		operation: 'send',
		channel: 'whatsapp',
		messageContent: 'text',
		text: 'Hi',
		options: {},
		...recipients,
	});
	assert.equal(call.body.recipients.length, 1);
	return call.body.recipients[0];
}

/**
 * Every parameter of a node description with its key (`resource/operation/name`, `event/name`),
 * and the parameters inside collections with the collection's key before their name.
 */
function* parameters(properties, parent = '') {
	for (const property of properties) {
		const show = property.displayOptions?.show ?? {};
		const where =
			parent || [show.event, show.resource, show.operation].flat().filter(Boolean).join('/');
		const key = `${where}/${property.name}`;
		yield { key, property };
		for (const option of property.options ?? []) {
			if (option.values) yield* parameters(option.values, key);
			else if (option.type) yield* parameters([option], key);
		}
	}
}

describe('phone numbers, one rule in every field', () => {
	for (const [field, sent] of Object.entries(FIELDS)) {
		it(`${field}: every spelling sends ${E164}`, async () => {
			for (const spelling of SPELLINGS) {
				assert.equal(await sent(spelling), E164, JSON.stringify(spelling));
			}
		});
	}

	it('the table covers every field that takes a phone, and each says how to write one', () => {
		const takesPhone = [];
		for (const node of [new Messenger(), new MessengerTrigger()]) {
			for (const { key, property } of parameters(node.description.properties)) {
				if (!/\+\d/.test(`${property.placeholder ?? ''}`)) continue;
				takesPhone.push(key);
				assert.ok(
					property.description?.includes(PHONE_FORMAT_HINT),
					`${key}: ${property.description}`,
				);
			}
		}
		assert.deepEqual([...new Set(takesPhone)].sort(), Object.keys(FIELDS).sort());
	});
});
