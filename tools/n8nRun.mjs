// Starting the e2e suites' n8n: installed with the package (packed once per run) and started with
// its owner logged in, one per line for a whole run (startSharedN8ns, called by scripts/test.mjs)
// or for one test process (test/support/n8n.mjs useN8n). Nothing here needs node:test.
import { appendFileSync, closeSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { DEFAULT_N8N_VERSION, createN8nInstance, startWithOwner } from './n8n.mjs';
import { packPackage, removePack } from './pack.mjs';
import { makeTempDir, removeDir } from './processes.mjs';

/** The owner of every e2e n8n (2.x: N8N_INSTANCE_OWNER_*, 1.x: the owner setup). */
export const OWNER = { email: 'owner@e2e.example', password: 'E2e-owner-Passw0rd' };
/** The `browser-id` every e2e session sends (n8n binds the session cookie to it). */
export const BROWSER_ID = 'e2e-browser';

/** The running n8ns of this test run, by version (set by scripts/test.mjs). */
const SHARED_VAR = 'E2E_N8N';
/** The tarball packed once for the run (set by scripts/test.mjs). */
const TARBALL_VAR = 'E2E_TARBALL';

/** The packed package: the run's tarball, or one packed by this process. */
export async function packedTarball() {
	return process.env[TARBALL_VAR] || packPackage();
}

/** Removes the tarball this process packed (none when the run's is used). */
export function cleanupTarball() {
	if (!process.env[TARBALL_VAR]) return removePack();
}

/**
 * Installs the packed package into a new n8n of `version` and starts it with OWNER logged in.
 * What every e2e n8n runs with: executions saved (triggers' runs are read back), UTC for the
 * polling triggers' cron, and a folder Read/Write Files may read (`filesDir`; n8n 2.x refuses
 * other folders by default and both lines refuse the n8n folder).
 * @param {{ version?: string, env?: NodeJS.ProcessEnv, onOutput?: (chunk: string) => void }} [options]
 */
export async function startN8n({ version = DEFAULT_N8N_VERSION, env = {}, onOutput } = {}) {
	const tarball = await packedTarball();
	const filesDir = makeTempDir('voice-messaging-files-');
	const instance = await createN8nInstance({
		version,
		tarball,
		extraEnv: {
			EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
			GENERIC_TIMEZONE: 'UTC',
			N8N_RESTRICT_FILE_ACCESS_TO: filesDir,
			...env,
		},
	});
	try {
		const { server, cookie } = await startWithOwner(instance, OWNER, BROWSER_ID, { onOutput });
		return {
			version,
			baseUrl: server.baseUrl,
			n8nDir: instance.n8nDir,
			userFolder: instance.userFolder,
			filesDir,
			cookie,
			instance,
			server,
			async stop() {
				await server.stop();
				await instance.cleanup();
				removeDir(filesDir);
			},
		};
	} catch (error) {
		await instance.cleanup();
		removeDir(filesDir);
		throw error;
	}
}

/**
 * For scripts/test.mjs: packs the package and starts one n8n per version, each writing its
 * output to a file in `logDir` (scanned by the leak check). `env` is what the e2e files need to
 * use them (E2E_N8N, E2E_TARBALL).
 * @param {string[]} versions @param {string} logDir
 */
export async function startSharedN8ns(versions, logDir) {
	mkdirSync(logDir, { recursive: true });
	const tarball = await packPackage();
	process.env[TARBALL_VAR] = tarball;
	const settled = await Promise.allSettled(
		versions.map((version) => {
			const logFile = join(logDir, `n8n-shared-${version}.log`);
			const onOutput = (chunk) => appendFileSync(logFile, chunk);
			return startN8n({ version, onOutput }).then((started) => ({ ...started, logFile }));
		}),
	);
	const started = settled.flatMap((result) =>
		result.status === 'fulfilled' ? [result.value] : [],
	);
	const stop = async () => {
		await Promise.all(started.map((instance) => instance.stop()));
		await removePack();
	};
	const failed = settled.find((result) => result.status === 'rejected');
	if (failed) {
		await stop();
		throw failed.reason;
	}
	const shared = Object.fromEntries(
		// The owner's session too: n8n limits logins per minute, and every file would log in.
		started.map(({ version, baseUrl, n8nDir, userFolder, filesDir, cookie, logFile }) => [
			version,
			{ version, baseUrl, n8nDir, userFolder, filesDir, cookie, logFile },
		]),
	);
	return { env: { [SHARED_VAR]: JSON.stringify(shared), [TARBALL_VAR]: tarball }, stop };
}

/** The shared n8n of `version` in this run, if scripts/test.mjs started one. */
export function sharedN8n(version) {
	return JSON.parse(process.env[SHARED_VAR] || '{}')[version];
}

/** What a log file got after `offset` (at most its last 200 kB). */
export function readFrom(file, offset) {
	const size = statSync(file, { throwIfNoEntry: false })?.size ?? 0;
	const start = Math.max(offset, size - 200_000);
	if (size <= start) return '';
	const buffer = Buffer.alloc(size - start);
	const fd = openSync(file, 'r');
	try {
		readSync(fd, buffer, 0, buffer.length, start);
	} finally {
		closeSync(fd);
	}
	return buffer.toString('utf8');
}
