#!/usr/bin/env node
// The entry of `npm start` and `npm test`: runs a script of this repository under the Node that
// package.json "engines" asks for, after installing the dev dependencies on a fresh clone.
// Started from an older Node (20 or newer), it runs itself again under the Node 24 that
// scripts/ensure-node.sh keeps in ~/.cache (installing it the first time), saying so in one line.
// Usage: node scripts/node24.mjs <script> [args…]
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants, homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { engines } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const required = Number(/\d+/.exec(engines.node)?.[0]);
const current = Number(process.versions.node.split('.')[0]);
const [script, ...args] = process.argv.slice(2);
if (!script) {
	console.error('usage: node scripts/node24.mjs <script> [args…]');
	process.exit(2);
}

/** The bin folder of the cached Node 24 (scripts/ensure-node.sh installs it the first time). */
function cachedNodeBin() {
	const found = spawnSync('bash', [join(root, 'scripts/ensure-node.sh')], {
		stdio: ['ignore', 'pipe', 'inherit'],
		encoding: 'utf8',
	});
	if (found.status !== 0) process.exit(found.status ?? 1);
	return found.stdout.trim().split('\n').pop();
}

/** Runs this launcher again under the cached Node; exits with the child's status. */
function rerunUnderCachedNode() {
	const bin = cachedNodeBin();
	const shown = bin.startsWith(homedir()) ? `~${bin.slice(homedir().length)}` : bin;
	console.log(
		`Node ${process.versions.node} here; the dev tools need Node ${required}+: running under ${shown}/node`,
	);
	const child = spawn(join(bin, 'node'), [fileURLToPath(import.meta.url), script, ...args], {
		stdio: 'inherit',
		// npm and every node the script starts resolve to the same Node.
		env: { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` },
	});
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
		process.on(signal, () => child.kill(signal));
	child.on('exit', (code, signal) =>
		process.exit(code ?? 128 + (signal ? constants.signals[signal] : 1)),
	);
}

if (current < required) {
	rerunUnderCachedNode();
} else {
	const { ensureDeps } = await import('./ensure-deps.mjs');
	await ensureDeps().catch((/** @type {Error} */ error) => {
		console.error(error.message);
		process.exit(1);
	});
	const path = resolve(root, script);
	process.argv = [process.argv[0], path, ...args];
	await import(pathToFileURL(path).href);
}
