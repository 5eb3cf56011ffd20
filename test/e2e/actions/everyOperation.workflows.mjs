// The two many-node workflows of test/e2e/actions/everyOperation.e2e.test.mjs: one with all 8
// Voice AI operations, one with all 18 Messenger operations, their records picked from the
// sandbox's seed.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';

import {
	CRED,
	MESSENGER_TYPE,
	VOICE_TYPE,
	buildWorkflow,
	credentialRef,
	fromList,
} from '../../support/everyOperation.mjs';
import { byId } from '../harness.mjs';

/** Ids of the two workflows. */
export const WF = { voice: 'e2eCovVoiceAll1', messenger: 'e2eCovMsgrAll01' };

/** A Voice AI / Messenger node with the full client. */
const voice = (name, parameters, extra = {}) => ({
	name,
	type: VOICE_TYPE,
	typeVersion: 1,
	parameters,
	credentials: credentialRef(CRED.full),
	...extra,
});
const messenger = (name, parameters, extra = {}) => ({
	name,
	type: MESSENGER_TYPE,
	typeVersion: 1,
	parameters,
	credentials: credentialRef(CRED.full),
	...extra,
});

/**
 * Manual Trigger → every Voice AI operation (the sandbox's seed `state` picks the records).
 * `plan` records what each node is expected to do.
 */
export function voiceWorkflow(state, plan) {
	plan.listedCampaign = state.campaigns[4];
	plan.cancelled = state.campaigns.findLast((c) => c.status === 'pending');
	assert.ok(plan.cancelled, 'the seed has a pending campaign');
	plan.trends = { from: '2025-05-01', to: '2025-05-31', granularity: 'week' };
	return buildWorkflow(WF.voice, [
		voice(
			'Get Many Agents',
			{
				resource: 'agent',
				operation: 'getAll',
				returnAll: false,
				limit: 3,
				options: { sort: 'asc' },
			},
			{ to: ['Get Agent'] },
		),
		// Once per item, the id from the previous node through an expression.
		voice('Get Agent', { resource: 'agent', operation: 'get', agentId: byId('={{ $json.id }}') }),
		voice(
			'Get Completed Campaigns',
			{
				resource: 'campaign',
				operation: 'getAll',
				returnAll: true,
				filters: { status: 'completed' },
			},
			{ to: ['Get Campaign Data'] },
		),
		voice(
			'Get Campaign Data',
			{
				resource: 'campaign',
				operation: 'getData',
				campaignId: byId('={{ $json.id }}'),
				returnAll: true,
				options: {},
			},
			{ executeOnce: true },
		),
		// The Resource Locator's "From List" mode, as the editor saves a picked campaign.
		voice('Get Campaign', {
			resource: 'campaign',
			operation: 'get',
			campaignId: fromList(plan.listedCampaign.id, plan.listedCampaign.name),
		}),
		voice('Cancel Campaign', {
			resource: 'campaign',
			operation: 'cancel',
			campaignId: byId(plan.cancelled.id),
		}),
		voice('Get Balance', { resource: 'billing', operation: 'getBalance' }),
		voice('Get Call Trends', {
			resource: 'report',
			operation: 'getCallTrends',
			...plan.trends,
			options: {},
		}),
	]);
}

/**
 * Manual Trigger → every Messenger operation; `suffix` makes the new records unique to the run.
 * `plan` records what each node is expected to do.
 */
