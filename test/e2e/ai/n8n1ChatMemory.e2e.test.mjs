// Messenger Chat Memory on the n8n 1.x line (N8N_1_VERSION, 1.123.81), which has no AI SDK: the
// package loads whole (n8n 1.x drops every node of a package when one node file fails to load),
// the Messenger node runs, and the chatbot example under the AI Agent 2.2 fails with the memory's
// plain word that it needs n8n 2.x, before the model is asked or anything is sent.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';

import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { withCredentials } from '../../support/agentWorkflows.mjs';
import {
	chainWorkflow,
	manualTriggerNode,
	N8N_1_VERSION,
	PACKAGE_NAME,
	ROOT,
	sandboxCredential,
	sandboxModelCredential,
	useSandboxAndN8n,
} from '../harness.mjs';

const EXAMPLE = JSON.parse(readFileSync(join(ROOT, 'examples', 'whatsapp-ai-agent.json'), 'utf8'));
const MANIFEST = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

describe(`Messenger Chat Memory on n8n ${N8N_1_VERSION}`, { timeout: 15 * 60_000 }, () => {
	const credentials = {
		voiceMessagingApi: { id: 'e2eMemory1Cred', name: 'e2eMemory1 client (e2e)' },
		openAiApi: { id: 'e2eMemory1Model', name: 'e2eMemory1 chat model (e2e)' },
	};
	const e2e = useSandboxAndN8n({
		version: N8N_1_VERSION,
		credentials: (sandbox) => [
			sandboxCredential(credentials.voiceMessagingApi, sandbox, DEMO_CLIENTS.full),
			sandboxModelCredential(credentials.openAiApi, sandbox),
		],
	});

	const PHONE = '+34611000122';

	before(async () => {
		e2e.sandbox.customerWrites({ phone: PHONE, text: 'Hello' });
		await e2e.n8n.importWorkflow({
			...EXAMPLE,
			id: 'e2eMemory1Agent22',
			name: `e2e ${EXAMPLE.name} (n8n 1.x)`,
			nodes: EXAMPLE.nodes.map((node) => {
				const own = withCredentials(node, credentials);
				if (node.type.endsWith('.messengerLiveTrigger'))
					return { ...own, parameters: { ...own.parameters, chats: PHONE } };
				return node.type.endsWith('.agent') ? { ...own, typeVersion: 2.2 } : own;
			}),
		});
	});

	it('n8n loads every node of the package, the memory included', async () => {
		const names = MANIFEST.n8n.nodes.map((file) => file.split('/').pop().replace('.node.js', ''));
		const nodeInfos = names.map((name) => ({
			name: `${PACKAGE_NAME}.${name[0].toLowerCase()}${name.slice(1)}`,
			version: 1,
		}));
		const descriptions = await e2e.n8n.rest('POST', '/rest/node-types', { nodeInfos });
		assert.deepEqual(
			descriptions.map((d) => d.name.split('.').pop()).sort(),
			nodeInfos.map((n) => n.name.split('.').pop()).sort(),
		);
	});

	it('the Messenger node runs: Chat → Get Messages', async () => {
		const chat = e2e.sandbox.state.chats[0];
		const id = 'e2eMemory1Messages';
		await e2e.n8n.importWorkflow(
			chainWorkflow(id, [
				manualTriggerNode(),
				{
					name: 'Get messages',
					type: `${PACKAGE_NAME}.messenger`,
					typeVersion: 1,
					position: [220, 0],
					parameters: {
						resource: 'chat',
						operation: 'getMessages',
						chatId: chat.id,
						returnAll: false,
						limit: 5,
						options: {},
					},
					credentials: { voiceMessagingApi: credentials.voiceMessagingApi },
				},
			]),
		);
		const run = await e2e.n8n.runManually(id, 'Manual Trigger', { timeoutMs: 60_000 });
		assert.equal(run.error, undefined, JSON.stringify(run.error));
		const items = run.runData['Get messages'][0].data.main[0];
		assert.ok(items.length > 0 && items.every((item) => item.json.chatId === chat.id));
	});

	it('the chatbot: the memory says it needs n8n 2.x; no model request, nothing sent', async () => {
		const { sandbox, n8n } = e2e;
		sandbox.chatModel.reset();
		const mark = sandbox.log.length;
		const run = await n8n.runManually('e2eMemory1Agent22', 'Customer wrote', {
			timeoutMs: 120_000,
		});
		assert.match(JSON.stringify(run.error), /Messenger Chat Memory needs n8n 2\.x/);
		assert.equal(sandbox.chatModel.requests.length, 0);
		assert.deepEqual(
			sandbox.log.slice(mark).filter((e) => e.method === 'POST'),
			[],
		);
	});
});
