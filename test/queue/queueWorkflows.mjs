// What the queue-mode cluster runs: the API clients each part of the suite uses (each its own,
// so the sandbox log tells them apart), and the workflows published on the main instance: two
// webhook workflows the workers run, and the two polling triggers the main instance runs; and the
// Messenger Live Trigger's workflow, which its part creates and activates itself (liveTrigger.mjs).
import { randomUUID } from 'node:crypto';

import { DEMO_CLIENTS } from '../../sandbox/server.mjs';
import { PACKAGE_NAME } from '../../tools/n8n.mjs';
import { pollingWorkflow } from '../../tools/workflows.mjs';

/** The fan-out and token tests: a client with every scope. */
export const FANOUT = {
	credential: { id: 'queueCredFanOut', name: 'Queue fan-out (full client)' },
	client: DEMO_CLIENTS.full,
	// The sandbox starts with no request limit (cluster.mjs); the budget is raised to match.
	requestsPerMinute: 1000,
};
/** Default settings: no Requests per Minute set, so each worker paces to the API's 100. */
export const RATE = {
	credential: { id: 'queueCredRate01', name: 'Queue rate limit (messenger client)' },
	client: DEMO_CLIENTS.messengerOnly,
};
export const TRIGGER = {
	credential: { id: 'queueCredTrigge', name: 'Queue trigger (voice client)' },
	client: DEMO_CLIENTS.voiceOnly,
	requestsPerMinute: 100,
};
export const MESSENGER_TRIGGER = {
	credential: { id: 'queueCredMsgTrg', name: 'Queue messenger trigger (messenger client)' },
	client: DEMO_CLIENTS.messengerOnly,
	requestsPerMinute: 100,
};

/**
 * Call Finished: its own sandbox (cluster.mjs callSandbox), so that its polls, which list the
 * campaigns in progress as the Campaign Status Changed trigger does, are not counted as that
 * trigger's, and its token is not one of the other clients'.
 */
export const CALLS = {
	credential: { id: 'queueCredCalls1', name: 'Queue Call Finished (voice client, own sandbox)' },
	client: DEMO_CLIENTS.voiceOnly,
};

/**
 * The Messenger Live Trigger: its own sandbox (liveTrigger.mjs), so that its reads, up to the
 * credential's Live Trigger Requests per Minute (60 at the defaults kept here), count neither in
 * the shared sandbox's window nor against its token endpoint.
 */
export const LIVE = {
	credential: { name: 'Queue live trigger (messenger client, own sandbox)' },
	client: DEMO_CLIENTS.messengerOnly,
};

export const FANOUT_WORKFLOW = 'queueFanOut0001';
export const RATE_WORKFLOW = 'queueRateLimit1';
export const TRIGGER_WORKFLOW = 'queueTrigger001';
export const TRIGGER_NODE = 'Voice AI Trigger';
export const MESSENGER_TRIGGER_WORKFLOW = 'queueMsgTrigger';
export const MESSENGER_TRIGGER_NODE = 'Messenger Trigger';
export const CALLS_WORKFLOW = 'queueCallsDone1';
export const LIVE_WORKFLOW = 'queueLiveTrig01';

const credentialRef = ({ credential }) => ({
	voiceMessagingApi: { id: credential.id, name: credential.name },
});

function webhookNode(name, path, position) {
	return {
		id: randomUUID(),
		webhookId: randomUUID(),
		name,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position,
		parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', options: {} },
	};
}

/** A Send Location node: the chat and a name that identifies the webhook call come from its body. */
function sendLocationNode(credentials, position) {
	return {
		id: randomUUID(),
		name: 'Send Location',
		type: `${PACKAGE_NAME}.messenger`,
		typeVersion: 1,
		position,
		parameters: {
			resource: 'message',
			operation: 'sendLocation',
			chatId: '={{ $json.body.chatId }}',
			latitude: 40.4168,
			longitude: -3.7038,
			options: { name: '={{ $json.body.name }}' },
		},
		credentials,
	};
}

/** Two webhooks, one workflow: POST /webhook/queue-voice gets an agent, /webhook/queue-message sends a location. */
export const fanOutWorkflow = () => ({
	id: FANOUT_WORKFLOW,
	name: 'Queue fan-out',
	active: false,
	settings: { executionOrder: 'v1' },
	nodes: [
		webhookNode('Voice Webhook', 'queue-voice', [0, 0]),
		{
			id: randomUUID(),
			name: 'Get Agent',
			type: `${PACKAGE_NAME}.voiceAi`,
			typeVersion: 1,
			position: [220, 0],
			parameters: {
				resource: 'agent',
				operation: 'get',
				agentId: { __rl: true, mode: 'id', value: '={{ $json.body.agentId }}' },
			},
			credentials: credentialRef(FANOUT),
		},
		webhookNode('Message Webhook', 'queue-message', [0, 200]),
		sendLocationNode(credentialRef(FANOUT), [220, 200]),
	],
	connections: {
		'Voice Webhook': { main: [[{ node: 'Get Agent', type: 'main', index: 0 }]] },
		'Message Webhook': { main: [[{ node: 'Send Location', type: 'main', index: 0 }]] },
	},
	pinData: {},
});

/** POST /webhook/queue-rate sends a location with the rate-limit test's client. */
export const rateWorkflow = () => ({
	id: RATE_WORKFLOW,
	name: 'Queue rate limit',
	active: false,
	settings: { executionOrder: 'v1' },
	nodes: [
		webhookNode('Rate Webhook', 'queue-rate', [0, 0]),
		sendLocationNode(credentialRef(RATE), [220, 0]),
	],
	connections: { 'Rate Webhook': { main: [[{ node: 'Send Location', type: 'main', index: 0 }]] } },
	pinData: {},
});

/**
 * The polling triggers, every minute at `cronSecond`: campaign status, the broadcast status of
 * `message`, and Call Finished (Every Attempt) on `callCampaign` of the calls' own sandbox.
 */
export const triggerWorkflows = (cronSecond, message, callCampaign) => [
	pollingWorkflow({
		id: TRIGGER_WORKFLOW,
		name: 'Queue campaign status trigger',
		triggerName: TRIGGER_NODE,
		type: `${PACKAGE_NAME}.voiceAiTrigger`,
		parameters: {
			event: 'campaignStatusChanged',
			campaignScope: 'all',
			statuses: ['completed', 'failed', 'cancelled'],
		},
		credential: TRIGGER.credential,
		cronSecond,
	}),
	pollingWorkflow({
		id: MESSENGER_TRIGGER_WORKFLOW,
		name: 'Queue broadcast status trigger',
		triggerName: MESSENGER_TRIGGER_NODE,
		type: `${PACKAGE_NAME}.messengerTrigger`,
		parameters: { event: 'broadcastStatusChanged', messageIds: message.id, statuses: [] },
		credential: MESSENGER_TRIGGER.credential,
		cronSecond,
	}),
	pollingWorkflow({
		id: CALLS_WORKFLOW,
		name: 'Queue Call Finished trigger',
		triggerName: TRIGGER_NODE,
		type: `${PACKAGE_NAME}.voiceAiTrigger`,
		parameters: { event: 'callFinished', campaignScope: 'chosen', campaignIds: [callCampaign.id] },
		credential: CALLS.credential,
		cronSecond,
	}),
];
