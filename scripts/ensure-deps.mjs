#!/usr/bin/env node
// Runs before `npm start` and `npm test`: on a fresh clone it installs the dev dependencies first,
// so each of those is one command. Install scripts are skipped: some dev tools' scripts need
// pnpm or a native build, and none is needed here.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const needed = ['tsx', '@n8n/node-cli', 'busboy', 'n8n-workflow', 'playwright-core'];
const missing = needed.filter(
	(name) => !existsSync(new URL(`../node_modules/${name}/package.json`, import.meta.url)),
);
if (missing.length > 0) {
	// A fresh clone installs exactly the lock file; a partial node_modules is completed in place.
	const fresh = !existsSync(new URL('../node_modules', import.meta.url));
	const args = fresh ? ['ci'] : ['install', '--no-save'];
	console.log(`installing dev dependencies with npm ${args[0]} (missing: ${missing.join(', ')})…`);
	const result = spawnSync('npm', [...args, '--ignore-scripts', '--no-audit', '--no-fund'], {
		cwd: root,
		stdio: 'inherit',
	});
	process.exit(result.status ?? 1);
}
