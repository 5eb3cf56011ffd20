// What users install: the packed tarball holds only the built code, package.json, README and
// LICENSE, stays small, and declares no runtime dependency.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { after, describe, it } from 'node:test';

import { cleanupPack, packPackage } from './harness.mjs';

describe('the npm package', () => {
	after(() => cleanupPack());

	it('holds only dist, package.json, README and LICENSE, under 150 kB, with no dependencies', async () => {
		const tarball = await packPackage();
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
		const manifest = JSON.parse(
			execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }),
		);
		assert.deepEqual(manifest.dependencies ?? {}, {});
		assert.deepEqual(Object.keys(manifest.peerDependencies), ['n8n-workflow']);
		for (const entry of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) {
			assert.ok(files.includes(`package/${entry}`), `${entry} is registered but not packed`);
		}
	});
});
