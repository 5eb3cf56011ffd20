// What n8n's AI Agent offers the model for the Voice AI and Messenger tools, in a running n8n: the
// example's tools with their operations' descriptions and their $fromAI() fields as JSON schema,
// and every operation as a tool added in the editor, each with its own description.
import assert from 'node:assert/strict';
import { describe } from 'node:test';

import { toolName } from '../../support/agentWorkflows.mjs';
import { suiteOptions } from '../harness.mjs';
import { useAgentChat } from './agentChat.mjs';

const { version, title, it } = suiteOptions('AI Agent: the tools the model is offered');

describe(title, { timeout: 10 * 60_000 }, () => {
	const suite = useAgentChat({ version, prefix: 'e2eAiTools' });
	const { chat, operations, parts, TOOL } = suite;
	const TOOLS = parts.tools;

	it("the example's tools are sent to the model with the descriptions of their operations and the $fromAI() fields as their schema", async () => {
		const all = await operations();
		const { requests } = await chat(suite.workflowIds[suite.versions[0]], 'Hello', [
			{ answer: 'Hello' },
		]);
		const offered = new Map(requests[0].tools.map((t) => [t.name, t]));
		for (const tool of TOOLS) {
			const sent = offered.get(TOOL[tool.name]);
			const { resource, operation, toolDescription } = tool.parameters;
			const expected = all.find((o) => o.resource === resource && o.operation === operation);
			assert.equal(
				toolDescription,
				expected.description,
				`${tool.name}: the example repeats the operation's description`,
			);
			assert.equal(sent.description, toolDescription, tool.name);
			// Every $fromAI() key of the node is a required string property, described as in the node.
			const keys = [...JSON.stringify(tool.parameters).matchAll(/\$fromAI\('(\w+)', '([^']*)'/g)];
			assert.deepEqual(
				Object.keys(sent.parameters.properties).sort(),
				[...new Set(keys.map((k) => k[1]))].sort(),
				tool.name,
			);
			for (const [, key, about] of keys) {
				assert.deepEqual(
					sent.parameters.properties[key],
					{ type: 'string', description: about },
					`${tool.name}.${key}`,
				);
			}
			assert.deepEqual(
				(sent.parameters.required ?? []).sort(),
				Object.keys(sent.parameters.properties).sort(),
			);
		}
	});

	it('every operation as a tool added in the editor: the model gets "<action> in <node>", one distinct description each', async () => {
		const all = await operations();
		const tools = all.map((o, index) => ({
			id: `e2e-op-${index}`,
			name: `${o.node} ${o.resource} ${o.operation}`,
			type: o.type,
			typeVersion: 1,
			position: [index * 40, 400],
			parameters: { resource: o.resource, operation: o.operation },
			credentials: TOOLS[0].credentials,
		}));
		const id = 'e2eAiToolsAllOps';
		await suite.importAgentWorkflow(id, { agentVersion: suite.versions[0], tools });
		const { requests } = await chat(id, 'Hello', [{ answer: 'Hello' }]);
		const sent = new Map(requests[0].tools.map((t) => [t.name, t]));
		assert.equal(sent.size, all.length);
		for (const [index, o] of all.entries()) {
			const tool = sent.get(toolName(tools[index].name));
			assert.ok(tool, `${tools[index].name} offered`);
			assert.equal(tool.description, `${o.action} in ${o.node}`);
			assert.deepEqual(tool.parameters.properties ?? {}, {}, 'no $fromAI(): no arguments');
		}
		assert.equal(
			new Set(all.map((o) => `${o.action} in ${o.node}`)).size,
			all.length,
			'distinct descriptions',
		);
	});
});
