// The Node.js version the dev tools need is one fact: package.json "devEngines" (npm 11 reads
// devEngines.runtime; scripts/node24.mjs runs the scripts under it). The files that repeat it for
// their own tools (.nvmrc, the GitHub workflows, the Node that scripts/ensure-node.sh installs, the
// README's set-up line) must name the same major version. "engines" is another fact: what the
// published package needs where n8n runs it (test/e2e/package.e2e.test.mjs checks it against n8n).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const manifest = JSON.parse(read('package.json'));
const runtime = manifest.devEngines.runtime;
const required = Number(/^>=(\d+)$/.exec(runtime.version)?.[1]);

describe('the Node.js version the dev tools need', () => {
	it('is a plain minimum major version in package.json devEngines.runtime', () => {
		assert.equal(runtime.name, 'node');
		assert.ok(required > 0, `devEngines.runtime.version is ${runtime.version}`);
		// npm refuses `npm start` under an older Node when onFail is "error" (the default): warn,
		// and let scripts/node24.mjs run the script under the Node it needs.
		assert.equal(runtime.onFail, 'warn');
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

	it('is the one the README names for a fresh clone', () => {
		const setUp = /On a fresh clone[^]*?Node\.js (\d+)/.exec(read('README.md'));
		assert.equal(Number(setUp?.[1]), required);
	});
});
