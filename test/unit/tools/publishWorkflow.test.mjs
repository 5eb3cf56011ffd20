// The publish workflow publishes the way n8n's node CLI intends: a version tag's push runs
// `npm run release` (n8n-node release), which under GitHub Actions lints, builds and runs
// `npm publish` with provenance; a plain `npm publish` stops in prepublishOnly (n8n-node
// prerelease). test/e2e/package/publish.e2e.test.mjs runs these steps against a registry; this
// file holds their shape and what the node CLI does under GitHub Actions, in a second or two.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { WORKFLOW, workflowStep } from '../../e2e/package/publishSteps.mjs';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const yaml = readFileSync(WORKFLOW, 'utf8');

describe('the publish workflow', () => {
	it('runs on a version tag, may sign provenance, and publishes only through npm run release', () => {
		assert.match(yaml, /\n {2}push:\n {4}tags:\n {6}- '\*\.\*\.\*'\n/);
		assert.match(yaml, /\n {6}id-token: write\b/);
		assert.equal(manifest.scripts.release, 'n8n-node release');
		assert.equal(manifest.scripts.prepublishOnly, 'n8n-node prerelease');
		const steps = [...yaml.matchAll(/\n {6}- (?:name|uses): (.+)/g)].map((match) => match[1]);
		assert.deepEqual(steps, [
			'actions/checkout@v4',
			'Set up Node.js',
			'Install',
			'Check the tag',
			'Release',
		]);
		assert.equal(
			workflowStep(yaml, 'Install').run,
			'npm ci --ignore-scripts --no-audit --no-fund\n',
		);
		const release = workflowStep(yaml, 'Release');
		assert.match(release.run, /\nnpm run release\n$/);
		assert.deepEqual(release.env, {
			NPM_TOKEN: '${{ secrets.NPM_TOKEN }}',
			NPM_CONFIG_ACCESS: 'public',
		});
		assert.doesNotMatch(yaml.replace(/^\s*#.*$/gm, ''), /npm publish/);
	});

	it('n8n-node release, under GitHub Actions, lints, builds and publishes with provenance', () => {
		// npm is a stand-in that writes down each call with what release mode and provenance it got.
		const folder = mkdtempSync(join(tmpdir(), 'voice-messaging-release-'));
		try {
			const calls = join(folder, 'calls.txt');
			writeFileSync(
				join(folder, 'npm'),
				`#!/usr/bin/env bash\necho "$* RELEASE_MODE=$RELEASE_MODE NPM_CONFIG_PROVENANCE=$NPM_CONFIG_PROVENANCE" >>"${calls}"\n`,
			);
			chmodSync(join(folder, 'npm'), 0o755);
			writeFileSync(join(folder, 'package-lock.json'), '{}');
			const env = Object.fromEntries(
				Object.entries(process.env).filter(([key]) => !/^(npm_|github_)/i.test(key)),
			);
			const cli = spawnSync(join(root, 'node_modules/.bin/n8n-node'), ['release'], {
				cwd: folder,
				encoding: 'utf8',
				timeout: 60_000,
				env: { ...env, GITHUB_ACTIONS: 'true', PATH: `${folder}${delimiter}${process.env.PATH}` },
			});
			assert.equal(cli.status, 0, `${cli.stdout}${cli.stderr}`);
			assert.deepEqual(readFileSync(calls, 'utf8').trim().split('\n'), [
				'run lint RELEASE_MODE= NPM_CONFIG_PROVENANCE=',
				'run build RELEASE_MODE= NPM_CONFIG_PROVENANCE=',
				'publish RELEASE_MODE=true NPM_CONFIG_PROVENANCE=true',
			]);
		} finally {
			rmSync(folder, { recursive: true, force: true });
		}
	});
});
