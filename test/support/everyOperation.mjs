// What the "every operation and trigger event" suites share (test/e2e/actions/everyOperation,
// test/e2e/triggers/fetchTestEvent and test/e2e/triggers/activatedPolls): the node types, one
// credential per client, a workflow builder for many-node workflows and trigger workflows, and
// the broadcast the Messenger Triggers watch.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';

import { DEMO_CLIENTS } from '../../sandbox/server.mjs';
import { PACKAGE_NAME } from '../../tools/n8n.mjs';
import {
	executableWorkflow,
	manualTriggerNode,
	sandboxCredential,
} from '../../tools/workflows.mjs';
import { apiCall } from './sandboxApi.mjs';

export const VOICE_TYPE = `${PACKAGE_NAME}.voiceAi`;
export const MESSENGER_TYPE = `${PACKAGE_NAME}.messenger`;
export const VOICE_TRIGGER_TYPE = `${PACKAGE_NAME}.voiceAiTrigger`;
export const MESSENGER_TRIGGER_TYPE = `${PACKAGE_NAME}.messengerTrigger`;

/** Credentials: one client per use, so the sandbox log tells the requests apart by client id. */
export const CRED = {
	full: { id: 'e2eCovCredFull1', name: 'Coverage full client (e2e)', client: DEMO_CLIENTS.full },
	messenger: {
		id: 'e2eCovCredMsgr1',
		name: 'Coverage messenger client (e2e)',
		client: DEMO_CLIENTS.messengerOnly,
	},
	voice: {
		id: 'e2eCovCredVoic1',
		name: 'Coverage voice client (e2e)',
		client: DEMO_CLIENTS.voiceOnly,
	},
};

/** The credential records of CRED, pointing at `sandbox`. */
export const credentialsFor = (sandbox) =>
	Object.values(CRED).map(({ client, ...cred }) => sandboxCredential(cred, sandbox, client));

export const credentialRef = (cred) => ({ voiceMessagingApi: { id: cred.id, name: cred.name } });

/** A value as n8n returns it in run data (dates as strings, no undefined fields). */
export const plain = (value) => JSON.parse(JSON.stringify(value));
/** A few random hex characters that make names and addresses unique to one run. */
export const runSuffix = () => randomBytes(3).toString('hex');

/** A Resource Locator value in "From List" mode (as the editor saves a picked record). */
export const fromList = (value, cachedResultName) => ({
	__rl: true,
	mode: 'list',
	value,
	...(cachedResultName ? { cachedResultName } : {}),
});

/**
 * A workflow from nodes (each may name the nodes it feeds in `to`); nodes without a parent are fed
 * by the Manual Trigger when `manual` is set. Branches are laid out top to bottom in the given
 * order, which is the order n8n (execution order v1) runs them in.
 */
export function buildWorkflow(id, nodes, { manual = true } = {}) {
	const all = manual ? [manualTriggerNode(), ...nodes] : nodes;
	const hasParent = new Set(all.flatMap((node) => node.to ?? []));
	if (manual) {
		all[0].to = all.slice(1).flatMap((node) => (hasParent.has(node.name) ? [] : [node.name]));
	}
	const connections = {};
	for (const node of all) {
		if (!node.to?.length) continue;
		connections[node.name] = {
			main: [node.to.map((target) => ({ node: target, type: 'main', index: 0 }))],
		};
	}
	// Position: depth along x, one row per branch, so v1 runs the branches in the order given.
	const place = new Map();
	const visit = (name, depth, row) => {
		if (place.has(name)) return;
		place.set(name, [depth * 240, row * 160]);
		for (const child of all.find((n) => n.name === name)?.to ?? []) visit(child, depth + 1, row);
	};
	let rows = 0;
	for (const node of all) {
		if (hasParent.has(node.name)) continue;
		if (manual && node === all[0]) {
			place.set(node.name, [0, 0]);
			for (const child of node.to) visit(child, 1, rows++);
		} else visit(node.name, 0, rows++);
	}
	return executableWorkflow(
		id,
		connections,
		all.map(({ to, ...node }, i) => ({
			id: `${id}-${i}`,
			position: place.get(node.name) ?? [0, 0],
			...node,
		})),
	);
}

/** A trigger workflow: the trigger, and for an activated one a No-Op after it and a cron. */
export function triggerWorkflow(id, { type, name, parameters, cred, cronSecond }) {
	const active = cronSecond !== undefined;
	const nodes = [
		{
			name,
			type,
			typeVersion: 1,
			parameters: active
				? {
						...parameters,
						pollTimes: { item: [{ mode: 'custom', cronExpression: `${cronSecond} * * * * *` }] },
					}
				: parameters,
			credentials: credentialRef(cred),
			...(active ? { to: ['No-Op'] } : {}),
		},
	];
	if (active) {
		nodes.push({ name: 'No-Op', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} });
	}
	return buildWorkflow(id, nodes, { manual: false });
}

/**
 * Sends the broadcast the Messenger Triggers watch (three WhatsApp messages, all queued; a phone
 * ending in 0000 fails at the first step) and resolves to the ids of its messages.
 */
export async function sendWatchedBroadcast(sandbox) {
	const sent = await apiCall(
		sandbox,
		DEMO_CLIENTS.full,
		'POST',
		'/api/v1/messenger/broadcast/messages',
		{
			channel: 'whatsapp',
			recipients: [{ phone: '+34600111222' }, { phone: '+34600333444' }, { phone: '+34600990000' }],
			templateId: 'order_update',
		},
	);
	assert.deepEqual(
		sent.items.map((m) => m.status),
		['queued', 'queued', 'queued'],
	);
	return sent.items.map((m) => m.id);
}

/** The Balance Low threshold (credit) of the activated workflow, and the credit it drops to. */
export const BALANCE_THRESHOLD = 100;
export const LOW_CREDIT = 42.5;

/**
 * The change the activated triggers must see, made to the triggers' sandbox: every watched message
 * moves one step (two to sent, the 0000 one to failed), and the credit drops below the threshold.
 */
export function changeWatchedState(sandbox, watchedIds) {
	sandbox.advance();
	sandbox.state.balance.credit = LOW_CREDIT;
	const statuses = watchedIds.map(
		(id) => sandbox.state.broadcastMessages.find((m) => m.id === id)?.status,
	);
	assert.deepEqual(statuses, ['sent', 'sent', 'failed']);
}
