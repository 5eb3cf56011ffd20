// The Node.js version the dev tools need is one fact: package.json "engines". The files that
// repeat it for their own tools (.nvmrc, the GitHub workflows, the Node that
// scripts/ensure-node.sh installs, the README's set-up line) must name the same major version.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const engines = JSON.parse(read('package.json')).engines.node;
const required = Number(/^>=(\d+)$/.exec(engines)?.[1]);

describe('the Node.js version the dev tools need', () => {
	it('is a plain minimum major version in package.json engines', () => {
		assert.ok(required > 0, `engines.node is ${engines}`);
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
