// Messenger → Send and Wait for Response in a running n8n, for the humanReview/ suites: the
// workflows (a Webhook starts them; they wait at the node), the suite's sandbox and its handle on
// the run's n8n (test/support/n8n.mjs), and what a person's phone does with the message: open the
// signed link, post the answer. Each suite file has its own sandbox, credentials and workflow IDs
// (and so webhook paths).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before } from 'node:test';

import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import {
	PACKAGE_NAME,
	sandboxCredential,
	sandboxModelCredential,
	useSandboxAndN8n,
	waitFor,
} from '../harness.mjs';

export const ASK = 'Ask a person';
export const AFTER = 'After the answer';
export const PHONE = '+34600111222';

/** The Send and Wait parameters of each kind of answer the suites ask for. */
export const RESPONSES = {
	approval: {
		responseType: 'approval',
		approvalOptions: { values: { approvalType: 'double', approveLabel: 'Yes, cancel' } },
	},
	freeText: { responseType: 'freeText' },
	customForm: {
		responseType: 'customForm',
		formFields: {
			values: [
				{
					fieldLabel: 'Slot',
					fieldType: 'dropdown',
					requiredField: true,
					fieldOptions: { values: [{ option: 'AM' }, { option: 'PM' }] },
				},
				{ fieldLabel: 'Guests', fieldType: 'number' },
				{ fieldLabel: 'Notes', fieldType: 'textarea' },
			],
		},
	},
	/** A WhatsApp template from the sending number `whatsappNumberId`. */
	template: (whatsappNumberId) => ({
		responseType: 'approval',
		sendAs: 'template',
		templateId: 'approval_request',
		options: { whatsappNumberId },
	}),
	limit: {
		responseType: 'approval',
		options: {
			limitWaitTime: {
				values: { limitType: 'afterTimeInterval', resumeAmount: 0.1, resumeUnit: 'minutes' },
			},
		},
	},
};

/** A Webhook node (POST /webhook/<path>, answers at once) that starts a workflow. */
export function webhookNode(path) {
	return {
		id: randomUUID(),
		webhookId: randomUUID(),
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
	};
}

/**
 * Webhook → Messenger Send and Wait (with `parameters`) → No-Op, the webhook's path its `id`.
 * @param {string} id @param {Record<string, unknown>} parameters @param {{ id: string, name: string }} credential
 */
