// npm start's own logic (scripts/start.mjs): the package is built, packed and installed again only
// when its sources changed; the credentials and examples go into the running n8n through its REST
// API, an example only when n8n does not have it (the user's version is kept); the banner's
// example names come from the files, and the MCP server example's address from n8n; the steps say
// what they do while they run.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

import {
	ANSWERED_CALLS_TABLE,
	BANNER_EXAMPLES,
	ensureDataTable,
	exampleName,
	importMissingExamples,
	isInstalled,
	mcpServerAddress,
	readExamples,
	rememberInstalled,
	upsertCredential,
	watchMcpServer,
	withCredentialIds,
} from '../../../scripts/demo.mjs';
import { formatStepTime, withProgress } from '../../../scripts/progress.mjs';
import { PACKAGE_NAME } from '../../../tools/n8n.mjs';
import { packOnChange, sourceHash } from '../../../tools/pack.mjs';
import { ROOT } from '../../../tools/processes.mjs';

const dir = mkdtempSync(join(tmpdir(), 'voice-messaging-start-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A folder with `files` (path → content) in it. */
function folderWith(name, files) {
	const root = join(dir, name);
	for (const [path, content] of Object.entries(files)) {
		mkdirSync(join(root, path, '..'), { recursive: true });
		writeFileSync(join(root, path), content);
	}
	return root;
}

/**
 * A fake REST API of n8n: answers from `routes` ("METHOD /path" → data, or an Error to throw)
 * and records each call.
 */
function fakeRest(routes) {
	/** @type {Array<[string, string, unknown]>} */
	const calls = [];
	/** @type {import('../../../scripts/demo.mjs').Rest} */
	const rest = async (method, path, body) => {
		calls.push([method, path, body]);
		const answer = routes[`${method} ${path}`];
		if (answer instanceof Error) throw answer;
		if (answer === undefined) throw new Error(`${method} ${path} → 404: not found`);
		return typeof answer === 'function' ? answer(body) : answer;
	};
	return { rest, calls };
}

describe('the packed package is reused while its sources do not change', () => {
	const sources = { 'nodes/A.node.ts': 'a', 'credentials/C.ts': 'c', 'package.json': '{}' };

	it('the sources hash follows every source file’s content and path, and nothing else', () => {
		const root = folderWith('hash', sources);
		const before = sourceHash(root);
		assert.equal(sourceHash(root), before, 'the same files, the same hash');
		writeFileSync(join(root, 'README.md'), 'docs change nothing n8n loads');
		mkdirSync(join(root, 'test'));
		writeFileSync(join(root, 'test', 'x.test.mjs'), 'nor do tests');
		assert.equal(sourceHash(root), before);
		writeFileSync(join(root, 'nodes/A.node.ts'), 'a changed');
		assert.notEqual(sourceHash(root), before, 'a changed source');
		writeFileSync(join(root, 'nodes/A.node.ts'), 'a');
		assert.equal(sourceHash(root), before);
		writeFileSync(join(root, 'nodes/B.node.ts'), '');
		assert.notEqual(sourceHash(root), before, 'a new source file, even an empty one');
	});

	it('builds only when the sources changed, and keeps only the newest tarball', async () => {
		const root = folderWith('pack', sources);
		const kept = join(dir, 'pack-kept');
		let builds = 0;
		const build = async () => {
			builds += 1;
			const tarball = join(dir, `built-${builds}.tgz`);
			writeFileSync(tarball, `tarball ${builds}`);
			return tarball;
		};
		const first = await packOnChange(kept, { root, build });
		assert.deepEqual([first.reused, builds], [false, 1]);
		const again = await packOnChange(kept, { root, build });
		assert.deepEqual([again, builds], [{ tarball: first.tarball, reused: true }, 1]);
		writeFileSync(join(root, 'nodes/A.node.ts'), 'a changed');
		const changed = await packOnChange(kept, { root, build });
		assert.deepEqual([changed.reused, builds], [false, 2]);
		assert.notEqual(changed.tarball, first.tarball);
		assert.deepEqual(readdirSync(kept), [changed.tarball.split(/[\\/]/).pop()]);
	});

	it('installs again only when another tarball was packed or the package was removed', () => {
		const userFolder = join(dir, 'user-folder');
		const installed = join(userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME);
		mkdirSync(installed, { recursive: true });
		assert.equal(isInstalled(userFolder, '/kept/package-1.tgz'), false, 'never installed');
		writeFileSync(join(installed, 'package.json'), '{}');
		rememberInstalled(userFolder, '/kept/package-1.tgz');
		assert.equal(isInstalled(userFolder, '/kept/package-1.tgz'), true);
		assert.equal(isInstalled(userFolder, '/kept/package-2.tgz'), false, 'sources changed');
		rmSync(installed, { recursive: true });
		assert.equal(isInstalled(userFolder, '/kept/package-1.tgz'), false, 'uninstalled in n8n');
	});
});

describe('credentials and examples through the REST API', () => {
	const record = {
		id: 'sandboxVoiceMessaging',
		name: 'Voice & Messaging sandbox',
		type: 'voiceMessagingApi',
		data: { baseUrl: 'http://127.0.0.1:4010' },
	};

	it('updates the credential earlier runs imported with its id, keeping its name', async () => {
		const { rest, calls } = fakeRest({
			'GET /rest/credentials': [
				{ id: 'sandboxVoiceMessaging', name: 'Renamed', type: record.type },
			],
			'PATCH /rest/credentials/sandboxVoiceMessaging': {},
		});
		assert.deepEqual(await upsertCredential(rest, record), {
			id: 'sandboxVoiceMessaging',
			created: false,
		});
		assert.deepEqual(calls[1], [
			'PATCH',
			'/rest/credentials/sandboxVoiceMessaging',
			{ name: 'Renamed', type: record.type, data: record.data },
		]);
	});

	it('finds it by name and type when n8n gave it another id, else creates it', async () => {
		const byName = fakeRest({
			'GET /rest/credentials': [
				{ id: 'other', name: record.name, type: 'openAiApi' },
				{ id: 'x1', name: record.name, type: record.type },
			],
			'PATCH /rest/credentials/x1': {},
		});
		assert.deepEqual(await upsertCredential(byName.rest, record), { id: 'x1', created: false });
		const none = fakeRest({
			'GET /rest/credentials': [],
			'POST /rest/credentials': { id: 'new1' },
		});
		assert.deepEqual(await upsertCredential(none.rest, record), { id: 'new1', created: true });
		assert.deepEqual(none.calls[1], [
			'POST',
			'/rest/credentials',
			{ name: record.name, type: record.type, data: record.data },
		]);
	});

	const workflow = (id) => ({
		id,
		name: `Example ${id}`,
		nodes: [
			{ name: 'Start', type: 'n8n-nodes-base.manualTrigger' },
			{
				name: 'Send',
				credentials: {
					voiceMessagingApi: { id: 'sandboxVoiceMessaging', name: record.name },
					httpHeaderAuth: { id: 'someoneElses', name: 'Header' },
				},
			},
		],
	});

	it('moves the credential references to the ids n8n gave, leaving the example as it was', () => {
		const example = workflow('w1');
		const moved = withCredentialIds(example, new Map([['sandboxVoiceMessaging', 'x1']]));
		assert.deepEqual(moved.nodes[1].credentials, {
			voiceMessagingApi: { id: 'x1', name: record.name },
			httpHeaderAuth: { id: 'someoneElses', name: 'Header' },
		});
		assert.deepEqual(moved.nodes[0], example.nodes[0]);
		assert.equal(example.nodes[1].credentials.voiceMessagingApi.id, 'sandboxVoiceMessaging');
	});

	it('imports only the examples n8n does not have; one it has is kept as it is', async () => {
		const { rest, calls } = fakeRest({
			'GET /rest/workflows/kept1': { id: 'kept1', active: true },
			'POST /rest/workflows': (body) => body,
		});
		const examples = [
			{ file: 'a.json', workflow: workflow('kept1') },
			{ file: 'b.json', workflow: workflow('new1') },
		];
		const ids = new Map([['sandboxVoiceMessaging', 'x1']]);
		assert.deepEqual(await importMissingExamples(rest, examples, ids), {
			imported: ['b.json'],
			kept: ['a.json'],
		});
		const posted = calls.filter(([method]) => method === 'POST');
		assert.equal(posted.length, 1);
		assert.equal(/** @type {any} */ (posted[0][2]).id, 'new1');
		assert.equal(/** @type {any} */ (posted[0][2]).nodes[1].credentials.voiceMessagingApi.id, 'x1');
		assert.ok(!calls.some(([method, path]) => method !== 'GET' && path.includes('kept1')));
	});

	it('fails on an answer other than "not found" instead of importing over the user’s version', async () => {
		const { rest, calls } = fakeRest({
			'GET /rest/workflows/w1': new Error('GET /rest/workflows/w1 → 500: database locked'),
		});
		await assert.rejects(
			importMissingExamples(rest, [{ file: 'a.json', workflow: workflow('w1') }], new Map()),
			/→ 500/,
		);
		assert.ok(!calls.some(([method]) => method === 'POST'));
	});
});

describe('the data table of the call follow-up example', () => {
	it('is created in the personal project when it is missing, and kept when it is there', async () => {
		const base = '/rest/projects/p1/data-tables';
		const missing = fakeRest({
			'GET /rest/projects/personal': { id: 'p1' },
			[`GET ${base}`]: { count: 1, data: [{ id: 't0', name: 'Other' }] },
			[`POST ${base}`]: { id: 't1' },
		});
		assert.deepEqual(await ensureDataTable(missing.rest, ANSWERED_CALLS_TABLE), {
			id: 't1',
			projectId: 'p1',
			created: true,
		});
		assert.deepEqual(missing.calls.at(-1), ['POST', base, ANSWERED_CALLS_TABLE]);
		const there = fakeRest({
			'GET /rest/projects/personal': { id: 'p1' },
			[`GET ${base}`]: { count: 1, data: [{ id: 't1', name: ANSWERED_CALLS_TABLE.name }] },
		});
		assert.deepEqual(await ensureDataTable(there.rest, ANSWERED_CALLS_TABLE), {
			id: 't1',
			projectId: 'p1',
			created: false,
		});
		assert.equal(there.calls.length, 2);
	});
});

describe('the banner names examples as the editor shows them', () => {
	it('reads each name from its file in examples/', () => {
		const examples = readExamples(join(ROOT, 'examples'));
		assert.ok(examples.length > 0);
		for (const file of Object.values(BANNER_EXAMPLES)) {
			const name = exampleName(examples, file);
			assert.equal(name, examples.find((example) => example.file === file)?.workflow.name);
			assert.ok(name.length > 0, file);
		}
		assert.throws(() => exampleName(examples, 'missing.json'), /no examples\/missing\.json/);
	});
});

describe("the MCP server example's address, as n8n has the workflow", () => {
	const base = 'http://127.0.0.1:5678';
	const mcpTrigger = (path, extra = {}) => ({
		name: 'Voice and Messaging',
		type: '@n8n/n8n-nodes-langchain.mcpTrigger',
		parameters: { path },
		...extra,
	});
	const tool = { name: 'Get balance', type: 'n8n-nodes-voice-messaging.voiceAiTool' };
	const address = (workflow) =>
		mcpServerAddress(fakeRest({ 'GET /rest/workflows/mcp1': workflow }).rest, base, 'mcp1');

	it('is the trigger path under /mcp/, published only when n8n has a published version', async () => {
		assert.deepEqual(
			await address({ active: false, activeVersionId: null, nodes: [tool, mcpTrigger('vm')] }),
			{ url: `${base}/mcp/vm`, published: false },
		);
		assert.deepEqual(
			await address({ active: true, activeVersionId: 'v1', nodes: [mcpTrigger('vm')] }),
			{ url: `${base}/mcp/vm`, published: true },
		);
		assert.deepEqual(
			await address({
				active: true,
				activeVersionId: 'v1',
				isArchived: true,
				nodes: [mcpTrigger('vm')],
			}),
			{ url: `${base}/mcp/vm`, published: false },
			'archived',
		);
	});

	it("takes the published version's path when the draft has another", async () => {
		assert.deepEqual(
			await address({
				activeVersionId: 'v1',
				activeVersion: { nodes: [mcpTrigger('published-path')] },
				nodes: [mcpTrigger('draft-path')],
			}),
			{ url: `${base}/mcp/published-path`, published: true },
		);
	});

	it('is none when n8n lacks the workflow, or it has no enabled trigger with a path', async () => {
		const missing = fakeRest({});
		assert.equal(await mcpServerAddress(missing.rest, base, 'mcp1'), undefined);
		assert.equal(await address({ nodes: [tool] }), undefined);
		assert.equal(await address({ nodes: [mcpTrigger('vm', { disabled: true })] }), undefined);
		assert.equal(await address({ nodes: [mcpTrigger('')] }), undefined);
		const broken = fakeRest({ 'GET /rest/workflows/mcp1': new Error('GET → 500: locked') });
		await assert.rejects(mcpServerAddress(broken.rest, base, 'mcp1'), /500/);
	});

	it('is watched: a change is said once, an unchanged one and a failed read are not', async () => {
		/** What n8n answers, read by the watch in turn. */
		const answers = [
			{ active: false, nodes: [mcpTrigger('vm')] },
			new Error('GET → 503: stopping'),
			{ active: true, nodes: [mcpTrigger('vm')] },
			{ active: true, nodes: [mcpTrigger('vm')] },
			{ active: true, nodes: [mcpTrigger('renamed')] },
		];
		let reads = 0;
		const { rest } = fakeRest({
			'GET /rest/workflows/mcp1': () => {
				const answer = answers[Math.min(reads++, answers.length - 1)];
				if (answer instanceof Error) throw answer;
				return answer;
			},
		});
		/** @type {unknown[]} */
		const said = [];
		const stop = watchMcpServer({
			rest,
			baseUrl: base,
			workflowId: 'mcp1',
			last: { url: `${base}/mcp/vm`, published: false },
			onChange: (changed) => said.push(changed),
			intervalMs: 5,
		});
		try {
			while (reads < answers.length + 1) await new Promise((resolve) => setTimeout(resolve, 5));
		} finally {
			stop();
		}
		assert.deepEqual(said, [
			{ url: `${base}/mcp/vm`, published: true },
			{ url: `${base}/mcp/renamed`, published: true },
		]);
		const count = reads;
		await new Promise((resolve) => setTimeout(resolve, 30));
		assert.equal(reads, count, 'no read once stopped');
	});
});

describe('a step of npm start says it is still going', () => {
	it('says what it does, then the time every interval until it is done', async () => {
		/** @type {string[]} */
		const lines = [];
		let release = () => {};
		const waiting = new Promise((resolve) => (release = resolve));
		const result = withProgress(
			'start      starting n8n',
			async () => {
				await waiting;
				return 42;
			},
			{
				intervalMs: 10,
				say: (line) => {
					lines.push(line);
					// Done only once a progress line was said, so no timing decides the test.
					if (lines.length === 2) release(undefined);
				},
			},
		);
		const { value, elapsed } = await result;
		assert.equal(value, 42);
		assert.equal(lines[0], 'start      starting n8n…');
		assert.match(lines[1], /^start {6}starting n8n… \d+ s$/);
		assert.match(elapsed, /^\d+\.\d s$/);
		const count = lines.length;
		await new Promise((resolve) => setTimeout(resolve, 50));
		assert.equal(lines.length, count, 'nothing more once done');
	});

	it('gives short steps in tenths of a second', () => {
		assert.equal(formatStepTime(40), '0.0 s');
		assert.equal(formatStepTime(1_260), '1.3 s');
		assert.equal(formatStepTime(17_400), '17 s');
		assert.equal(formatStepTime(75_000), '1 min 15 s');
	});
});
