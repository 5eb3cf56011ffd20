// What the README (and sandbox/README.md) says that the code and the repository's files can hold
// it to: the upload types, Send and Wait for Response, the pacing rule, the sandbox's alternative
// answers, and the Node.js versions; and that CONTRIBUTING.md's map matches the repository. A
// change to one side without the other fails here.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { Messenger } from '../../nodes/Messenger/Messenger.node.ts';
import {
	ALLOWED_UPLOAD_MIME_PREFIXES,
	UPLOAD_DOCUMENT_EXTENSIONS,
} from '../../nodes/Messenger/actions/message/media.ts';
import { DEFAULT_LABELS } from '../../nodes/Messenger/sendAndWait/properties.ts';
import { ADAPTIVE_RULE } from '../../nodes/shared/pacing.ts';
import { ALTERNATIVES } from '../../sandbox/alternatives.mjs';
import { devNodeMajor, n8nLineNodeRule, readRepoFile } from '../support/unit.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const README = readRepoFile('README.md');
const messenger = new Messenger();

describe('the README lists the upload types the node allows', () => {
	it('names every allowed type, and no other, in the Send Media File paragraph', () => {
		const paragraph = /\*\*Send Media File\*\* uploads[^]*?stops the item/.exec(README)?.[0];
		assert.ok(paragraph, 'the README has the Send Media File paragraph');
		const named = new Set([...paragraph.matchAll(/`([^`]+)`/g)].map((match) => match[1]));
		const prefixes = [...named].filter((token) => token.endsWith('/*'));
		const extensions = [...named].filter((token) => token.startsWith('.'));
		assert.deepEqual(
			prefixes.map((token) => token.slice(0, -1)).sort(),
			[...ALLOWED_UPLOAD_MIME_PREFIXES].sort(),
		);
		assert.deepEqual(extensions.sort(), Object.values(UPLOAD_DOCUMENT_EXTENSIONS).sort());
	});
});

describe('the README describes Send and Wait for Response as the node has it', () => {
	it('names every response type and form field type, and the default link label', () => {
		const section = /### Send and Wait for Response\n([^]*?)\n### /.exec(README)?.[1];
		assert.ok(section, 'the README has the section');
		const own = messenger.description.properties.filter((p) =>
			p.displayOptions?.show?.operation?.includes('sendAndWait'),
		);
		const names = (parameter) =>
			own.find((p) => p.name === parameter).options.map((o) => o.name.toLowerCase());
		for (const name of names('responseType')) assert.ok(section.toLowerCase().includes(name), name);
		const fieldTypes = own
			.find((p) => p.name === 'formFields')
			.options[0].values.find((v) => v.name === 'fieldType')
			.options.map((o) => o.name.toLowerCase());
		assert.equal(fieldTypes.length, 6);
		for (const type of fieldTypes) assert.ok(section.toLowerCase().includes(type), type);
		assert.ok(section.includes(`\`${DEFAULT_LABELS.link}: https://…\``));
	});
});

describe('the README states the pacing rule', () => {
	it("states the adaptive rule's numbers as the pacer has them", () => {
		const oneLine = README.replace(/\s+/g, ' ');
		const { cutShare, steadyWindows, pauseJitterShare } = ADAPTIVE_RULE;
		const words = { 1: 'one', 2: 'two', 3: 'three' };
		for (const phrase of [
			`cuts its rate to ${cutShare.min * 100}–${cutShare.max * 100} % of what it sent in the last window`,
			`by one request a window for ${words[steadyWindows]} windows`,
			`a cut drawn from ${cutShare.min * 100}–${cutShare.max * 100} %, pauses spread by up to ${pauseJitterShare * 100} %`,
		]) {
			assert.ok(oneLine.includes(phrase), `README: "${phrase}"`);
		}
	});
});

describe('the README and the sandbox README list every alternative the sandbox offers', () => {
	it('each flag with its values, and the README table of tested outcomes names each flag', () => {
		const tested = README.slice(README.indexOf('### Tested against other answers'));
		const sandboxReadme = readRepoFile('sandbox/README.md');
		for (const [option, spec] of Object.entries(ALTERNATIVES)) {
			assert.ok(sandboxReadme.includes(`\`${option}\` (\`--${spec.flag}\`)`), option);
			for (const value of spec.values ?? []) {
				assert.ok(sandboxReadme.includes(`\`${value}\``), `${option}: ${value}`);
			}
			if (option === 'opaqueToken' || option === 'ignoreStatusFilter') {
				assert.ok(tested.includes(`\`--${spec.flag}`), option);
				continue;
			}
			for (const value of spec.values ?? [20]) {
				if (value === spec.default) continue;
				assert.ok(tested.includes(`--${spec.flag} ${value}`), `${option} ${value}`);
			}
		}
	});
});

describe('the README names the Node.js versions', () => {
	const required = devNodeMajor();
	const rule = n8nLineNodeRule();

	it('is the one the README names for a fresh clone', () => {
		const setUp = /On a fresh clone[^]*?Node\.js (\d+)/.exec(README);
		assert.equal(Number(setUp?.[1]), required);
	});

	it('is the one the README’s Tested n8n versions table names per line', () => {
		const rows = [...README.matchAll(/^\| (\d+)\.[\d.]+ +\| (\d+) +\|/gm)];
		assert.deepEqual(
			rows.map(([, major, node]) => [major, Number(node)]),
			[
				['2', rule?.[2] && Number(rule[2])],
				['1', rule?.[1] && Number(rule[1])],
			],
		);
	});
});

describe('CONTRIBUTING.md maps the repository as it is', () => {
	const CONTRIBUTING = readRepoFile('CONTRIBUTING.md');
	const layout = /## Layout\n+```\n([^]*?)```/.exec(CONTRIBUTING)?.[1] ?? '';

	it('names every top-level folder and test/ folder, and only ones that exist', () => {
		const named = [...layout.matchAll(/^(\S+\/)/gm)].map((match) => match[1]);
		assert.ok(named.length > 10, 'the Layout block lists the folders');
		for (const folder of named) assert.ok(existsSync(join(root, folder)), `${folder} exists`);
		const tracked = (dir) =>
			readdirSync(join(root, dir), { withFileTypes: true })
				.filter((entry) => entry.isDirectory() && !/^(\.|node_modules$|dist$)/.test(entry.name))
				.map((entry) => `${dir}${entry.name}/`);
		for (const folder of [...tracked(''), ...tracked('test/')]) {
			if (folder === 'nodes/' || folder === 'test/') continue;
			assert.ok(named.includes(folder), `CONTRIBUTING.md's Layout names ${folder}`);
		}
	});

	it('cites only files that exist', () => {
		const cited = [...CONTRIBUTING.matchAll(/`((?:[\w.-]+\/)+[\w.-]+\.\w+)`/g)]
			.map((match) => match[1])
			.filter((path) => !path.includes('<'));
		assert.ok(cited.length > 10, 'the guide cites files');
		for (const path of cited) {
			const candidates = [path, `nodes/${path}`, `nodes/shared/${path}`, `nodes/VoiceAi/${path}`];
			assert.ok(
				candidates.some((candidate) => existsSync(join(root, candidate))),
				`${path} exists`,
			);
		}
	});
});
