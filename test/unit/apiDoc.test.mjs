// docs/api.md is the repository's account of the API: the endpoints the package uses, the choices made
// where the provider's description is silent, and the sandbox flags that answer otherwise. The README's
// "Assumptions about the API" table is the users' short version of it. Each is checked against the
// other and against the code, so neither can drift.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

import { ALTERNATIVES } from '../../sandbox/alternatives.mjs';
import { ENDPOINTS } from '../../sandbox/server.mjs';

const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const apiDoc = read('docs/api.md');
const readme = read('README.md');

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

	it("has one entry for every row of the README's assumptions table, in the README's words", () => {
		const section = readme.slice(readme.indexOf('## Assumptions about the API'));
		const rows = tableRows(section, 'Assumption');
		const entries = [...apiDoc.matchAll(/^- \*\*Assumed:\*\* (.*)$/gm)].map((match) => match[1]);
		assert.ok(rows.length >= 20, `only ${rows.length} assumption rows read from the README`);
		assert.deepEqual(
			entries,
			rows.map(([assumption]) => assumption),
		);
		for (const [assumption, differs] of rows) {
			if (!differs) continue;
			assert.ok(
				apiDoc.includes(`- **When the API differs:** ${differs}`),
				`docs/api.md's entry "${assumption.slice(0, 60)}…" does not say what the README says happens`,
			);
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
