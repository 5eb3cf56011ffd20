// docs/api.md is the repository's account of the API, its one copy: the endpoints the package uses,
// the choices made where the provider's description is silent (what users read when their API
// answers otherwise), and the sandbox flags that answer otherwise. It is checked against the code,
// so it cannot drift.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

import { ALTERNATIVES } from '../../sandbox/alternatives.mjs';
import { ENDPOINTS } from '../../sandbox/server.mjs';

const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const apiDoc = read('docs/api.md');

/** The cells of a Markdown table's body rows, found by its header's first cell. */
function tableRows(markdown, firstHeader) {
	const lines = markdown.split('\n');
	const start = lines.findIndex((line) => new RegExp(`^\\|\\s*${firstHeader}\\s*\\|`).test(line));
	assert.notEqual(start, -1, `no table headed "${firstHeader}"`);
	const rows = [];
	for (const line of lines.slice(start + 2)) {
		if (!line.startsWith('|')) break;
		rows.push(
			line
				.slice(1, -1)
				.split(' | ')
				.map((cell) => cell.trim()),
		);
	}
	return rows;
}

describe('docs/api.md', () => {
	it('lists exactly the endpoints the sandbox implements, with their scopes', () => {
		const documented = tableRows(apiDoc, 'Method').map(([method, path, scope]) => ({
			method,
			path,
			scope: scope === '-' ? undefined : scope,
		}));
		const key = ({ method, path }) => `${method} ${path}`;
		assert.deepEqual(documented.map(key).sort(), ENDPOINTS.map(key).sort());
		for (const endpoint of ENDPOINTS) {
			const row = documented.find((entry) => key(entry) === key(endpoint));
			assert.equal(row?.scope, endpoint.scope, `scope of ${key(endpoint)}`);
		}
	});

	it('names every sandbox flag and every answer it can give', () => {
		for (const [option, { flag, default: fallback, values }] of Object.entries(ALTERNATIVES)) {
			assert.ok(apiDoc.includes(`--${flag}`), `docs/api.md does not name --${flag} (${option})`);
			for (const value of values ?? []) {
				if (value === fallback) continue;
				assert.ok(
					apiDoc.includes(`--${flag} ${value}`),
					`docs/api.md does not name --${flag} ${value}`,
				);
			}
		}
	});

	it('says for every choice what is assumed, what happens when the API differs, and which code owns it', () => {
		const choices = apiDoc.slice(
			apiDoc.indexOf('## The choices, and what happens when the API differs'),
			apiDoc.indexOf('## Tested against other answers'),
		);
		const entries = choices.split('\n### ').slice(1);
		assert.ok(entries.length >= 20, `only ${entries.length} choices read from docs/api.md`);
		for (const entry of entries) {
			const name = entry.slice(0, entry.indexOf('\n'));
			for (const field of ['Assumed', 'In full', 'Code', 'Sandbox']) {
				assert.match(entry, new RegExp(`^- \\*\\*${field}:\\*\\* \\S`, 'm'), `${name}: ${field}`);
			}
			// Only a choice that passes every answer through has nothing to say when the API differs.
			if (name !== 'Pass-through') {
				assert.match(
					entry,
					/^- \*\*When the API differs:\*\* \S/m,
					`${name}: When the API differs`,
				);
			}
			const code = /^- \*\*Code:\*\* (.*)$/m.exec(entry)[1];
			for (const [, path] of code.matchAll(/`([\w./-]+\/[\w./-]*)`/g)) {
				assert.ok(existsSync(new URL(`../../${path}`, import.meta.url)), `${name}: ${path} exists`);
			}
		}
	});

	it('is what the code cites: no file cites a document outside the repository', () => {
		const cited = /\b(decisions|integration-api)\.md\b|\.\.\/shared\/(api|conventions|n8n-e2e)/;
		const files = execFileSync('git', ['ls-files'], { encoding: 'utf8' })
			.split('\n')
			.filter((file) => /\.(ts|mjs|js|sh|json)$|README\.md$|^docs\//.test(file))
			.filter((file) => !file.endsWith('apiDoc.test.mjs') && !file.endsWith('package-lock.json'));
		assert.ok(files.length > 100, `only ${files.length} files read`);
		assert.deepEqual(
			files.filter((file) => cited.test(read(file))),
			[],
		);
	});
});
