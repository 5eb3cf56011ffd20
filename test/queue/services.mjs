// PostgreSQL and Redis for the queue-mode suite: Debian's packages (scripts/ensure-queue-services.sh
// installs them when missing), each server started on a free loopback port with its data in a
// temporary folder, and stopped (folder removed) by the suite.
import { execFile, spawn } from 'node:child_process';
import { chownSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';

import {
	freePort,
	makeTempDir,
	removeDir,
	run,
	runSetupScript,
	sleep,
	trackChild,
} from '../../tools/processes.mjs';

/** Paths of redis-server and of PostgreSQL's bin folder, installing them on first use. */
export async function ensureQueueServices() {
	const stdout = await runSetupScript('ensure-queue-services.sh');
	const found = Object.fromEntries(
		stdout
			.trim()
			.split('\n')
			.map((line) => line.split('='))
			.filter(([key, value]) => key && value),
	);
	if (!found.redis || !found.postgres) {
		throw new Error(`scripts/ensure-queue-services.sh printed no paths:\n${stdout}`);
	}
	return { redisServer: found.redis, postgresBin: found.postgres };
}

/**
 * Spawns a server; resolves once `isReady(output so far)` holds, rejects when it exits first.
 * @param {string} command @param {string[]} args
 * @param {{ name: string, isReady: (output: string) => Promise<boolean> | boolean, timeoutMs?: number, stopSignal?: NodeJS.Signals, user?: { uid?: number, gid?: number } }} options
 */
async function startServer(
	command,
	args,
	{ name, isReady, timeoutMs = 60_000, stopSignal = 'SIGTERM', user = {} },
) {
	const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...user });
	// Killed when the process exits, should a test not get to stop it.
	trackChild(child);
	let output = '';
	child.stdout.on('data', (chunk) => (output += chunk));
	child.stderr.on('data', (chunk) => (output += chunk));
	let exitCode;
	const exited = new Promise((resolve) =>
		child.on('exit', (code, signal) => {
			exitCode = code ?? signal;
			resolve(undefined);
		}),
	);
	const deadline = Date.now() + timeoutMs;
	while (!(await Promise.resolve(isReady(output)).catch(() => false))) {
		if (exitCode !== undefined)
			throw new Error(`${name} exited (${exitCode}):\n${output.slice(-4000)}`);
		if (Date.now() > deadline) {
			child.kill('SIGKILL');
			throw new Error(`${name} was not ready within ${timeoutMs} ms:\n${output.slice(-4000)}`);
		}
		await sleep(200);
	}
	return {
		output: () => output,
		/** Stops the server (its stop signal, SIGKILL after 15 s). */
		async stop() {
			if (exitCode !== undefined) return;
			child.kill(stopSignal);
			const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
			await exited;
			clearTimeout(timer);
		},
	};
}

/**
 * Redis on a free loopback port, nothing saved to disk.
 * @param {string} redisServer
 */
export async function startRedis(redisServer) {
	const port = await freePort();
	const dir = makeTempDir('voice-messaging-redis-');
	const server = await startServer(
		redisServer,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			dir,
		],
		{ name: 'redis-server', isReady: (output) => /Ready to accept connections/.test(output) },
	);
	return {
		host: '127.0.0.1',
		port,
		async stop() {
			await server.stop();
			removeDir(dir);
		},
	};
}

/**
 * PostgreSQL on a free loopback port: a new cluster in a temporary folder, trust authentication
 * on loopback for the user `postgres`, and a database `n8n`. PostgreSQL refuses to run as root:
 * as root, its programs run as the `postgres` user that Debian's package creates.
 * @param {string} postgresBin folder with initdb, postgres, pg_isready and createdb
 */
export async function startPostgres(postgresBin) {
	const port = await freePort();
	const dir = makeTempDir('voice-messaging-postgres-');
	/** @type {{ uid?: number, gid?: number }} */
	let user = {};
	if (userInfo().uid === 0) {
		const id = async (flag) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
		user = { uid: await id('-u'), gid: await id('-g') };
		chownSync(dir, user.uid, user.gid);
	}
	/** Runs one of PostgreSQL's programs (as `postgres` when we are root). */
	const pg = (tool, args) =>
		new Promise((resolve, reject) => {
			execFile(
				join(postgresBin, tool),
				args,
				{ ...user, cwd: dir, timeout: 120_000 },
				(error, stdout, stderr) =>
					error
						? reject(new Error(`${tool} failed: ${error.message}\n${stderr}\n${stdout}`))
						: resolve(stdout),
			);
		});
	const data = join(dir, 'data');
	await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
	const server = await startServer(
		join(postgresBin, 'postgres'),
		[
			'-D',
			data,
			'-p',
			String(port),
			'-k',
			dir,
			'-c',
			'listen_addresses=127.0.0.1',
			// A throwaway database: durability settings off, for speed.
			'-c',
			'fsync=off',
			'-c',
			'synchronous_commit=off',
			'-c',
			'full_page_writes=off',
		],
		{
			name: 'postgres',
			user,
			// SIGINT: PostgreSQL's fast shutdown (SIGTERM waits for clients to leave).
			stopSignal: 'SIGINT',
			isReady: async () => {
				await pg('pg_isready', ['-h', '127.0.0.1', '-p', String(port), '-q']);
				return true;
			},
		},
	);
	await pg('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'n8n']);
	return {
		host: '127.0.0.1',
		port,
		user: 'postgres',
		database: 'n8n',
		output: server.output,
		/**
		 * The rows `sql` selects from the database `n8n`, each as its columns' text.
		 * @param {string} sql @returns {Promise<string[][]>}
		 */
		async query(sql) {
			const args = ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'n8n'];
			const text = await pg('psql', [...args, '-AtX', '-F', '\t', '-c', sql]);
			return text
				.split('\n')
				.filter(Boolean)
				.map((line) => line.split('\t'));
		},
		async stop() {
			await server.stop();
			removeDir(dir);
		},
	};
}
