// The Voice AI and Messenger nodes as tools of n8n's AI Agent, for the ai/ suites: the run's n8n
// (test/support/n8n.mjs), the sandbox and its scripted chat model (sandbox/chatModel.mjs, which
// records what the model was sent: the tools offered, their JSON schemas, the tool results), and
// a chat run the way the editor's chat panel runs it (POST /rest/workflows/:id/run from the Chat
// Trigger with the message typed). The model is n8n's own OpenAI Chat Model node, pointed through
// its credential's Base URL at the sandbox. Workflows come from examples/ops-assistant.json
// (test/support/agentWorkflows.mjs), with the agent at each version users have: 3.1 (what the
// 2.41 editor adds) and 2.2; n8n 1.x has only 2.2.
import assert from 'node:assert/strict';
import { before } from 'node:test';

import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { agentWorkflow, exampleAgentParts, toolName } from '../../support/agentWorkflows.mjs';
import {
	isN8n1,
	PACKAGE_NAME,
	sandboxCredential,
	sandboxModelCredential,
	useSandboxAndN8n,
	waitFor,
} from '../harness.mjs';

export const API = '/api/v1';

/** The agent versions of n8n `version`, newest first. */
export const agentVersions = (version) => (isN8n1(version) ? [2.2] : [3.1, 2.2]);

/** The first object inside a JSON value (arrays and `response` wrappers looked into) with `key`. */
export function findWith(value, key) {
	if (Array.isArray(value)) {
		for (const entry of value) {
			const found = findWith(entry, key);
			if (found) return found;
		}
	} else if (value && typeof value === 'object') {
		if (key in value) return value;
		for (const entry of Object.values(value)) {
			const found = findWith(entry, key);
			if (found) return found;
		}
	}
	return undefined;
}

/** Every object inside a JSON value that has `key`. */
export function allWith(value, key, found = []) {
	if (Array.isArray(value)) value.forEach((entry) => allWith(entry, key, found));
	else if (value && typeof value === 'object') {
		if (key in value) found.push(value);
		else Object.values(value).forEach((entry) => allWith(entry, key, found));
	}
	return found;
}

/** The content of the one tool result the model got back in its last request. */
export function onlyToolResult(requests, name) {
	const results = requests.at(-1).toolResults;
	assert.deepEqual(
		results.map((r) => r.name),
		[name],
		JSON.stringify(results),
	);
	return { text: results[0].content, data: JSON.parse(results[0].content) };
}

/**
 * Registers the hooks of an AI Agent suite on the run's n8n of `version` (test/support/n8n.mjs):
 * a sandbox, the suite's own credentials (`prefix` names them and its workflows) and one workflow
 * per agent version with the example's tools (`workflowIds[agentVersion]`). Fields resolve in
 * `before`.
 * @param {{ version: string, prefix: string }} options
 */
export function useAgentChat({ version, prefix }) {
	const credentials = {
		voiceMessagingApi: { id: `${prefix}Cred`, name: `${prefix} client (e2e)` },
		openAiApi: { id: `${prefix}Model`, name: `${prefix} chat model (e2e)` },
	};
	const parts = exampleAgentParts(credentials);
	const versions = agentVersions(version);
	const e2e = useSandboxAndN8n({
		version,
		credentials: (sandbox) => [
			sandboxCredential(credentials.voiceMessagingApi, sandbox, DEMO_CLIENTS.full),
			sandboxModelCredential(credentials.openAiApi, sandbox),
		],
	});
	/** `sandbox` and `n8n` (useSandboxAndN8n), the example's parts and the steps below. */
	const suite = Object.assign(e2e, {
		parts,
		/** The tool name the model gets for each of the example's tools, by node name. */
		TOOL: Object.fromEntries(parts.tools.map((n) => [n.name, toolName(n.name)])),
		versions,
		workflowIds: Object.fromEntries(
			versions.map((v) => [v, `${prefix}V${String(v).replace('.', '')}`]),
		),
		importAgentWorkflow,
		chat,
		operations,
	});
	/**
	 * Imports a workflow: the example's trigger → AI Agent at `agentVersion` with its model and
	 * `tools` (the example's unless given).
	 * @param {string} id @param {{ agentVersion: number, tools?: any[], settings?: Record<string, unknown> }} options
	 */
	async function importAgentWorkflow(id, { agentVersion, tools = parts.tools, settings }) {
		const agent = { ...parts.agent, typeVersion: agentVersion };
		await suite.n8n.importWorkflow(agentWorkflow(id, { ...parts, agent, tools, settings }));
	}

	/**
	 * Sends `question` to the workflow's chat with `steps` scripted; resolves to the agent's answer,
	 * the model's requests and the API requests of this run.
	 * @param {string} workflowId @param {string} question @param {any[]} steps
	 */
	async function chat(workflowId, question, steps, { expectError = false } = {}) {
		const { sandbox, n8n } = suite;
		const agentName = parts.agent.name;
		const model = sandbox.chatModel;
		model.reset();
		model.script(...steps);
		const logStart = sandbox.log.length;
		let run = await n8n.runManually(workflowId, parts.trigger.name, {
			timeoutMs: 120_000,
			triggerItems: [
				{ sessionId: `e2e-${Date.now()}`, action: 'sendMessage', chatInput: question },
			],
		});
		// n8n 1.x may mark the execution finished a moment before its run data is stored.
		const answered = (r) => r.error || r.runData[agentName]?.at(-1)?.data;
		if (!answered(run)) {
			run = await waitFor(
				async () => {
					const again = await n8n.runDataOf(run.execution.id);
					return answered(again) && again;
				},
				{ timeoutMs: 10_000, describe: () => `run data of execution ${run.execution.id}` },
			);
		}
		const api = sandbox.log.slice(logStart).filter((entry) => !entry.path.endsWith('/auth/token'));
		if (!expectError) {
			assert.equal(
				run.error,
				undefined,
				`execution failed: ${JSON.stringify(run.error)?.slice(0, 2000)}\n${n8n.output().slice(-3000)}`,
			);
			assert.equal(run.execution.status, 'success');
		}
		assert.equal(model.pending, 0, 'every scripted step was used');
		const output = run.runData[agentName]?.at(-1)?.data?.main?.[0]?.[0]?.json?.output;
		return { ...run, output, requests: [...model.requests], api };
	}

	/**
	 * Each operation of both nodes as the running n8n loaded them from the installed package (the
	 * call the editor makes for node descriptions): node, tool type, resource, operation, action,
	 * description.
	 */
	async function operations() {
		const nodeInfos = ['voiceAi', 'messenger'].map((name) => ({
			name: `${PACKAGE_NAME}.${name}`,
			version: 1,
		}));
		const descriptions = await suite.n8n.rest('POST', '/rest/node-types', { nodeInfos });
		assert.equal(descriptions.length, 2);
		return descriptions.flatMap((description) =>
			description.properties
				.filter((p) => p.name === 'operation')
				.flatMap((p) =>
					// n8n adds a "Custom API Call" entry (HTTP Request with this credential) to each list.
					p.options
						.filter((o) => o.value !== '__CUSTOM_API_CALL__')
						.map((o) => ({
							node: description.defaults.name,
							type: `${PACKAGE_NAME}.${description.name.split('.').pop()}Tool`,
							resource: p.displayOptions.show.resource[0],
							operation: o.value,
							action: o.action,
							description: o.description,
						})),
				),
		);
	}

	before(async () => {
		for (const v of versions) await importAgentWorkflow(suite.workflowIds[v], { agentVersion: v });
	});

	return suite;
}
