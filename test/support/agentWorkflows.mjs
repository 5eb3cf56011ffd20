// AI Agent workflows for the e2e suites, all built one way: a trigger → n8n's AI Agent with the
// model and tools of examples/ops-assistant.json (what users import), some tools behind a human
// review step. Each suite points the nodes at its own credentials (its own sandbox).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { PACKAGE_NAME } from '../../tools/n8n.mjs';
import { ROOT } from '../../tools/processes.mjs';

/** examples/ops-assistant.json as users import it. */
export const OPS_ASSISTANT = JSON.parse(
	readFileSync(join(ROOT, 'examples', 'ops-assistant.json'), 'utf8'),
);

/** The one node of `type` in `workflow`. */
export function nodeOfType(workflow, type) {
	const found = workflow.nodes.filter((n) => n.type === type);
	assert.equal(found.length, 1, `${workflow.name}: one ${type}`);
	return found[0];
}

/**
 * `node` with each of its credentials (voiceMessagingApi, openAiApi) replaced by the one of that
 * type in `credentials`, so that it runs against the suite's own sandbox.
 * @param {Record<string, any>} node @param {Record<string, { id: string, name: string }>} credentials
 */
export function withCredentials(node, credentials) {
	if (!node.credentials) return node;
	const replaced = Object.fromEntries(
		Object.keys(node.credentials).map((type) => [
			type,
			credentials[type] ?? node.credentials[type],
		]),
	);
	return { ...node, credentials: replaced };
}

/**
 * The example's Chat Trigger, AI Agent and OpenAI Chat Model (pointed at the sandbox's chat model)
 * and its tools (this package's nodes), with `credentials` instead of the example's.
 * @param {Record<string, { id: string, name: string }>} credentials by type
 */
export function exampleAgentParts(credentials) {
	const example = OPS_ASSISTANT;
	return {
		trigger: nodeOfType(example, '@n8n/n8n-nodes-langchain.chatTrigger'),
		agent: nodeOfType(example, '@n8n/n8n-nodes-langchain.agent'),
		model: withCredentials(
			nodeOfType(example, '@n8n/n8n-nodes-langchain.lmChatOpenAi'),
			credentials,
		),
		tools: example.nodes
			.filter((n) => n.type.startsWith(`${PACKAGE_NAME}.`) && n.type.endsWith('Tool'))
			.map((n) => withCredentials(n, credentials)),
	};
}

/** The tool name n8n gives the model for a node (its name, other characters as `_`). */
export const toolName = (name) => name.replace(/[^a-zA-Z0-9_-]+/g, '_');

/**
 * A workflow: `trigger` → `agent` with `model` and `tools` (no memory: each run stands alone).
 * A tool named in `reviewedBy` connects to that review step (itself one of `tools`) instead of
 * the agent. Execution order v1, as the editor sets it, unless `settings` says otherwise.
 * @param {string} id
 * @param {{ trigger: any, agent: any, model: any, tools?: any[], reviewedBy?: Record<string, string>, settings?: Record<string, unknown> }} parts
 */
export function agentWorkflow(
	id,
	{ trigger, agent, model, tools = [], reviewedBy = {}, settings = { executionOrder: 'v1' } },
) {
	const to = (node, type) => [[{ node, type, index: 0 }]];
	return {
		id,
		name: `e2e ${id}`,
		active: false,
		settings,
		nodes: [trigger, agent, model, ...tools],
		connections: {
			[trigger.name]: { main: to(agent.name, 'main') },
			[model.name]: { ai_languageModel: to(agent.name, 'ai_languageModel') },
			...Object.fromEntries(
				tools.map((t) => [t.name, { ai_tool: to(reviewedBy[t.name] ?? agent.name, 'ai_tool') }]),
			),
		},
		pinData: {},
	};
}
