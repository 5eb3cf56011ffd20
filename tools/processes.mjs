// Processes and temporary folders for the dev tools (npm start, the bench, the tests): commands
// run with their output collected, long-running children and folders that are cleaned up when the
// process exits, waiting, free ports, and the scripts/ensure-*.sh installers.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

const tempDirs = new Set();
const children = new Set();
/** A new temporary folder, removed when the process exits (or by removeDir). @param {string} prefix */
export function makeTempDir(prefix) {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	tempDirs.add(dir);
	return dir;
}

/** @param {string} dir */
export function removeDir(dir) {
	rmSync(dir, { recursive: true, force: true });
	tempDirs.delete(dir);
}

/** Keeps `child` to be killed when the process exits; forgets it when it exits first.
 * @param {import('node:child_process').ChildProcess} child */
export function trackChild(child) {
	children.add(child);
	child.on('exit', () => children.delete(child));
}

// Whatever a test forgets, the process still leaves nothing behind.
process.on('exit', () => {
	for (const child of children) {
		try {
			child.kill('SIGKILL');
		} catch {
			// already gone
		}
	}
	for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Appends n8n's output to the folder the test runner scans for secrets and tokens after the
 * run (E2E_LOG_DIR, set by scripts/test.mjs); does nothing when the suite runs on its own.
 * @param {string} text
 */
export function keepForLeakCheck(text) {
	const dir = process.env.E2E_LOG_DIR;
	if (!dir) return;
	mkdirSync(dir, { recursive: true });
	appendFileSync(join(dir, `n8n-${process.pid}.log`), `${text}\n`);
}

/** @param {number} ms */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` until it returns a truthy value and resolves to it; fails with `describe()`
 * after `timeoutMs`.
 * @template T
 * @param {() => T | Promise<T>} check
 * @param {{ timeoutMs: number, intervalMs?: number, describe: () => string }} options
 * @returns {Promise<NonNullable<T>>}
 */
export async function waitFor(check, { timeoutMs, intervalMs = 250, describe }) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value) return value;
		if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${describe()}`);
		await sleep(intervalMs);
	}
}

/**
 * Runs a command and collects its output. Rejects with the command, exit code and the tail of
 * stderr/stdout when it fails, so a failing test shows why. With `showStderr` its stderr is also
 * passed through as it comes.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, timeoutMs?: number, showStderr?: boolean }} [options]
 * @returns {Promise<{ stdout: string, stderr: string, code: number | null }>}
 */
export function run(
	command,
	args,
	{ cwd = ROOT, env = process.env, timeoutMs = 300_000, showStderr = false } = {},
) {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
		trackChild(child);
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk) => (stdout += chunk));
		child.stderr.on('data', (chunk) => {
			stderr += chunk;
			if (showStderr) process.stderr.write(chunk);
		});
		const timer = setTimeout(() => {
			stderr += `\n[harness] timed out after ${timeoutMs} ms; killed`;
			child.kill('SIGKILL');
		}, timeoutMs);
		child.on('error', (error) => {
			clearTimeout(timer);
			reject(error);
		});
		child.on('close', (code) => {
			clearTimeout(timer);
			if (code === 0) resolve({ stdout, stderr, code });
			else {
				const error = new Error(
					`command failed (exit ${code}): ${command} ${args.join(' ')}\n` +
						`--- stderr (tail) ---\n${stderr.slice(-4000)}\n--- stdout (tail) ---\n${stdout.slice(-4000)}`,
				);
				Object.assign(error, { stdout, stderr, code });
				reject(error);
			}
		});
	});
}

/**
 * Runs one of the scripts/ensure-*.sh installers and resolves to what it printed on stdout (the
 * paths it reports, one a line). What it installs, with progress every 15 s
 * (scripts/progress.mjs), shows on stderr as it comes, so a first run is not minutes of silence.
 * @param {string} name @param {...string} args
 */
export async function runSetupScript(name, ...args) {
	const script = join(ROOT, 'scripts', name);
	const { stdout } = await run('bash', [script, ...args], { timeoutMs: 900_000, showStderr: true });
	return stdout.trim();
}

/** A free TCP port on the loopback interface. */
export function freePort() {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
			server.close(() => resolve(port));
		});
	});
}