export function waitingWorkflow(id, parameters, credential) {
	return {
		id,
		name: `e2e ${id}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			webhookNode(id),
			{
				id: randomUUID(),
				name: ASK,
				type: `${PACKAGE_NAME}.messenger`,
				typeVersion: 1,
				position: [220, 0],
				parameters: {
					resource: 'message',
					operation: 'sendAndWait',
					channel: 'whatsapp',
					phone: PHONE,
					message: '=Cancel campaign {{ $json.body.campaign }}?',
					...parameters,
				},
				credentials: { voiceMessagingApi: credential },
			},
			{
				id: randomUUID(),
				name: AFTER,
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [440, 0],
				parameters: {},
			},
		],
		connections: {
			Webhook: { main: [[{ node: ASK, type: 'main', index: 0 }]] },
			[ASK]: { main: [[{ node: AFTER, type: 'main', index: 0 }]] },
		},
		pinData: {},
	};
}

/**
 * Registers the hooks of a Send and Wait suite on the run's n8n of `version`
 * (test/support/n8n.mjs): a sandbox, the suite's credentials (`credential` for the sandbox's full
 * client, `modelCredential` for its chat model) and the workflows `workflows(sandbox)` gives,
 * activated. Resolves the returned object's fields in `before` and gives the steps of a person
 * answering.
 * @param {{ version: string, credential: { id: string, name: string }, modelCredential?: { id: string, name: string }, workflows: (sandbox: any) => any[] }} options
 */
export function useSendAndWait({ version, credential, modelCredential, workflows }) {
	const e2e = useSandboxAndN8n({
		version,
		credentials: (sandbox) => [
			sandboxCredential(credential, sandbox, DEMO_CLIENTS.full),
			...(modelCredential ? [sandboxModelCredential(modelCredential, sandbox)] : []),
		],
	});
	before(async () => {
		for (const workflow of workflows(e2e.sandbox))
			await e2e.n8n.importWorkflow({ ...workflow, active: true });
	});
	/** `sandbox` and `n8n` (useSandboxAndN8n) and the steps below. */
	const suite = Object.assign(e2e, {
		diagnostics,
		startWaiting,
		statusOf,
		answer,
		resumedWith,
	});

	function diagnostics() {
		const sent = JSON.stringify(suite.sandbox.state.sent.slice(-3));
		return `\nsandbox sent: ${sent}\nn8n output:\n${suite.n8n?.output().slice(-3000)}`;
	}

	/**
	 * Starts `workflow` through its webhook; resolves once the execution waits, with its ID and the
	 * one message the sandbox got for it (its text holds the link).
	 */
	async function startWaiting(workflow, campaign) {
		const { sandbox, n8n } = suite;
		const sentBefore = sandbox.state.sent.length;
		const known = new Set((await n8n.executionsOf(workflow.id)).map((e) => e.id));
		await waitFor(
			async () => {
				const response = await fetch(`${n8n.baseUrl}/webhook/${workflow.id}`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ campaign }),
				});
				await response.arrayBuffer();
				// Published workflows' webhooks answer 404 for a few seconds after n8n is ready.
				return response.status === 200;
			},
			{ timeoutMs: 30_000, intervalMs: 1000, describe: () => `webhook of ${workflow.id}` },
		);
		const execution = await waitFor(
			async () =>
				(await n8n.executionsOf(workflow.id)).find(
					(e) => !known.has(e.id) && e.status === 'waiting',
				),
			{
				timeoutMs: 30_000,
				describe: () => `no waiting execution of ${workflow.id}${diagnostics()}`,
			},
		);
		const sent = sandbox.state.sent.slice(sentBefore);
		assert.equal(sent.length, 1, `one message sent: ${JSON.stringify(sent)}`);
		assert.equal(sent[0].channel, 'whatsapp');
		assert.equal(sent[0].recipient, PHONE);
		const { text, templateId, variables } = sent[0];
		let link;
		if (templateId !== null) {
			// A template: the link and the message are its variables, there is no text.
			assert.equal(text, null);
			assert.equal(variables.message, `Cancel campaign ${campaign}?`);
			link = variables.link;
		} else {
			assert.ok(text.startsWith(`Cancel campaign ${campaign}?\n\nRespond: `), text);
			link = text.slice(text.lastIndexOf(' ') + 1);
		}
		assert.ok(
			link.startsWith(`${n8n.baseUrl}/webhook-waiting/${execution.id}/`),
			`${link} is the waiting webhook of execution ${execution.id}`,
		);
		return { id: execution.id, link, sent: sent[0] };
	}

	async function statusOf(id) {
		return (await suite.n8n.runDataOf(id)).execution.status;
	}

	/** Posts `fields` to the link as the page's form does (multipart/form-data). */
	async function answer(link, fields) {
		const body = new FormData();
		for (const [name, value] of Object.entries(fields)) body.append(name, value);
		const response = await fetch(link, { method: 'POST', body });
		return { status: response.status, html: await response.text() };
	}

	/** Waits until the execution has finished; resolves to what the node gave the next node. */
	async function resumedWith(id) {
		const run = await waitFor(
			async () => {
				const data = await suite.n8n.runDataOf(id);
				const done = data.execution.status !== 'waiting' && data.execution.status !== 'running';
				// n8n 1.x can mark the execution finished a moment before its run data is saved.
				const saved =
					data.execution.status !== 'success' ||
					[ASK, AFTER].every((node) => data.runData?.[node]?.at(-1)?.data);
				return done && saved && data;
			},
			{ timeoutMs: 90_000, describe: () => `execution ${id} did not go on${diagnostics()}` },
		);
		assert.equal(run.execution.status, 'success', JSON.stringify(run.error)?.slice(0, 2000));
		const output = run.runData[ASK].at(-1).data.main[0].map((item) => item.json);
		assert.deepEqual(
			run.runData[AFTER].at(-1).data.main[0].map((item) => item.json),
			output,
			'the next node got the answer',
		);
		return output;
	}

	return suite;
}
