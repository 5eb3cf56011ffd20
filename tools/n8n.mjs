// A real n8n for the dev tools: installed once per version into a cache folder
// (scripts/ensure-n8n.sh), given a user folder with the packed package installed the way
// self-hosted users install community packages (npm, into <user folder>/.n8n/nodes), driven through
// its CLI or started as a server with an owner and a logged-in session.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';

import {
	freePort,
	keepForLeakCheck,
	makeTempDir,
	removeDir,
	run,
	runSetupScript,
	sleep,
	trackChild,
} from './processes.mjs';
import { parseRawOutput } from './runData.mjs';

export const PACKAGE_NAME = 'n8n-nodes-voice-messaging';
export const DEFAULT_N8N_VERSION = process.env.N8N_VERSION || '2.41.1';
export const ENCRYPTION_KEY = 'e2e-voice-messaging-fixed-encryption-key';
/** The n8n 1.x release the suites also run on (the e2e suites run on both lines). */
export const N8N_1_VERSION = '1.123.81';

/**
 * Whether a version is on the n8n 1.x line. What the harness does differently there, all of it
 * marked `n8n 1.x:` below:
 * - n8n and the npm that installs the package run under Node 22, 2.x's under Node 24 (the Node
 *   scripts/ensure-n8n.sh gives each line; see ensureN8n);
 * - `n8n start`: /healthz/readiness answers 200 once the database is migrated, a few seconds
 *   before the REST API is mounted (POST /rest/login → 404 "Cannot POST"); 2.x's readiness also
 *   waits for `fullyReady`. So on 1.x `start()` also waits for the REST API;
 * - no owner by environment (N8N_INSTANCE_OWNER_*, 2.x only): `setUpOwner()` uses the setup
 *   endpoint that the editor's first screen calls.
 * Everything else the suites use works the same on both lines: install into .n8n/nodes,
 * import:credentials / import:workflow, `execute --id --rawOutput` and its output, the node
 * typeVersions (Edit Fields 3.4, Convert to File 1.1, Read/Write Files 1.1), the REST API's
 * credentials, workflows, manual runs and activate/deactivate (but POST /rest/workflows keeps
 * the id sent on 2.x only). The defaults that differ are n8n's own: binary data mode (see
 * defaultBinaryDataMode); task runners off on 1.x (the N8N_RUNNERS_* settings are then unused).
 * @param {string} version
 */
export const isN8n1 = (version) => version.split('.')[0] === '1';

/**
 * The binary data mode an n8n of `version` uses when N8N_DEFAULT_BINARY_DATA_MODE is not set:
 * `default` (in memory) on 1.x, `filesystem` on 2.x.
 * @param {string} version
 */
export const defaultBinaryDataMode = (version) => (isN8n1(version) ? 'default' : 'filesystem');

/**
 * Installs (once, cached) n8n and the Node its line runs on (1.x: Node 22, 2.x: Node 24; see
 * scripts/ensure-n8n.sh); returns the n8n binary and the bin folder of that Node, which goes first
 * on PATH for every n8n and npm command run for that n8n.
 * @param {string} [version]
 */
export async function ensureN8n(version = DEFAULT_N8N_VERSION) {
	const [nodeBinDir, n8nDir] = (await runSetupScript('ensure-n8n.sh', version))
		.split('\n')
		.slice(-2);
	return { n8nDir, n8nBin: join(n8nDir, 'node_modules/.bin/n8n'), nodeBinDir };
}

/**
 * An n8n user folder with the packed package installed as a community package: a throwaway one,
 * or `userFolder` when given (kept; `npm start` reuses it so a demo's work survives a restart).
 * With `installed`, that folder already has the package installed (npm start keeps track of its
 * tarball; the publishing test installs it from a registry): npm is not run and `tarball` unused.
 * @param {{ version?: string, tarball?: string, extraEnv?: NodeJS.ProcessEnv, userFolder?: string, installed?: boolean }} options
 */
