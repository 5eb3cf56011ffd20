// What users install: the packed tarball holds only the built code, package.json, README and
// LICENSE, stays small, and declares no runtime dependency. Its "engines" is what n8n's own
// Node needs: installed into each tested n8n line's .n8n/nodes under the Node that line runs on
// here (scripts/ensure-n8n.sh), npm prints no engine warning, and the minimum it names is the
// oldest Node those n8n versions allow (their own "engines"), not the dev tools' Node.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

import {
	DEFAULT_N8N_VERSION,
	N8N_1_VERSION,
	cleanupTarball,
	createN8nInstance,
	packedTarball,
} from '../harness.mjs';

/** The package.json inside the tarball. @param {string} tarball */
const packedManifest = (tarball) =>
	JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }));

describe('the npm package', () => {
	after(() => cleanupTarball());

	it('holds only dist, package.json, README and LICENSE, under 150 kB, with no dependencies', async () => {
		const tarball = await packedTarball();
		const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
		const outside = files.filter(
			(f) => !/^package\/(dist\/|package\.json$|README\.md$|LICENSE$)/.test(f),
		);
		assert.deepEqual(outside, []);
		assert.ok(files.includes('package/dist/nodes/VoiceAi/VoiceAi.node.js'));
		assert.ok(files.includes('package/dist/credentials/VoiceMessagingApi.credentials.js'));
		assert.deepEqual(
			files.filter((f) => /\.(map|png|tsbuildinfo)$/.test(f)),
			[],
		);
		assert.ok(statSync(tarball).size < 150_000, `${statSync(tarball).size} bytes`);
		const manifest = packedManifest(tarball);
		assert.deepEqual(manifest.dependencies ?? {}, {});
		// n8n-workflow, and the AI SDK for the chat memory (n8n 2.x brings it; n8n strips peers at install).
		assert.deepEqual(manifest.peerDependencies, { '@n8n/ai-node-sdk': '*', 'n8n-workflow': '*' });
		assert.ok(
			Number.isInteger(manifest.n8n.aiNodeSdkVersion),
			'n8n.aiNodeSdkVersion is an integer',
		);
		for (const entry of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) {
			assert.ok(files.includes(`package/${entry}`), `${entry} is registered but not packed`);
		}
	});

	/** Per tested n8n line: the Node it runs on here and the Node range n8n itself allows. */
	const lines = [];
	for (const version of [DEFAULT_N8N_VERSION, N8N_1_VERSION]) {
		it(`installs into n8n ${version} under the Node it runs on, with no engine warning`, async () => {
			const tarball = await packedTarball();
			const instance = await createN8nInstance({ version, tarball });
			try {
				const node = execFileSync(join(instance.nodeBinDir, 'node'), ['--version'], {
					encoding: 'utf8',
				}).trim();
				const n8nManifest = join(instance.n8nDir, 'node_modules', 'n8n', 'package.json');
				const semver = createRequire(n8nManifest)('semver');
				const allowed = JSON.parse(readFileSync(n8nManifest, 'utf8')).engines.node;
				lines.push({ version, node, allowed, semver });
				assert.ok(semver.satisfies(node, allowed), `n8n ${version} allows ${allowed}, not ${node}`);
				assert.doesNotMatch(instance.installOutput, /EBADENGINE|Unsupported engine/);
				assert.ok(semver.satisfies(node, packedManifest(tarball).engines.node), node);
			} finally {
				await instance.cleanup();
			}
		});
	}

	it('asks for the oldest Node that the tested n8n versions allow, as its engines', async () => {
		assert.equal(lines.length, 2, 'the install tests above ran');
		const { semver } = lines[0];
		const oldest = lines
			.map(({ allowed }) => semver.minVersion(allowed).version)
			.sort(semver.compare)[0];
		const { engines } = packedManifest(await packedTarball());
		assert.equal(semver.minVersion(engines.node).version, oldest, JSON.stringify(lines));
	});
});
