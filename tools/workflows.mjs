// Workflow and credential records for n8n (import:workflow, import:credentials or its REST API):
// a Manual Trigger chain, a polling workflow, one Voice AI node, this package's credential pointing
// at a sandbox, n8n's OpenAI credential pointing at the sandbox's chat model, and the chatbot that
// answers in the chat from the Messenger Live Trigger.
import { randomUUID } from 'node:crypto';

import { CHAT_MODEL } from '../sandbox/chatModel.mjs';
import { PACKAGE_NAME } from './n8n.mjs';

export const NODE_TYPE = `${PACKAGE_NAME}.voiceAi`;

/** A Resource Locator parameter (a campaign, a contact…) in its "By ID" mode. @param {string} value */
export const byId = (value) => ({ __rl: true, mode: 'id', value });

/**
 * A new Manual Trigger node (the start `n8n execute` needs), with `extra` (id, position) added.
 * @param {Record<string, unknown>} [extra]
 */
export function manualTriggerNode(extra = {}) {
	return {
		name: 'Manual Trigger',
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		parameters: {},
		...extra,
	};
}

/**
 * A workflow to run with `execute`: Manual Trigger → each node in turn, ids and positions added.
 * @param {string} id @param {Array<Record<string, unknown>>} nodes each with at least a `name`
 */
export function chainWorkflow(id, nodes) {
	const all = [manualTriggerNode(), ...nodes];
	const connections = {};
	for (let i = 0; i < all.length - 1; i++) {
		connections[all[i].name] = { main: [[{ node: all[i + 1].name, type: 'main', index: 0 }]] };
	}
	return executableWorkflow(
		id,
		connections,
		all.map((node, i) => ({ id: `${id}-${i}`, position: [i * 220, 0], ...node })),
	);
}

/**
 * The record `import:workflow` takes for a workflow to run with `execute`: inactive, execution
 * order v1 (the order n8n gives new workflows).
 * @param {string} id @param {Record<string, unknown>} connections @param {Array<Record<string, unknown>>} nodes
 */
export function executableWorkflow(id, connections, nodes) {
	return {
		id,
		name: `e2e ${id}`,
		active: false,
		settings: { executionOrder: 'v1' },
		connections,
		nodes,
		pinData: {},
	};
}

/**
 * n8n's own Crypto node hashing a binary field: each item gets `sha256` (hex) of the bytes the
 * workflow holds in `binaryPropertyName`, read from n8n's binary store (what a later node sees).
 * An item without that field is passed on with its error (Continue On Fail).
 * @param {string} name @param {string} [binaryPropertyName]
 */
export function sha256Node(name, binaryPropertyName = 'data') {
	return {
		name,
		type: 'n8n-nodes-base.crypto',
		typeVersion: 1,
		parameters: {
			action: 'hash',
			type: 'SHA256',
			binaryData: true,
			binaryPropertyName,
			dataPropertyName: 'sha256',
			encoding: 'hex',
		},
		onError: 'continueRegularOutput',
	};
}

/** The No-Op node that follows the trigger of a polling workflow. */
export const POLL_NOOP_NODE = 'No-Op';

/**
 * An activatable workflow: a polling trigger of this package (`type`, named `triggerName`) that
 * polls every minute at `cronSecond`, then a No-Op whose run data shows what the poll emitted.
 * @param {{ id: string, name: string, triggerName: string, type: string, parameters: Record<string, unknown>, credential: { id: string, name: string }, cronSecond: number }} spec
 */
export function pollingWorkflow({
	id,
	name,
	triggerName,
	type,
	parameters,
	credential,
	cronSecond,
}) {
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		connections: { [triggerName]: { main: [[{ node: POLL_NOOP_NODE, type: 'main', index: 0 }]] } },
		nodes: [
			{
				id: `${id}-trigger`,
				name: triggerName,
				type,
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					...parameters,
					pollTimes: { item: [{ mode: 'custom', cronExpression: `${cronSecond} * * * * *` }] },
				},
				credentials: { voiceMessagingApi: { id: credential.id, name: credential.name } },
			},
			{
				id: `${id}-noop`,
				name: POLL_NOOP_NODE,
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [220, 0],
				parameters: {},
			},
		],
		pinData: {},
	};
}

/**
 * A workflow: Manual Trigger → one Voice AI node.
 * @param {{ id: string, name?: string, parameters: Record<string, unknown>, credential: { id: string, name: string }, nodeSettings?: Record<string, unknown> }} spec
 */