export async function createN8nInstance({
	version = DEFAULT_N8N_VERSION,
	tarball,
	extraEnv = {},
	userFolder: keptFolder,
	installed = false,
}) {
	const { n8nBin, nodeBinDir, n8nDir } = await ensureN8n(version);
	const userFolder = keptFolder ?? makeTempDir('voice-messaging-n8n-');
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	mkdirSync(nodesDir, { recursive: true });
	if (!installed) {
		writeFileSync(
			join(nodesDir, 'package.json'),
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2),
		);
	}
	// Zero runtime dependencies; the peer n8n-workflow comes from n8n itself, so npm must not
	// fetch it (--legacy-peer-deps). Nothing here needs the network. npm runs under the Node of
	// that n8n, as a user's would: what it prints (an EBADENGINE warning) is kept in `installOutput`.
	const path = `${nodeBinDir}${delimiter}${process.env.PATH ?? ''}`;
	const install = installed
		? { stdout: '', stderr: '' }
		: await run(
				'npm',
				[
					'install',
					tarball,
					'--ignore-scripts',
					'--no-audit',
					'--no-fund',
					'--legacy-peer-deps',
					'--prefer-offline',
					'--no-package-lock',
				],
				{ cwd: nodesDir, env: { ...process.env, PATH: path }, timeoutMs: 120_000 },
			);

	// n8n's task broker listens even for `n8n execute`; a fixed port would clash with any other n8n.
	const brokerPort = await freePort();
	const env = {
		...process.env,
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		PATH: path,
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		// `n8n execute` prints its run data through the logger at level info: keep info.
		N8N_LOG_LEVEL: process.env.E2E_N8N_LOG_LEVEL || 'info',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		NODE_ENV: 'production',
		NODE_OPTIONS: '',
		...extraEnv,
	};
	delete env.N8N_CUSTOM_EXTENSIONS;

	/** Every n8n call's stderr, to print when something fails later. */
	const stderrLog = [];
	const n8n = async (args, timeoutMs = 180_000) => {
		try {
			const result = await run(n8nBin, args, { cwd: userFolder, env, timeoutMs });
			stderrLog.push(`$ n8n ${args.join(' ')}\n${result.stderr}`);
			keepForLeakCheck(`$ n8n ${args.join(' ')}\n${result.stdout}\n${result.stderr}`);
			return result;
		} catch (error) {
			stderrLog.push(`$ n8n ${args.join(' ')} (FAILED)\n${error.stderr ?? error.message}`);
			keepForLeakCheck(
				`$ n8n ${args.join(' ')} (FAILED)\n${error.stdout ?? ''}\n${error.stderr ?? error.message}`,
			);
			throw error;
		}
	};

	let counter = 0;
	const writeInput = (prefix, data) => {
		const file = join(userFolder, `${prefix}-${++counter}.json`);
		writeFileSync(file, JSON.stringify(data, null, 2));
		return file;
	};

	return {
		version,
		userFolder,
		env,
		n8nBin,
		n8nDir,
		nodeBinDir,
		installOutput: `${install.stdout}${install.stderr}`,
		stderrLog,
		n8n,
		/** @param {Array<{ id: string, name: string, type: string, data: object }>} credentials */
		async importCredentials(credentials) {
			await n8n(['import:credentials', `--input=${writeInput('credentials', credentials)}`]);
		},
		/** @param {object} workflow must have an `id` */
		async importWorkflow(workflow) {
			if (!workflow.id) throw new Error('a workflow to import needs an id');
			await n8n(['import:workflow', `--input=${writeInput('workflow', workflow)}`]);
		},
		/**
		 * Executes an imported workflow; resolves to the parsed run data. n8n exits non-zero when
		 * the execution fails; then the run data it printed is still returned (with `exitCode`).
		 * @param {string} workflowId
		 */
		async execute(workflowId) {
			try {
				const { stdout } = await n8n(['execute', `--id=${workflowId}`, '--rawOutput']);
				return parseRawOutput(stdout);
			} catch (error) {
				if (typeof error.stdout === 'string' && error.stdout.includes('{')) {
					try {
						return Object.assign(parseRawOutput(error.stdout), { exitCode: error.code });
					} catch {
						// fall through
					}
				}
				throw error;
			}
		},
		/**
		 * Starts `n8n start` on a loopback port (a free one unless given) and waits until it is ready.
		 * With `args: ['worker', ...]` it starts a queue-mode worker instead, whose health server
		 * (QUEUE_HEALTH_CHECK_*) listens on that port and tells when it is ready.
		 * @param {NodeJS.ProcessEnv} [startEnv] extra environment (e.g. the owner settings)
		 * @param {{ port?: number, onOutput?: (chunk: string) => void, args?: string[] }} [options]
		 * @returns {Promise<{ baseUrl: string, output: () => string, stop: () => Promise<void> }>}
		 */
		async start(startEnv = {}, { port: fixedPort, onOutput, args = ['start'] } = {}) {
			const port = fixedPort ?? (await freePort());
			const brokerPort = await freePort();
			const worker = args[0] === 'worker';
			const child = spawn(n8nBin, args, {
				cwd: userFolder,
				env: {
					...env,
					N8N_PORT: String(port),
					N8N_LISTEN_ADDRESS: '127.0.0.1',
					N8N_HOST: '127.0.0.1',
					N8N_RUNNERS_BROKER_PORT: String(brokerPort),
					N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
					...(worker
						? {
								QUEUE_HEALTH_CHECK_ACTIVE: 'true',
								QUEUE_HEALTH_CHECK_PORT: String(port),
								N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
							}
						: {}),
					...startEnv,
				},
				stdio: ['ignore', 'pipe', 'pipe'],
			});
			trackChild(child);
			let output = '';
			const collect = (chunk) => {
				output += chunk;
				onOutput?.(String(chunk));
			};
			child.stdout.on('data', collect);
			child.stderr.on('data', collect);
			const exited = new Promise((resolve) => {
				child.on('exit', (code) => resolve(code));
				// Not started at all (no n8n binary): fail the readiness wait below with why.
				child.on('error', (error) => {
					output += `\n${error.message}`;
					resolve(-1);
				});
			});
			let exitCode;
			exited.then((code) => {
				exitCode = code;
			});
			const baseUrl = `http://127.0.0.1:${port}`;
			const stop = async () => {
				if (exitCode !== undefined) return;
				child.kill('SIGTERM');
				const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
				await exited;
				clearTimeout(timer);
				keepForLeakCheck(`$ n8n ${args.join(' ')}\n${output}`);
			};
			const deadline = Date.now() + 120_000;
			for (;;) {
				if (exitCode !== undefined) {
					throw new Error(`n8n ${args[0]} exited with ${exitCode}:\n${output.slice(-6000)}`);
				}
				try {
					const response = await fetch(`${baseUrl}/healthz/readiness`);
					// n8n 1.x: ready before its REST API is mounted; wait until /rest answers too.
					if (response.ok && (!isN8n1(version) || (await restMounted(baseUrl)))) break;
				} catch {
					// not listening yet
				}
				if (Date.now() > deadline) {
					await stop();
					throw new Error(`n8n ${args[0]} was not ready within 120 s:\n${output.slice(-6000)}`);
				}
				await sleep(500);
			}
			return { baseUrl, output: () => output, stop };
		},
		/** All stderr collected so far (for failure messages). */
		log() {
			return stderrLog.join('\n');
		},
		async cleanup() {
			if (!keptFolder) removeDir(userFolder);
		},
	};
}

