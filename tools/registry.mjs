// An npm registry on loopback for the publishing test: verdaccio (installed once into the cache
// folder by scripts/ensure-verdaccio.sh), with its storage in a temporary folder and no uplink, so
// it serves only what was published to it and never asks another registry.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import {
	freePort,
	makeTempDir,
	removeDir,
	runSetupScript,
	sleep,
	trackChild,
} from './processes.mjs';

/** The folder verdaccio is installed in (installed the first time). */
export async function ensureVerdaccio() {
	return (await runSetupScript('ensure-verdaccio.sh')).split('\n').pop();
}

/**
 * verdaccio's configuration: packages stored in `storage`, users in an htpasswd file beside it;
 * anyone may read, only a logged-in user may publish; no uplinks (nothing is proxied), no web UI.
 * @param {string} folder
 */
export function registryConfig(folder) {
	return [
		`storage: ${JSON.stringify(join(folder, 'storage'))}`,
		'auth:',
		'  htpasswd:',
		`    file: ${JSON.stringify(join(folder, 'htpasswd'))}`,
		'    max_users: 10',
		'uplinks: {}',
		'packages:',
		"  '**':",
		'    access: $all',
		'    publish: $authenticated',
		'    unpublish: $authenticated',
		'web:',
		'  enable: false',
		'log: { type: stdout, format: json, level: warn }',
		'',
	].join('\n');
}

/**
 * Starts verdaccio on a free loopback port with empty storage and waits until it answers.
 * Resolves to `url` (with a trailing slash, as npm writes registries), `addUser(name, password)`
 * (creates the user and resolves to its token), `packument(name)` (the registry's document of a
 * package, or undefined), `output()` and `stop()` (stops it and removes its storage).
 */
export async function startRegistry() {
	const home = await ensureVerdaccio();
	const folder = makeTempDir('voice-messaging-registry-');
	const config = join(folder, 'config.yaml');
	writeFileSync(config, registryConfig(folder));
	const port = await freePort();
	const url = `http://127.0.0.1:${port}/`;
	const child = spawn(
		process.execPath,
		[
			join(home, 'node_modules/verdaccio/bin/verdaccio'),
			'--config',
			config,
			'--listen',
			`127.0.0.1:${port}`,
		],
		{ cwd: folder, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } },
	);
	trackChild(child);
	let output = '';
	child.stdout.on('data', (chunk) => (output += chunk));
	child.stderr.on('data', (chunk) => (output += chunk));
	/** @type {number | null | undefined} */
	let exitCode;
	const exited = new Promise((resolve) => {
		child.on('exit', (code) => resolve((exitCode = code)));
		child.on('error', (error) => {
			output += `\n${error.message}`;
			resolve((exitCode = -1));
		});
	});

	const stop = async () => {
		if (exitCode === undefined) {
			child.kill('SIGTERM');
			const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
			await exited;
			clearTimeout(timer);
		}
		removeDir(folder);
	};

	const deadline = Date.now() + 60_000;
	for (;;) {
		if (exitCode !== undefined) {
			await stop();
			throw new Error(`verdaccio exited with ${exitCode}:\n${output.slice(-4000)}`);
		}
		try {
			if ((await fetch(`${url}-/ping`)).ok) break;
		} catch {
			// not listening yet
		}
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`verdaccio did not answer within 60 s:\n${output.slice(-4000)}`);
		}
		await sleep(250);
	}

	return {
		url,
		/** @param {string} name @param {string} password */
		async addUser(name, password) {
			const response = await fetch(`${url}-/user/org.couchdb.user:${encodeURIComponent(name)}`, {
				method: 'PUT',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ name, password }),
			});
			const body = await response.json();
			if (response.status !== 201 || !body.token) {
				throw new Error(`adding user ${name} → ${response.status}: ${JSON.stringify(body)}`);
			}
			return /** @type {string} */ (body.token);
		},
		/** @param {string} name */
		async packument(name) {
			const response = await fetch(`${url}${encodeURIComponent(name)}`);
			if (response.status === 404) return undefined;
			if (!response.ok)
				throw new Error(`GET ${name} → ${response.status}: ${await response.text()}`);
			return response.json();
		},
		output: () => output,
		stop,
	};
}
