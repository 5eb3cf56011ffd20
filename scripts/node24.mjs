#!/usr/bin/env node
// The entry of `npm start`, `npm test`, `npm run bench` and `npm run screenshots`: runs a script of
// this repository under the Node that the dev tools need (package.json "devEngines"; "engines" is
// what the published package needs), after installing the dev dependencies on a fresh clone.
// Started from an older Node (20 or newer), it runs itself again under the Node 24 that
// scripts/ensure-node.sh keeps in ~/.cache (installing it the first time), saying so in one line.
// Usage: node scripts/node24.mjs [node options… --] <script> [args…]
//   Node options (e.g. --expose-gc, --import tsx, --test), ended by `--`, start the script in a
//   Node of its own with those options; without them the script runs in this process.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants, homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { devEngines } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const required = Number(/\d+/.exec(devEngines.runtime.version)?.[0]);
const current = Number(process.versions.node.split('.')[0]);
const launch = process.argv.slice(2);
// Node options come first and end at `--`; a script's own arguments may hold `--` too.
const withOptions = launch[0]?.startsWith('-') ?? false;
const end = withOptions ? launch.indexOf('--') : -1;
const nodeOptions = end === -1 ? [] : launch.slice(0, end);
const [script, ...args] = launch.slice(end + 1);
if (!script || (withOptions && end === -1)) {
	console.error('usage: node scripts/node24.mjs [node options… --] <script> [args…]');
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

/**
 * Runs `node` with `argv` as a child that shares this terminal, passes signals on to it and exits
 * with its status.
 * @param {string} node @param {string[]} argv @param {NodeJS.ProcessEnv} [env]
 */
function runAndExit(node, argv, env = process.env) {
	const child = spawn(node, argv, { stdio: 'inherit', env });
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
		process.on(signal, () => child.kill(signal));
	child.on('exit', (code, signal) =>
		process.exit(code ?? 128 + (signal ? constants.signals[signal] : 1)),
	);
}

/** Runs this launcher again, with the same arguments, under the cached Node. */
function rerunUnderCachedNode() {
	const bin = cachedNodeBin();
	const shown = bin.startsWith(homedir()) ? `~${bin.slice(homedir().length)}` : bin;
	console.log(
		`Node ${process.versions.node} here; the dev tools need Node ${required}+: running under ${shown}/node`,
	);
	// npm and every node the script starts resolve to the same Node.
	const env = { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` };
	runAndExit(join(bin, 'node'), [fileURLToPath(import.meta.url), ...launch], env);
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
	if (nodeOptions.length > 0) {
		runAndExit(process.execPath, [...nodeOptions, path, ...args]);
	} else {
		process.argv = [process.argv[0], path, ...args];
		await import(pathToFileURL(path).href);
	}
}
