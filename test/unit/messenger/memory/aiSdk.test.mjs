// n8n 1.x has no AI SDK, and a node file that throws when n8n loads it makes n8n drop the whole
// package: every built node file loads with the SDK unresolvable, and the memory then says it
// needs n8n 2.x. With the SDK (as n8n 2.x resolves it), the memory reaches n8n's AI Agent as a
// LangChain memory whose chat history is the chat's.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { MessengerChatMemory } from '../../../../nodes/Messenger/MessengerChatMemory.node.ts';
import { loadMemorySdk } from '../../../../nodes/Messenger/memory/aiSdk.ts';
import { TEST_NODE } from '../../../../tools/context.mjs';
import { readRepoFile } from '../../../support/unit.mjs';
import { chatOf, memoryApi, memoryContext } from './memoryApi.mjs';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const manifest = JSON.parse(readRepoFile('package.json'));

/** Loads each built node file as n8n does, '@n8n/ai-node-sdk' unresolvable; prints what it found. */
const LOAD_WITHOUT_SDK = `
const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
	if (request === '@n8n/ai-node-sdk' || request.startsWith('@n8n/ai-node-sdk/')) {
		throw Object.assign(new Error("Cannot find module '" + request + "'"), { code: 'MODULE_NOT_FOUND' });
	}
	return resolve.call(this, request, ...rest);
};
const path = require('node:path');
const [dir, ...files] = process.argv.slice(1);
(async () => {
	const found = {};
	for (const file of files) {
		const exported = require(path.join(dir, file));
		for (const NodeClass of Object.values(exported)) {
			const node = new NodeClass();
			found[node.description.name] = null;
			if (node.supplyData) {
				const context = { getNode: () => ({ name: 'Memory', type: node.description.name }),
					getNodeParameter: (name, i, fallback) => (name === 'chat' ? 'cht_1' : fallback),
					getInputData: () => [{ json: {} }] };
				found[node.description.name] = await node.supplyData.call(context, 0).then(
					() => 'supplied', (error) => error.message + ' | ' + error.description);
			}
		}
	}
	console.log(JSON.stringify(found));
})();
`;

describe('without the AI SDK (n8n 1.x)', () => {
	let out;
	before(() => {
		out = mkdtempSync(join(tmpdir(), 'memory-build-'));
		execFileSync(
			process.execPath,
			[
				join(ROOT, 'node_modules/typescript/bin/tsc'),
				'-p',
				ROOT,
				'--outDir',
				out,
				'--incremental',
				'false',
				'--declaration',
				'false',
				'--sourceMap',
				'false',
			],
			{ stdio: 'pipe' },
		);
	});
	after(() => rmSync(out, { recursive: true, force: true }));

	it('every built node file loads, and the memory says it needs n8n 2.x', () => {
		const files = manifest.n8n.nodes.map((file) => file.replace(/^dist\//, ''));
		const printed = execFileSync(process.execPath, ['-e', LOAD_WITHOUT_SDK, out, ...files], {
			env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules') },
			encoding: 'utf8',
		});
		const found = JSON.parse(printed);
		assert.deepEqual(Object.keys(found).sort(), [
			'messenger',
			'messengerChatMemory',
			'messengerLiveTrigger',
			'messengerTrigger',
			'voiceAi',
			'voiceAiTrigger',
		]);
		assert.match(
			found.messengerChatMemory,
			/^Messenger Chat Memory needs n8n 2\.x \| .*@n8n\/ai-node-sdk/,
		);
	});

	it('an SDK that loads without supplyMemory is said the same way', async () => {
		await assert.rejects(
			loadMemorySdk(TEST_NODE, async () => ({})),
			/needs n8n 2\.x/,
		);
	});
});

describe('with the AI SDK (n8n 2.x)', () => {
	it("the agent's LangChain memory holds the chat's turns, the message being answered left to the prompt", async () => {
		const api = memoryApi();
		const messages = chatOf('cht_1', ['in', 'out', 'in']);
		api.chats.set('cht_1', messages);
		const context = memoryContext(api, {
			item: { chatId: 'cht_1', messageId: messages[2].id, createdAt: messages[2].createdAt },
		});
		Object.assign(context, {
			addInputData: () => ({ index: 0 }),
			addOutputData: () => {},
			getNextRunIndex: () => 0,
			logAiEvent: () => {},
		});
		const supplied = await new MessengerChatMemory().supplyData.call(context, 0);
		const { chat_history: history } = await supplied.response.loadMemoryVariables({});
		assert.deepEqual(
			history.map((message) => [
				message._getType(),
				[message.content]
					.flat()
					.map((part) => part.text ?? part)
					.join(''),
			]),
			[
				['human', 'm0'],
				['ai', 'm1'],
			],
		);
		// The answer reaches the chat through the workflow's send: the memory writes nothing.
		await supplied.response.saveContext({ input: 'm2' }, { output: 'answer' });
		assert.equal(api.calls.length, 1);
	});
});
