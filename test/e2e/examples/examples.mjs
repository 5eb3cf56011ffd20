// What the example suites (test/e2e/examples/*.e2e.test.mjs) share: the workflows in examples/
// (the ones `npm start` imports), which suite runs each of them, lookups into a workflow and its
// run data, and the run's n8n with the credentials `npm start` creates and the examples imported.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before } from 'node:test';

import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { DEMO_MCP_SEND_TOKEN } from '../../../scripts/demo.mjs';
import {
	DEMO_MCP_TOKEN,
	executionError,
	lastRunItems,
	mcpBearerCredential,
	ROOT,
	sandboxCredential,
	sandboxModelCredential,
	useSandboxAndN8n,
} from '../harness.mjs';

/** The credential scripts/start.mjs creates; every example must use exactly this one. */
export const CREDENTIAL = { id: 'sandboxVoiceMessaging', name: 'Voice & Messaging sandbox' };
/** The model credential scripts/start.mjs creates (n8n's OpenAI credential, Base URL: the sandbox). */
export const MODEL_CREDENTIAL = { id: 'sandboxChatModel', name: 'Sandbox chat model (stand-in)' };
/** The Bearer Auth credential scripts/start.mjs creates for MCP clients of examples/mcp-server.json. */
export const MCP_CREDENTIAL = { id: 'sandboxMcpClients', name: 'MCP clients (demo token)' };
/** The sending MCP example's own Bearer Auth credential (examples/mcp-server-sends.json). */
export const MCP_SEND_CREDENTIAL = {
	id: 'sandboxMcpSenders',
	name: 'MCP sending clients (demo token)',
};
export const MANUAL_TRIGGER = 'n8n-nodes-base.manualTrigger';
export const STICKY = 'n8n-nodes-base.stickyNote';

const EXAMPLES_DIR = join(ROOT, 'examples');
export const FILES = readdirSync(EXAMPLES_DIR)
	.filter((name) => name.endsWith('.json'))
	.sort();
/** file name → parsed workflow */
export const EXAMPLES = new Map(
	FILES.map((name) => [name, JSON.parse(readFileSync(join(EXAMPLES_DIR, name), 'utf8'))]),
);

/**
 * The suite that runs each example: test/e2e/examples/<suite>.e2e.test.mjs, or with a folder,
 * test/e2e/<suite>.e2e.test.mjs (the MCP server examples are an AI suite's). workflowShape fails on
 * a file in examples/ without an entry; each suite fails when one of its examples did not run.
 */
export const RUN_BY = {
	'nightly-campaign-report.json': 'alertsAndReports',
	'campaign-alerts.json': 'alertsAndReports',
	'low-balance-alert.json': 'alertsAndReports',
	'send-document-by-phone.json': 'messaging',
	'broadcast-delivery-follow-up.json': 'messaging',
	'reply-follow-up.json': 'messaging',
	'customer-documents.json': 'messaging',
	'ops-assistant.json': 'assistantAndApproval',
	'approve-campaign-cancel.json': 'assistantAndApproval',
	'call-follow-up.json': 'callFollowUp',
	'mcp-server.json': 'ai/mcpServer',
	'mcp-server-sends.json': 'ai/mcpServerSends',
	'whatsapp-ai-agent.json': 'ai/chatMemory',
};

/** The test file of a suite named in RUN_BY, below the repository's root. @param {string} suite */
export const suiteFile = (suite) =>
	`test/e2e/${suite.includes('/') ? suite : `examples/${suite}`}.e2e.test.mjs`;

/**
 * The examples of one suite: `files`; `example(file)` gives the workflow and marks it as run by the
 * calling test; `notRun()` lists the suite's examples no test ran.
 * @param {string} suite a value of RUN_BY
 */
