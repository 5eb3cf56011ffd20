// The Node.js version the dev tools need is one fact: package.json "devEngines" (npm 11 reads
// devEngines.runtime; scripts/node24.mjs runs the scripts under it). The files that repeat it for
// their own tools (.nvmrc, the GitHub workflows, the Node that scripts/ensure-node.sh installs) must
// name the same major version; CONTRIBUTING.md's set-up line, the README's Develop section and
// docs/testing.md's Tested n8n versions table are held to it in test/unit/readme.test.mjs. "engines" is another fact: what the published package needs
// where n8n runs it (test/e2e/package/package.e2e.test.mjs checks it against n8n).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { devNodeMajor, n8nLineNodeRule, readRepoFile as read } from '../../support/unit.mjs';

const manifest = JSON.parse(read('package.json'));
const runtime = manifest.devEngines.runtime;
const required = devNodeMajor();

describe('the Node.js version the dev tools need', () => {
	it('is a plain minimum major version in package.json devEngines.runtime', () => {
		assert.equal(runtime.name, 'node');
		assert.ok(required > 0, `devEngines.runtime.version is ${runtime.version}`);
		// npm refuses `npm start` under an older Node when onFail is "error" (the default), and
		// "warn" prints its warning block twice for `npm start` and `npm test`: ignore, and let
		// scripts/node24.mjs say it in one line and run the script under the Node it needs.
		assert.equal(runtime.onFail, 'ignore');
	});

	it('is newer than the Node the published package asks for (engines), where n8n runs it', () => {
		const minimum = /^>=(\d+)\.(\d+)$/.exec(manifest.engines.node);
		assert.ok(minimum, `engines.node is ${manifest.engines.node}`);
		assert.ok(Number(minimum[1]) < required);
	});

	it('is the one .nvmrc names', () => {
		assert.equal(read('.nvmrc').trim(), String(required));
	});

	it('is the one each GitHub workflow sets up', () => {
		for (const file of ['ci.yml', 'publish.yml']) {
			const versions = [...read(`.github/workflows/${file}`).matchAll(/node-version: (\S+)/g)];
			assert.deepEqual(
				versions.map((match) => match[1]),
				[String(required)],
				file,
			);
		}
	});

	it('is the major version scripts/ensure-node.sh installs', () => {
		const installed = /NODE24_VERSION:-(\d+)\.\d+\.\d+\}/.exec(read('scripts/ensure-node.sh'));
		assert.equal(Number(installed?.[1]), required);
	});
});

describe('the Node.js each tested n8n line runs on', () => {
	const rule = n8nLineNodeRule();

	it('is one scripts/ensure-node.sh installs: 1.x on the older, 2.x on the dev tools’ Node', () => {
		assert.ok(rule, 'scripts/ensure-n8n.sh picks the Node by the n8n line');
		const [, line1, line2] = rule.map(Number);
		assert.equal(line2, required);
		assert.ok(line1 < required);
		const installed = new RegExp(`NODE${line1}_VERSION:-(\\d+)\\.\\d+\\.\\d+\\}`);
		assert.equal(Number(installed.exec(read('scripts/ensure-node.sh'))?.[1]), line1);
		assert.match(read('scripts/ensure-node.sh'), new RegExp(`\\n  ${line1}\\) version=`));
	});
});

describe('scripts/node24.mjs, the launcher of the scripts that need the dev tools’ Node', () => {
	const launcher = fileURLToPath(new URL('../../../scripts/node24.mjs', import.meta.url));
	const launch = (...args) =>
		spawnSync(process.execPath, [launcher, ...args], { encoding: 'utf8', timeout: 60_000 });

	it('starts npm start, the tests, the benchmarks and the screenshots', () => {
		for (const name of ['start', 'test', 'test:queue', 'bench', 'screenshots']) {
			assert.match(manifest.scripts[name], /(^| )node scripts\/node24\.mjs /, name);
		}
	});

	it('is npm start’s own process, so a signal to npm reaches it (npm passes it to its child)', () => {
		// Without exec, npm's child is `sh -c`, which keeps the signal to itself.
		assert.match(manifest.scripts.start, /^exec node scripts\/node24\.mjs /);
		assert.match(manifest.scripts.sandbox, /^exec node /);
	});

	it('passes Node options given before `--` to the script’s Node, and its arguments after', () => {
		const dir = mkdtempSync(join(tmpdir(), 'node24-launch-'));
		try {
			const script = join(dir, 'show.mjs');
			writeFileSync(
				script,
				'console.log(JSON.stringify([typeof globalThis.gc, process.argv.slice(2)]));\n',
			);
			const withOptions = launch('--expose-gc', '--', script, 'a', '--', 'b');
			assert.equal(withOptions.status, 0, withOptions.stderr);
			assert.deepEqual(JSON.parse(withOptions.stdout.trim().split('\n').pop()), [
				'function',
				['a', '--', 'b'],
			]);
			const plain = launch(script, '--', 'c');
			assert.deepEqual(JSON.parse(plain.stdout.trim().split('\n').pop()), [
				'undefined',
				['--', 'c'],
			]);
			assert.equal(launch('--expose-gc', script).status, 2, 'options without `--` are refused');
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
