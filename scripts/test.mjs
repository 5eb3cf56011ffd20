#!/usr/bin/env node
// Runs the test suites with node's own test runner; TypeScript sources load through tsx.
// Usage: node scripts/test.mjs [unit] [integration] [e2e]   (default: all three, in that order)
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const suites = process.argv.slice(2).length ? process.argv.slice(2) : ['unit', 'integration', 'e2e'];

function testFiles(dir) {
	let found = [];
	for (const name of readdirSync(dir).sort()) {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) found = found.concat(testFiles(path));
		else if (name.endsWith('.test.mjs')) found.push(relative(root, path));
	}
	return found;
}

let failed = false;
for (const suite of suites) {
	const files = testFiles(join(root, 'test', suite));
	if (files.length === 0) {
		console.error(`no test files in test/${suite}`);
		process.exit(1);
	}
	console.log(`\n# suite: ${suite} (${files.length} files)`);
	// e2e files share one n8n install and the machine's two cores: run them one at a time.
	const concurrency = suite === 'e2e' ? ['--test-concurrency=1'] : [];
	const result = spawnSync(
		process.execPath,
		['--import', 'tsx', '--test', ...concurrency, '--test-reporter=spec', ...files],
		{ cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
	);
	if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
