// Installs the dev dependencies when they are missing, so `npm start` and `npm test` are each one
// command on a fresh clone (scripts/node24.mjs calls this under Node 24). Dependencies' install
// scripts are skipped, as package.json's allowScripts asks (none is needed; one fetches a package
// with npx, one builds native code): --ignore-scripts does the same with an npm older than 11.16.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { runWithProgress } from './progress.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const needed = ['tsx', '@n8n/node-cli', 'busboy', 'n8n-workflow', 'playwright-core'];

/** Installs the dev dependencies if one of `needed` is missing; throws when npm fails. */
export async function ensureDeps() {
	const missing = needed.filter(
		(name) => !existsSync(new URL(`../node_modules/${name}/package.json`, import.meta.url)),
	);
	if (missing.length === 0) return;
	// A fresh clone installs exactly the lock file; a partial node_modules is completed in place.
	const fresh = !existsSync(new URL('../node_modules', import.meta.url));
	const args = fresh ? ['ci'] : ['install', '--no-save'];
	const code = await runWithProgress(
		`installing the dev dependencies (npm ${args[0]})`,
		'npm',
		[...args, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=http'],
		{ cwd: root, size: join(root, 'node_modules') },
	);
	if (code !== 0) throw new Error(`npm ${args[0]} failed (exit ${code})`);
}