/** Whether a running n8n's REST API is mounted (unmounted paths answer 404 "Cannot GET"). */
async function restMounted(baseUrl) {
	const response = await fetch(`${baseUrl}/rest/login`);
	await response.arrayBuffer();
	return response.status !== 404;
}

/**
 * Sets up the instance owner of a running n8n that has none and returns its session cookie.
 * n8n 1.x has no owner by environment (N8N_INSTANCE_OWNER_*); this is the call the editor's
 * setup screen makes. (In 2.x, give `start()` the N8N_INSTANCE_OWNER_* settings and log in.)
 * @param {string} baseUrl @param {{ email: string, password: string }} owner
 * @param {string} [browserId] sent as `browser-id`; the cookie is bound to it
 */
export async function setUpOwner(baseUrl, { email, password }, browserId = 'e2e-browser') {
	const response = await fetch(`${baseUrl}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'browser-id': browserId },
		body: JSON.stringify({ email, password, firstName: 'E2E', lastName: 'Owner' }),
	});
	const text = await response.text();
	if (response.status !== 200) {
		throw new Error(`POST /rest/owner/setup → ${response.status}: ${text.slice(0, 2000)}`);
	}
	const cookie = response.headers
		.getSetCookie()
		.map((line) => line.split(';')[0])
		.join('; ');
	if (!/n8n-auth=/.test(cookie)) throw new Error(`owner setup set no n8n-auth cookie: ${cookie}`);
	return cookie;
}

/**
 * A bcrypt hash made with the bcryptjs inside n8n's own install (for N8N_INSTANCE_OWNER_PASSWORD_HASH).
 * @param {string} n8nDir @param {string} password
 */
export function bcryptHash(n8nDir, password) {
	const require = createRequire(join(n8nDir, 'node_modules', 'n8n', 'package.json'));
	const bcrypt = require('bcryptjs');
	return bcrypt.hashSync(password, 10);
}

/**
 * Logs a user of a running n8n in (2.x: the owner set by N8N_INSTANCE_OWNER_*); returns the
 * session cookie, bound to `browserId`.
 * @param {string} baseUrl @param {{ email: string, password: string }} user
 * @param {string} [browserId]
 */
export async function logIn(baseUrl, { email, password }, browserId = 'e2e-browser') {
	const response = await fetch(`${baseUrl}/rest/login`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'browser-id': browserId },
		body: JSON.stringify({ emailOrLdapLoginId: email, password }),
	});
	const text = await response.text();
	if (response.status !== 200) {
		throw new Error(`POST /rest/login → ${response.status}: ${text.slice(0, 2000)}`);
	}
	return response.headers
		.getSetCookie()
		.map((line) => line.split(';')[0])
		.join('; ');
}

/**
 * Starts `n8n start` with `owner` as the instance owner (set by environment in 2.x, through the
 * owner setup in 1.x; no setup screen either way) and logs in: resolves to the running server and
 * the session cookie.
 * @param {Awaited<ReturnType<typeof createN8nInstance>>} instance
 * @param {{ email: string, password: string }} owner
 * @param {string} [browserId]
 * @param {{ port?: number, onOutput?: (chunk: string) => void }} [startOptions] for `start()`
 */
export async function startWithOwner(
	instance,
	owner,
	browserId = 'e2e-browser',
	startOptions = {},
) {
	if (isN8n1(instance.version)) {
		// n8n 1.x has no owner by environment: set it up as the editor's first screen does.
		const server = await instance.start({}, startOptions);
		return { server, cookie: await setUpOwner(server.baseUrl, owner, browserId) };
	}
	const server = await instance.start(
		{
			N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
			N8N_INSTANCE_OWNER_EMAIL: owner.email,
			N8N_INSTANCE_OWNER_PASSWORD_HASH: bcryptHash(instance.n8nDir, owner.password),
		},
		startOptions,
	);
	return { server, cookie: await logIn(server.baseUrl, owner, browserId) };
}
