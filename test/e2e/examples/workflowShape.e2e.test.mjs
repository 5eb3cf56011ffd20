// Own n8n for one test: `n8n execute` (the CLI) on the shared n8n's database would race its server.
//
// The example workflows in examples/ (the ones `npm start` imports) as records: complete workflows
// with the demo credentials and node versions that exist in n8n, all imported into the run's n8n;
// every one of them is run by one of the example suites beside this file (RUN_BY); and why the
// trigger examples run in a running n8n rather than with `n8n execute` (the CLI starts only at a
// Manual Trigger).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { describe, it } from 'node:test';

import { ROOT, createN8nInstance, packedTarball } from '../harness.mjs';
import {
	CREDENTIAL,
	EXAMPLES,
	FILES,
	MANUAL_TRIGGER,
	MCP_CREDENTIAL,
	MCP_SEND_CREDENTIAL,
	MODEL_CREDENTIAL,
	RUN_BY,
	STICKY,
	examplesN8n,
	suiteFile,
} from './examples.mjs';

const PACKAGE_NODE_TYPES = [
	'n8n-nodes-voice-messaging.voiceAi',
	'n8n-nodes-voice-messaging.messenger',
	'n8n-nodes-voice-messaging.voiceAiTool',
	'n8n-nodes-voice-messaging.messengerTool',
	'n8n-nodes-voice-messaging.voiceAiTrigger',
	'n8n-nodes-voice-messaging.messengerTrigger',
	'n8n-nodes-voice-messaging.messengerLiveTrigger',
	'n8n-nodes-voice-messaging.messengerChatMemory',
];

/** The credentials n8n's own nodes in the examples use: those `npm start` creates. */
const BASE_NODE_CREDENTIALS = {
	'@n8n/n8n-nodes-langchain.lmChatOpenAi': { openAiApi: MODEL_CREDENTIAL },
	'@n8n/n8n-nodes-langchain.mcpTrigger': { httpBearerAuth: MCP_CREDENTIAL },
};
/** Examples whose nodes of n8n's own use another credential: the sending MCP server's own token. */
const FILE_NODE_CREDENTIALS = {
	'mcp-server-sends.json': {
		'@n8n/n8n-nodes-langchain.mcpTrigger': { httpBearerAuth: MCP_SEND_CREDENTIAL },
	},
};