export function messengerWorkflow(state, plan, suffix) {
	const chats = state.chats;
	plan.checkedChat = chats[1]; // open and marked important in the seed
	assert.equal(plan.checkedChat.status, 'open');
	assert.equal(plan.checkedChat.important, true);
	plan.closedChat = chats.find((c) => c.status === 'closed');
	assert.ok(plan.closedChat, 'the seed has a closed chat');
	plan.mediaChat = chats[3];
	plan.locationChat = chats[0];
	plan.fileChat = chats[2];
	// A seeded media message: its file is served by the sandbox (token required).
	plan.mediaMessage = state.messages.find(
		(m) => m.type === 'document' && typeof m.content === 'object' && m.content.url,
	);
	assert.ok(plan.mediaMessage, 'the seed has a document message');
	let reacted = state.messages.find((m) => m.reaction !== null && m.chatId !== plan.checkedChat.id);
	if (!reacted) {
		reacted = state.messages.find((m) => m.chatId !== plan.checkedChat.id);
		reacted.reaction = '👍';
	}
	plan.reacted = reacted;
	plan.sendingNumber = state.whatsappNumbers[1];
	let phoneDigits;
	do phoneDigits = `6${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
	while (chats.some((c) => c.phone === `+34${phoneDigits}`));
	plan.newPhone = `+34${phoneDigits}`;
	plan.file = {
		bytes: Buffer.concat([
			Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
			randomBytes(3000),
		]),
		fileName: `coverage-${suffix}.png`,
		mimeType: 'image/png',
	};
	const digits = () => String(100 + Math.floor(Math.random() * 900));
	let contactPhone;
	do contactPhone = `+34 699 ${digits()} ${digits()}`;
	while (state.contacts.some((c) => c.phone === contactPhone.replaceAll(' ', '')));
	plan.contact = {
		name: `E2E Coverage ${suffix}`,
		phone: contactPhone,
		email: `coverage-${suffix}@example.com`,
	};
	plan.contact.normalized = plan.contact.phone.replaceAll(' ', '');
	plan.broadcastEmails = [`ana-${suffix}@example.com`, `ben-${suffix}@example.com`];

	return buildWorkflow(WF.messenger, [
		messenger('Get WhatsApp Numbers', {
			resource: 'whatsappNumber',
			operation: 'getAll',
			returnAll: true,
			options: {},
		}),
		messenger(
			'Check Existing',
			{
				resource: 'chat',
				operation: 'checkExisting',
				// Spaces and dashes: the node sends E.164.
				phone: plan.checkedChat.phone.replace(/^(\+\d{2})(\d{3})(\d+)$/, '$1 $2-$3'),
				options: {},
			},
			{ to: ['Get Messages'] },
		),
		messenger(
			'Get Messages',
			{
				resource: 'chat',
				operation: 'getMessages',
				chatId: '={{ $json.chatId }}',
				returnAll: true,
				options: { sort: 'asc' },
			},
			{ to: ['Mark Important'] },
		),
		messenger(
			'Mark Important',
			{
				resource: 'chat',
				operation: 'markImportant',
				chatId: "={{ $('Check Existing').first().json.chatId }}",
				important: false,
				options: {},
			},
			{ executeOnce: true },
		),
		messenger('Reopen Chat', {
			resource: 'chat',
			operation: 'reopen',
			chatId: plan.closedChat.id,
		}),
		messenger('Download Media', {
			resource: 'message',
			operation: 'downloadMedia',
			source: 'messageId',
			messageId: plan.mediaMessage.id,
			binaryPropertyName: 'data',
			options: {},
		}),
		messenger(
			'Send Media by URL',
			{
				resource: 'message',
				operation: 'sendMedia',
				chatId: plan.mediaChat.id,
				url: 'https://example.com/brochure.pdf',
				mediaType: 'document',
				options: { caption: 'The brochure', fileName: 'brochure.pdf' },
			},
			{ to: ['Get Message'] },
		),
		messenger('Get Message', {
			resource: 'message',
			operation: 'get',
			messageId: '={{ $json.id }}',
		}),
		messenger('Send Media to Phone', {
			resource: 'message',
			operation: 'sendMediaToPhone',
			phone: plan.newPhone,
			url: 'https://example.com/photo.jpg',
			mediaType: 'image',
			options: { caption: 'A photo', whatsappNumberId: plan.sendingNumber.id },
		}),
		messenger('Send Location', {
			resource: 'message',
			operation: 'sendLocation',
			chatId: plan.locationChat.id,
			latitude: 40.4168,
			longitude: -3.7038,
			options: { name: 'Office', address: 'Puerta del Sol, Madrid' },
		}),
		messenger('Remove Reaction', {
			resource: 'message',
			operation: 'removeReaction',
			messageId: plan.reacted.id,
		}),
		{
			name: 'Edit Fields',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			parameters: {
				mode: 'manual',
				assignments: {
					assignments: [
						{
							id: 'fileBase64',
							name: 'fileBase64',
							value: plan.file.bytes.toString('base64'),
							type: 'string',
						},
					],
				},
				options: {},
			},
			to: ['Convert to File'],
		},
		{
			name: 'Convert to File',
			type: 'n8n-nodes-base.convertToFile',
			typeVersion: 1.1,
			parameters: {
				operation: 'toBinary',
				sourceProperty: 'fileBase64',
				binaryPropertyName: 'data',
				options: { fileName: plan.file.fileName, mimeType: plan.file.mimeType },
			},
			to: ['Send Media File'],
		},
		messenger('Send Media File', {
			resource: 'message',
			operation: 'sendMediaFile',
			chatId: plan.fileChat.id,
			binaryPropertyName: 'data',
			options: { caption: 'The file' },
		}),
		messenger(
			'Create Contact',
			{
				resource: 'contact',
				operation: 'create',
				name: plan.contact.name,
				phone: plan.contact.phone,
				options: { email: plan.contact.email, attributes: '{"plan": "silver"}' },
			},
			{ to: ['Update Attribute'] },
		),
		messenger(
			'Update Attribute',
			{
				resource: 'contact',
				operation: 'updateAttribute',
				contactId: byId('={{ $json.id }}'),
				key: 'score',
				valueType: 'json',
				value: '{"level": 2}',
				options: {},
			},
			{ to: ['Replace Attributes'] },
		),
		messenger(
			'Replace Attributes',
			{
				resource: 'contact',
				operation: 'replaceAttributes',
				// "From List" mode with a value mapped from the previous node.
				contactId: fromList('={{ $json.id }}'),
				attributes: '{"city": "Sevilla", "vip": true}',
				options: {},
			},
			{ to: ['Get Contact'] },
		),
		messenger(
			'Get Contact',
			{
				resource: 'contact',
				operation: 'get',
				contactId: byId("={{ $('Create Contact').item.json.id }}"),
			},
			{ to: ['Search Contacts'] },
		),
		messenger('Search Contacts', {
			resource: 'contact',
			operation: 'search',
			customer: `COVERAGE ${suffix.toUpperCase()}`,
			returnAll: true,
			options: {},
		}),
		messenger(
			'Send Broadcast',
			{
				resource: 'broadcast',
				operation: 'send',
				channel: 'email',
				recipientsInput: 'rows',
				recipients: {
					recipient: [
						{ email: plan.broadcastEmails[0], variables: '{"name": "Ana"}' },
						{ email: plan.broadcastEmails[1], variables: '{}' },
					],
				},
				messageContent: 'template',
				templateId: 'order_confirmation',
				options: {},
			},
			{ to: ['Get Broadcast Status'] },
		),
		messenger('Get Broadcast Status', {
			resource: 'broadcast',
			operation: 'getStatus',
			messageIds: '={{ $json.id }}',
		}),
	]);
}