export function voiceAiWorkflow({ id, name, parameters, credential, nodeSettings = {} }) {
	return {
		id,
		name: name ?? `e2e ${id}`,
		active: false,
		settings: { executionOrder: 'v1' },
		connections: {
			'Manual Trigger': { main: [[{ node: 'Voice AI', type: 'main', index: 0 }]] },
		},
		nodes: [
			manualTriggerNode({ id: `${id}-trigger`, position: [0, 0] }),
			{
				id: `${id}-voice`,
				name: 'Voice AI',
				type: NODE_TYPE,
				typeVersion: 1,
				position: [220, 0],
				parameters,
				credentials: { voiceMessagingApi: { id: credential.id, name: credential.name } },
				...nodeSettings,
			},
		],
		pinData: {},
	};
}

/**
 * A record for `importCredentials` (or the REST API): this package's credential `credential`
 * ({ id, name }) pointing at `sandbox` as `client`; `data` adds or overrides fields (a wrong
 * secret, requestsPerMinute).
 * @param {{ id?: string, name: string }} credential
 * @param {{ url: string }} sandbox
 * @param {{ clientId: string, clientSecret: string }} client
 * @param {Record<string, unknown>} [data]
 */
export function sandboxCredential(credential, sandbox, client, data = {}) {
	return {
		...credential,
		type: 'voiceMessagingApi',
		data: {
			baseUrl: sandbox.url,
			clientId: client.clientId,
			clientSecret: client.clientSecret,
			...data,
		},
	};
}

/**
 * A record for `importCredentials`: n8n's OpenAI credential (`openAiApi`) pointing at the chat
 * model of `sandbox` (sandbox/chatModel.mjs), as the example workflows' model uses it.
 * @param {{ id?: string, name: string }} credential
 * @param {{ url: string }} sandbox
 */
export function sandboxModelCredential(credential, sandbox) {
	return {
		...credential,
		type: 'openAiApi',
		data: { apiKey: CHAT_MODEL.apiKey, url: `${sandbox.url}/v1`, header: false },
	};
}

/**
 * The bearer token MCP clients send to examples/mcp-server.json under `npm start` (a demo value,
 * printed in its banner, as the sandbox's demo clients are).
 */
export const DEMO_MCP_TOKEN = 'voice-messaging-demo-mcp-token';

/**
 * A record for `importCredentials` (or the REST API): n8n's Bearer Auth credential
 * (`httpBearerAuth`), which the MCP Server Trigger checks each request's `Authorization` against.
 * @param {{ id?: string, name: string }} credential
 * @param {string} token
 */
export function mcpBearerCredential(credential, token) {
	return { ...credential, type: 'httpBearerAuth', data: { token } };
}

/** The chatbot's nodes: the Messenger Live Trigger, and the answer in the chat. */
export const LIVE_TRIGGER_NODE = 'Customer wrote';
export const LIVE_ANSWER_NODE = 'Answer in the chat';
/** The caption of the answer to a message: names the message, so that each answer is counted. */
export const answerCaption = (messageId) => `Answer to ${messageId}`;

/**
 * A chatbot: the Messenger Live Trigger watching `chatIds` (Message Received from the customer),
 * then Send Media by URL answering in the chat of each message (its caption names the message:
 * answerCaption), both on `credential` (its id as n8n gave it). Inactive; `id` when given.
 * @param {{ id?: string, name: string, chatIds: string[], credential: { id: string, name: string } }} spec
 */
export function answeringLiveWorkflow({ id, name, chatIds, credential }) {
	const credentials = { voiceMessagingApi: { id: credential.id, name: credential.name } };
	return {
		...(id ? { id } : {}),
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: randomUUID(),
				name: LIVE_TRIGGER_NODE,
				type: `${PACKAGE_NAME}.messengerLiveTrigger`,
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					event: 'messageReceived',
					chats: chatIds.join(', '),
					direction: 'inbound',
					messageTypes: [],
				},
				credentials,
			},
			{
				id: randomUUID(),
				name: LIVE_ANSWER_NODE,
				type: `${PACKAGE_NAME}.messenger`,
				typeVersion: 1,
				position: [240, 0],
				parameters: {
					resource: 'message',
					operation: 'sendMedia',
					chatId: '={{ $json.chatId }}',
					url: 'https://example.com/docs/price-list.pdf',
					mediaType: 'document',
					options: { caption: `=${answerCaption('{{ $json.messageId }}')}` },
				},
				credentials,
			},
		],
		connections: {
			[LIVE_TRIGGER_NODE]: { main: [[{ node: LIVE_ANSWER_NODE, type: 'main', index: 0 }]] },
		},
		pinData: {},
	};
}
