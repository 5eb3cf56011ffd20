// A fresh clone installs with a plain `npm ci`, and `npm publish` still runs `prepublishOnly`.
// @n8n/node-cli brings eslint-plugin-n8n-nodes-base, whose `preinstall` is `npx only-allow pnpm`:
// wherever npx may not fetch a package (npx told no, or no network) it fails the whole install.
// Under Node 22, isolated-vm (n8n-workflow's expression runtime, built for Node 24 only) fails it
// too: its `install` compiles the addon, with Node's headers from nodejs.org. package.json's
// `allowScripts` (npm 11.16 and later) declines these and the other dependencies' install scripts,
// none of which the project needs (CI installs with --ignore-scripts); the project's own scripts
// still run (a committed `.npmrc` with ignore-scripts=true once fixed the install and let a plain
// `npm publish` through).
//
// One install, `npm ci` under Node 22, where both causes fail it (Node 24 has isolated-vm's
// prebuilt addon; `npm install` declines the same scripts): a full install of the dev tools takes
// one to three minutes here. It runs in a copy of the package files, offline from npm's cache
// (tests do not reach the public registry; CI's own `npm ci` has filled it), with an empty npx
// cache and npx told not to fetch, as on a machine where npx cannot.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';

import { ROOT, makeTempDir, removeDir, run, runSetupScript } from '../../../tools/processes.mjs';

const npmVersion = (await run('npm', ['--version'])).stdout.trim();
const [npmMajor, npmMinor] = npmVersion.split('.').map(Number);
/** npm reads package.json's allowScripts from 11.16 on; an older one runs every install script. */
const readsAllowScripts = npmMajor > 11 || (npmMajor === 11 && npmMinor >= 16);
const npmCache = (await run('npm', ['config', 'get', 'cache'])).stdout.trim();

/**
 * A folder holding a clone's package files (and `.npmrc`, when the repository has one), and the
 * environment npm runs with there: `nodeBin` first on PATH, offline, a cache whose packages are
 * npm's own but whose npx cache is empty, npx told not to fetch, nothing from a calling npm.
 * @param {string} nodeBin
 */
function freshClone(nodeBin) {
	const folder = makeTempDir('voice-messaging-install-');
	const checkout = join(folder, 'checkout');
	mkdirSync(checkout);
	for (const file of ['package.json', 'package-lock.json', '.npmrc']) {
		if (existsSync(join(ROOT, file))) copyFileSync(join(ROOT, file), join(checkout, file));
	}
	const cache = join(folder, 'cache');
	mkdirSync(cache);
	symlinkSync(join(npmCache, '_cacache'), join(cache, '_cacache'));
	const env = Object.fromEntries(
		Object.entries(process.env).filter(([key]) => !/^(npm_|init_cwd$)/i.test(key)),
	);
	Object.assign(env, {
		PATH: `${nodeBin}${delimiter}${process.env.PATH ?? ''}`,
		npm_config_cache: cache,
		npm_config_offline: 'true',
		npm_config_yes: 'false',
		npm_config_audit: 'false',
		npm_config_fund: 'false',
		npm_config_update_notifier: 'false',
	});
	return { folder, checkout, env };
}

describe('a fresh clone, installed with plain npm', () => {
	it(
		'npm ci under Node 22 installs the dev tools; a plain npm publish is still refused',
		{ skip: !readsAllowScripts && `npm ${npmVersion} does not read allowScripts (11.16 on do)` },
		async () => {
			const node22 = (await runSetupScript('ensure-node.sh', '22')).split('\n').at(-1);
			const { folder, checkout, env } = freshClone(node22);
			try {
				assert.match((await run('node', ['--version'], { env })).stdout, /^v22\./);
				await run('npm', ['ci'], { cwd: checkout, env, timeoutMs: 600_000 });
				assert.ok(existsSync(join(checkout, 'node_modules/.bin/n8n-node')), 'n8n-node installed');
				assert.ok(existsSync(join(checkout, 'node_modules/eslint-plugin-n8n-nodes-base')));
				await assert.rejects(
					run('npm', ['publish', '--dry-run'], { cwd: checkout, env, timeoutMs: 120_000 }),
					(error) => {
						assert.match(
							`${error.stdout}${error.stderr}`,
							/Run `npm run release` to publish the package/,
						);
						return true;
					},
				);
			} finally {
				removeDir(folder);
			}
		},
	);
});