describe('Example workflows (examples/*.json) in a real n8n', { timeout: 5 * 60_000 }, () => {
	const ex = examplesN8n(FILES);

	it('every example is a complete workflow: the demo credentials, existing node versions, notes, left to right', () => {
		assert.ok(FILES.length >= 6, `examples: ${FILES.join(', ')}`);
		const n8nRequire = createRequire(join(ex.n8n.n8nDir, 'node_modules', 'n8n', 'package.json'));
		/** Versions of a node type of n8n's own packages, from the node class n8n itself loads. */
		const baseVersions = (type) => {
			const packageName = type.slice(0, type.lastIndexOf('.'));
			const name = type.slice(packageName.length + 1);
			const npmName = packageName === 'n8n-nodes-base' ? packageName : '@n8n/n8n-nodes-langchain';
			const packageJson = n8nRequire.resolve(`${npmName}/package.json`);
			for (const file of n8nRequire(packageJson).n8n.nodes) {
				if (basename(file).toLowerCase() !== `${name.toLowerCase()}.node.js`) continue;
				// By path: the langchain package's `exports` do not list its node files.
				const NodeClass = Object.values(n8nRequire(join(dirname(packageJson), file)))[0];
				const node = new NodeClass();
				if (node.description.name !== name) continue;
				return node.nodeVersions
					? Object.keys(node.nodeVersions).map(Number)
					: [].concat(node.description.version);
			}
			return [];
		};
		const ids = new Set();
		const names = new Set();
		for (const [file, workflow] of EXAMPLES) {
			const where = `examples/${file}`;
			assert.match(workflow.id ?? '', /^[A-Za-z0-9]{16}$/, `${where}: an id like n8n's own`);
			assert.ok(!ids.has(workflow.id), `${where}: id ${workflow.id} is used twice`);
			ids.add(workflow.id);
			assert.ok(workflow.name?.length > 10 && !names.has(workflow.name), `${where}: a clear name`);
			names.add(workflow.name);
			assert.equal(workflow.active, false, `${where}: imported inactive`);
			assert.equal(workflow.settings?.executionOrder, 'v1', where);
			assert.ok(
				!workflow.pinData || Object.keys(workflow.pinData).length === 0,
				`${where}: no pinned data`,
			);

			const byName = new Map(workflow.nodes.map((node) => [node.name, node]));
			assert.equal(byName.size, workflow.nodes.length, `${where}: node names are unique`);
			assert.ok(
				workflow.nodes.some((node) => node.type === STICKY && node.parameters.content.length > 100),
				`${where}: a sticky note that explains it`,
			);
			for (const node of workflow.nodes) {
				const label = `${where}, node "${node.name}"`;
				assert.ok(Array.isArray(node.position) && node.position.length === 2, label);
				if (node.type.startsWith('n8n-nodes-voice-messaging.')) {
					assert.ok(PACKAGE_NODE_TYPES.includes(node.type), `${label}: ${node.type}`);
					assert.equal(node.typeVersion, 1, label);
					assert.deepEqual(node.credentials, { voiceMessagingApi: CREDENTIAL }, label);
				} else {
					assert.match(node.type, /^(n8n-nodes-base|@n8n\/n8n-nodes-langchain)\./, label);
					assert.ok(
						baseVersions(node.type).includes(node.typeVersion),
						`${label}: ${node.type} v${node.typeVersion} does not exist in n8n ${ex.n8n.version} (has ${baseVersions(node.type)})`,
					);
					assert.deepEqual(
						node.credentials,
						{ ...BASE_NODE_CREDENTIALS, ...FILE_NODE_CREDENTIALS[file] }[node.type],
						label,
					);
				}
			}

			// Connections join existing nodes, left to right (sub-nodes of an agent: below it), and
			// every node is reached from a trigger.
			const reached = new Set();
			const targets = new Set();
			/** Sub-nodes (model, memory, tools) → the node they serve. */
			const servesNode = new Map();
			for (const [source, outputs] of Object.entries(workflow.connections)) {
				assert.ok(byName.has(source), `${where}: connection from unknown node "${source}"`);
				for (const [kind, branches] of Object.entries(outputs))
					for (const { node: target, type } of branches.flat()) {
						assert.ok(byName.has(target), `${where}: connection to unknown node "${target}"`);
						assert.equal(type, kind, `${where}: ${source} → ${target}`);
						const [from, to] = [byName.get(source).position, byName.get(target).position];
						if (kind === 'main') {
							assert.ok(to[0] > from[0], `${where}: "${target}" is right of "${source}"`);
							targets.add(target);
						} else {
							assert.match(kind, /^ai_/, `${where}: ${source} → ${target}`);
							assert.ok(from[1] > to[1], `${where}: sub-node "${source}" is below "${target}"`);
							servesNode.set(source, target);
						}
					}
			}
			const starts = workflow.nodes.filter(
				(n) => n.type !== STICKY && !targets.has(n.name) && !servesNode.has(n.name),
			);
			assert.ok(
				starts.every((n) => /trigger/i.test(n.type)),
				`${where}: only triggers start the flow: ${starts.map((n) => n.name)}`,
			);
			const visit = (name) => {
				if (reached.has(name)) return;
				reached.add(name);
				for (const branch of workflow.connections[name]?.main ?? [])
					for (const { node } of branch) visit(node);
			};
			starts.forEach((n) => visit(n.name));
			for (const [subNode, target] of servesNode) if (reached.has(target)) reached.add(subNode);
			for (const node of workflow.nodes)
				if (node.type !== STICKY)
					assert.ok(reached.has(node.name), `${where}: "${node.name}" is connected`);
		}
	});

	it('`n8n execute` cannot start an example that begins with a polling trigger (the CLI needs a Manual Trigger)', async () => {
		// Why the trigger examples run through a running n8n (REST), as the editor runs them. Should
		// a later n8n start them from the CLI, this fails. The CLI needs an n8n folder of its own.
		const triggerOnly = [...EXAMPLES.values()].filter(
			(w) => !w.nodes.some((n) => n.type === MANUAL_TRIGGER),
		);
		assert.ok(triggerOnly.length >= 2, 'the alert examples start with a Voice AI Trigger');
		const cli = await createN8nInstance({ tarball: await packedTarball() });
		try {
			await cli.importWorkflow(triggerOnly[0]);
			const error = await cli.execute(triggerOnly[0].id).then(
				(result) => assert.fail(`n8n execute ran it: ${JSON.stringify(result).slice(0, 1000)}`),
				(error) => error,
			);
			assert.match(`${error.message}`, /Missing node to start execution/);
		} finally {
			await cli.cleanup();
		}
	});

	it('every file in examples/ is run by one of the example suites (RUN_BY)', () => {
		assert.deepEqual(
			FILES.filter((file) => !RUN_BY[file]),
			[],
			'examples without a test: add one to a suite (test/e2e/examples/, or another e2e file) and to RUN_BY',
		);
		assert.deepEqual(
			Object.keys(RUN_BY).filter((file) => !FILES.includes(file)),
			[],
			'RUN_BY names files that are not in examples/',
		);
		assert.deepEqual(
			[...new Set(Object.values(RUN_BY))].filter(
				(suite) => !existsSync(join(ROOT, suiteFile(suite))),
			),
			[],
			'RUN_BY names suites whose test file does not exist',
		);
	});
});