export function exampleSuite(suite) {
	const ran = new Set();
	const files = FILES.filter((file) => RUN_BY[file] === suite);
	return {
		files,
		example(file) {
			const workflow = EXAMPLES.get(file);
			assert.ok(workflow, `examples/${file} exists (found: ${FILES.join(', ')})`);
			assert.equal(RUN_BY[file], suite, `examples/${file} is run by ${suiteFile(suite)}`);
			ran.add(file);
			return workflow;
		},
		notRun: () => files.filter((file) => !ran.has(file)),
	};
}

export const nodeNamed = (workflow, name) => {
	const node = workflow.nodes.find((n) => n.name === name);
	assert.ok(node, `${workflow.name}: no node "${name}"`);
	return node;
};
export const nodeOfType = (workflow, type) => {
	const nodes = workflow.nodes.filter((n) => n.type === type);
	assert.equal(nodes.length, 1, `${workflow.name}: one node of type ${type}`);
	return nodes[0];
};
/** The value of an Edit Fields assignment. */
export const assignment = (node, name) => {
	const found = node.parameters.assignments.assignments.find((a) => a.name === name);
	assert.ok(found, `"${node.name}" sets no field "${name}"`);
	return found.value;
};
export const ranNodes = (runData) => Object.keys(runData);
/** What a node output in its last run (lastRunItems); [] for a node that did not run (a branch not taken). */
export const itemsOf = (runData, name, output = 0) =>
	runData[name] ? lastRunItems(runData, name, output) : [];

/**
 * Called inside describe(): registers the before() and after() of one sandbox (no progression by
 * itself: each test moves it when it needs to) and the run's n8n (test/support/n8n.mjs) with the
 * demo credentials and the examples in `files`, as scripts/start.mjs sets them up. `execute` runs an example from its Manual Trigger and `runTrigger` from its
 * trigger, both as the editor's "Execute workflow" button does (REST, mode `manual`; a polling
 * trigger fetches a test event, a real sample from the sandbox).
 * @param {string[]} files
 */
export function examplesN8n(files) {
	const e2e = useSandboxAndN8n({
		sandbox: { progressIntervalMs: 0 },
		credentials: (sandbox) => [
			sandboxCredential(CREDENTIAL, sandbox, DEMO_CLIENTS.full),
			sandboxModelCredential(MODEL_CREDENTIAL, sandbox),
			mcpBearerCredential(MCP_CREDENTIAL, DEMO_MCP_TOKEN),
			mcpBearerCredential(MCP_SEND_CREDENTIAL, DEMO_MCP_SEND_TOKEN),
		],
	});
	before(() => e2e.n8n.importWorkflows(files.map((file) => EXAMPLES.get(file))));
	const ctx = {
		get sandbox() {
			return e2e.sandbox;
		},
		get n8n() {
			return e2e.n8n;
		},

		/** Runs an imported example from its Manual Trigger; fails with n8n's output when it failed. */
		async execute(workflow) {
			const { name } = nodeOfType(workflow, MANUAL_TRIGGER);
			const result = await ctx.n8n.execute(workflow.id, { triggerName: name });
			const error = executionError(result);
			assert.equal(
				error,
				undefined,
				`execution of ${workflow.id} failed: ${JSON.stringify(error)?.slice(0, 2000)}\n${ctx.output()}`,
			);
			return { result, runData: result.data.resultData.runData };
		},

		/** The end of n8n's output, for failure messages. */
		output: () => ctx.n8n.output().slice(-3000),

		/** Runs an example from its trigger as the editor does (a trigger fetches a test event). */
		async runTrigger(workflow) {
			const trigger = workflow.nodes.find((n) => n.type.endsWith('Trigger'));
			const run = await ctx.n8n.runManually(workflow.id, trigger.name);
			assert.equal(
				run.error,
				undefined,
				`execution failed: ${JSON.stringify(run.error)?.slice(0, 2000)}\n${ctx.output()}`,
			);
			assert.equal(run.execution.mode, 'manual');
			assert.equal(run.execution.status, 'success');
			return { ...run, trigger: trigger.name };
		},
	};
	return ctx;
}
