// End-to-end harness: packs this package, installs it into a throwaway n8n user folder the way
// self-hosted users install community packages (npm, into <user folder>/.n8n/nodes), and drives
// a real n8n (installed once into a cache folder by scripts/ensure-n8n.sh) through its CLI.
import { spawn } from 'node:child_process';
import {
	appendFileSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { it as nodeTestIt } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { CHAT_MODEL } from '../../sandbox/chatModel.mjs';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const PACKAGE_NAME = 'n8n-nodes-voice-messaging';
export const NODE_TYPE = `${PACKAGE_NAME}.voiceAi`;
export const DEFAULT_N8N_VERSION = process.env.N8N_VERSION || '2.41.1';
export const ENCRYPTION_KEY = 'e2e-voice-messaging-fixed-encryption-key';
/** The n8n 1.x release the suites also run on (test/e2e/n8n1.e2e.test.mjs). */
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
 * typeVersions (Edit Fields 3.4, Convert to File 1.1, Read/Write Files 1.1). The defaults that
 * differ are n8n's own: binary data mode `default` (in memory) on 1.x, `filesystem` on 2.x;
 * task runners off on 1.x (the N8N_RUNNERS_* settings are then unused).
 * @param {string} version
 */
export const isN8n1 = (version) => version.split('.')[0] === '1';

const tempDirs = new Set();
const children = new Set();

function makeTempDir(prefix) {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	tempDirs.add(dir);
	return dir;
}

function removeDir(dir) {
	rmSync(dir, { recursive: true, force: true });
	tempDirs.delete(dir);
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
function keepForLeakCheck(text) {
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
		children.add(child);
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
			children.delete(child);
			reject(error);
		});
		child.on('close', (code) => {
			clearTimeout(timer);
			children.delete(child);
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
 * Which n8n version a suite file runs on, and which of its tests. Run directly (`npm test` runs
 * each file in its own process) a file gets DEFAULT_N8N_VERSION and all its tests, exactly as
 * before. `importSuite` (test/e2e/n8n1.e2e.test.mjs) imports a file with another version and,
 * optionally, a subset of its tests; a file is a module, so it registers its suite once per process.
 * @typedef {{ version: string, only?: string[], registered: Set<string> }} SuiteImport
 * @type {SuiteImport | undefined}
 */
let suiteImport;
/** Suite files imported into this process: they share one tarball (see cleanupPack). */
let importedSuites = 0;

/**
 * Called once at the top of a suite file: the n8n version to run on, the suite's title for it and
 * the `it` to register tests with (node:test's own, or one that marks tests outside the chosen
 * subset as skipped, with the reason).
 * @param {string} title the suite's title on the default version
 */
export function suiteOptions(title) {
	const current = suiteImport;
	if (!current) return { version: DEFAULT_N8N_VERSION, title, it: nodeTestIt };
	const { version, only, registered } = current;
	/** @type {typeof nodeTestIt} */
	const it = (name, options, fn) => {
		if (typeof options === 'function') [options, fn] = [{}, options];
		registered.add(name);
		const skip = only && !only.includes(name) && `not in the subset run on n8n ${version}`;
		return nodeTestIt(name, skip ? { ...options, skip } : options, fn);
	};
	const subset = only ? ', subset' : '';
	return { version, title: `${title} (n8n ${version}${subset})`, it };
}

/**
 * Registers the suite of another test file with another n8n version (and optionally only the
 * tests named in `only`; the others show as skipped). Fails when a name in `only` matches no test,
 * so renaming a test cannot silently drop it from the subset.
 * @param {string} file a test file in this folder, e.g. 'voiceAi.e2e.test.mjs'
 * @param {{ version: string, only?: string[] }} options
 */
export async function importSuite(file, { version, only }) {
	if (suiteImport) throw new Error('importSuite: one suite file at a time');
	suiteImport = { version, only, registered: new Set() };
	importedSuites++;
	try {
		await import(pathToFileURL(join(ROOT, 'test', 'e2e', file)).href);
		const { registered } = suiteImport;
		if (registered.size === 0) {
			throw new Error(`${file} registered no tests: already imported, or no suiteOptions() call`);
		}
		const unknown = (only ?? []).filter((name) => !registered.has(name));
		if (unknown.length) throw new Error(`${file} has no tests named ${JSON.stringify(unknown)}`);
	} finally {
		suiteImport = undefined;
	}
}

let packed;
/** Builds and packs the package once per process; resolves to the tarball's path. */
export function packPackage() {
	packed ??= (async () => {
		await run('npm', ['run', 'build'], { timeoutMs: 180_000 });
		const destination = makeTempDir('voice-messaging-pack-');
		await run('npm', ['pack', '--pack-destination', destination, '--ignore-scripts'], {
			timeoutMs: 120_000,
		});
		const tarball = readdirSync(destination).find((name) => name.endsWith('.tgz'));
		if (!tarball) throw new Error(`npm pack wrote no tarball into ${destination}`);
		return join(destination, tarball);
	})();
	return packed;
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

/**
 * Extracts the JSON document that `n8n execute --rawOutput` prints (other log lines may surround it).
 * @param {string} stdout
 */
export function parseRawOutput(stdout) {
	const text = stdout.trim();
	try {
		return JSON.parse(text);
	} catch {
		// Log lines may come before and after the document (a failed execution prints its run data
		// between "Execution error:" and the error's stack): try each "{" line with each "}" line.
		const lines = text.split('\n');
		const starts = lines.flatMap((line, i) => (line.startsWith('{') ? [i] : []));
		const ends = lines.flatMap((line, i) => (line === '}' ? [i] : [])).reverse();
		for (const start of starts) {
			if (lines[start].trim() !== '{') {
				try {
					return JSON.parse(lines[start]);
				} catch {
					// not a one-line document
				}
			}
			for (const end of ends) {
				if (end < start) break;
				try {
					return JSON.parse(lines.slice(start, end + 1).join('\n'));
				} catch {
					// keep looking
				}
			}
		}
		throw new Error(`n8n execute printed no JSON run data:\n${stdout.slice(-4000)}`);
	}
}

/**
 * The output items (their `json`) of one node in the run data of `n8n execute --rawOutput`.
 * @param {any} result parsed output
 * @param {string} nodeName
 * @param {number} [outputIndex]
 */
export function nodeOutput(result, nodeName, outputIndex = 0) {
	const runData = result?.data?.resultData?.runData ?? result?.resultData?.runData;
	if (!runData) throw new Error(`no runData in ${JSON.stringify(result).slice(0, 2000)}`);
	const runs = runData[nodeName];
	if (!runs?.length)
		throw new Error(`node "${nodeName}" did not run; ran: ${Object.keys(runData)}`);
	const last = runs[runs.length - 1];
	if (last.error && !last.data) {
		throw Object.assign(new Error(`node "${nodeName}" failed: ${last.error.message}`), {
			nodeError: last.error,
		});
	}
	return (last.data?.main?.[outputIndex] ?? []).map((item) => item.json);
}

/** The error of a failed execution, or undefined. */
export function executionError(result) {
	return result?.data?.resultData?.error ?? result?.resultData?.error;
}

/**
 * `result` when the execution succeeded; otherwise fails with its error and the tail of `log`
 * (n8n's output), so a failing test shows why.
 * @param {any} result parsed output of `execute`
 * @param {string} log
 */
export function assertExecutionSucceeded(result, log) {
	const error = executionError(result);
	if (error !== undefined) {
		throw new Error(
			`execution failed: ${JSON.stringify(error)?.slice(0, 3000)}\n${log.slice(-4000)}`,
		);
	}
	return result;
}

/**
 * A new Manual Trigger node (the start `n8n execute` needs), with `extra` (id, position) added.
 * @param {Record<string, unknown>} [extra]
 */
export function manualTriggerNode(extra = {}) {
	return {
		name: 'Manual Trigger',
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		parameters: {},
		...extra,
	};
}

/**
 * A workflow to run with `execute`: Manual Trigger → each node in turn, ids and positions added.
 * @param {string} id @param {Array<Record<string, unknown>>} nodes each with at least a `name`
 */
export function chainWorkflow(id, nodes) {
	const all = [manualTriggerNode(), ...nodes];
	const connections = {};
	for (let i = 0; i < all.length - 1; i++) {
		connections[all[i].name] = { main: [[{ node: all[i + 1].name, type: 'main', index: 0 }]] };
	}
	return executableWorkflow(
		id,
		connections,
		all.map((node, i) => ({ id: `${id}-${i}`, position: [i * 220, 0], ...node })),
	);
}

/**
 * The record `import:workflow` takes for a workflow to run with `execute`: inactive, execution
 * order v1 (the order n8n gives new workflows).
 * @param {string} id @param {Record<string, unknown>} connections @param {Array<Record<string, unknown>>} nodes
 */
export function executableWorkflow(id, connections, nodes) {
	return {
		id,
		name: `e2e ${id}`,
		active: false,
		settings: { executionOrder: 'v1' },
		connections,
		nodes,
		pinData: {},
	};
}

/** The median of some numbers (benchmarks: the middle of repeated runs). @param {number[]} values */
export function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = sorted.length >> 1;
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * What a polling suite prints when a wait runs out: the last requests the sandbox saw and the
 * tail of n8n's output.
 * @param {{ log: Array<Record<string, unknown>> }} sandbox
 * @param {{ output(): string } | undefined} server
 */
export function pollDiagnostics(sandbox, server, entries = 20) {
	const requests = sandbox.log
		.slice(-entries)
		.map(
			(e) => `${e.at} ${e.clientId} ${e.method} ${e.path} ${JSON.stringify(e.query)} → ${e.status}`,
		)
		.join('\n');
	return `\n--- sandbox log (tail) ---\n${requests}\n--- n8n output (tail) ---\n${server?.output().slice(-4000)}`;
}

/** The No-Op node that follows the trigger of a polling workflow. */
export const POLL_NOOP_NODE = 'No-Op';

/**
 * An activatable workflow: a polling trigger of this package (`type`, named `triggerName`) that
 * polls every minute at `cronSecond`, then a No-Op whose run data shows what the poll emitted.
 * @param {{ id: string, name: string, triggerName: string, type: string, parameters: Record<string, unknown>, credential: { id: string, name: string }, cronSecond: number }} spec
 */
export function pollingWorkflow({
	id,
	name,
	triggerName,
	type,
	parameters,
	credential,
	cronSecond,
}) {
	return {
		id,
		name,
		active: false,
		settings: { executionOrder: 'v1' },
		connections: { [triggerName]: { main: [[{ node: POLL_NOOP_NODE, type: 'main', index: 0 }]] } },
		nodes: [
			{
				id: `${id}-trigger`,
				name: triggerName,
				type,
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					...parameters,
					pollTimes: { item: [{ mode: 'custom', cronExpression: `${cronSecond} * * * * *` }] },
				},
				credentials: { voiceMessagingApi: { id: credential.id, name: credential.name } },
			},
			{
				id: `${id}-noop`,
				name: POLL_NOOP_NODE,
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [220, 0],
				parameters: {},
			},
		],
		pinData: {},
	};
}

/**
 * A workflow: Manual Trigger → one Voice AI node.
 * @param {{ id: string, name?: string, parameters: Record<string, unknown>, credential: { id: string, name: string }, nodeSettings?: Record<string, unknown> }} spec
 */
export function voiceAiWorkflow({ id, name, parameters, credential, nodeSettings = {} }) {
	return {
		id,
		name: name ?? `e2e ${id}`,
		active: false,
		settings: { executionOrder: 'v1' },
		connections: {
			'Manual Trigger': { main: [[{ node: 'Voice AI', type: 'main', index: 0 }]] },
		},
		nodes: [
			manualTriggerNode({ id: `${id}-trigger`, position: [0, 0] }),
			{
				id: `${id}-voice`,
				name: 'Voice AI',
				type: NODE_TYPE,
				typeVersion: 1,
				position: [220, 0],
				parameters,
				credentials: { voiceMessagingApi: { id: credential.id, name: credential.name } },
				...nodeSettings,
			},
		],
		pinData: {},
	};
}

/**
 * A record for `importCredentials` (or the REST API): this package's credential `credential`
 * ({ id, name }) pointing at `sandbox` as `client`; `data` adds or overrides fields (a wrong
 * secret, requestsPerMinute).
 * @param {{ id?: string, name: string }} credential
 * @param {{ url: string }} sandbox
 * @param {{ clientId: string, clientSecret: string }} client
 * @param {Record<string, unknown>} [data]
 */
export function sandboxCredential(credential, sandbox, client, data = {}) {
	return {
		...credential,
		type: 'voiceMessagingApi',
		data: {
			baseUrl: sandbox.url,
			clientId: client.clientId,
			clientSecret: client.clientSecret,
			...data,
		},
	};
}

/**
 * A record for `importCredentials`: n8n's OpenAI credential (`openAiApi`) pointing at the chat
 * model of `sandbox` (sandbox/chatModel.mjs), as the example workflows' model uses it.
 * @param {{ id?: string, name: string }} credential
 * @param {{ url: string }} sandbox
 */
export function sandboxModelCredential(credential, sandbox) {
	return {
		...credential,
		type: 'openAiApi',
		data: { apiKey: CHAT_MODEL.apiKey, url: `${sandbox.url}/v1`, header: false },
	};
}

/**
 * An n8n user folder with the packed package installed as a community package: a throwaway one,
 * or `userFolder` when given (kept; `npm start` reuses it so a demo's work survives a restart).
 * @param {{ version?: string, tarball: string, extraEnv?: NodeJS.ProcessEnv, userFolder?: string }} options
 */
export async function createN8nInstance({
	version = DEFAULT_N8N_VERSION,
	tarball,
	extraEnv = {},
	userFolder: keptFolder,
}) {
	const { n8nBin, nodeBinDir, n8nDir } = await ensureN8n(version);
	const userFolder = keptFolder ?? makeTempDir('voice-messaging-n8n-');
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	mkdirSync(nodesDir, { recursive: true });
	writeFileSync(
		join(nodesDir, 'package.json'),
		JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2),
	);
	// Zero runtime dependencies; the peer n8n-workflow comes from n8n itself, so npm must not
	// fetch it (--legacy-peer-deps). Nothing here needs the network. npm runs under the Node of
	// that n8n, as a user's would: what it prints (an EBADENGINE warning) is kept in `installOutput`.
	const path = `${nodeBinDir}${delimiter}${process.env.PATH ?? ''}`;
	const install = await run(
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
			children.add(child);
			let output = '';
			const collect = (chunk) => {
				output += chunk;
				onOutput?.(String(chunk));
			};
			child.stdout.on('data', collect);
			child.stderr.on('data', collect);
			const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
			let exitCode;
			exited.then((code) => {
				exitCode = code;
				children.delete(child);
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

/** Removes the packed tarball's folder (call once at the end of a file). */
export function cleanupPack() {
	// Suites imported through importSuite run one after another in one process: they keep the one
	// tarball (no second build); the process's exit handler removes it.
	if (importedSuites > 0) return;
	for (const dir of [...tempDirs]) if (dir.includes('voice-messaging-pack-')) removeDir(dir);
	packed = undefined;
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
 * Runs an imported workflow of a running n8n the way the editor's "Execute workflow" button does
 * (POST /rest/workflows/:id/run, mode `manual`) from the trigger `triggerName`, and waits for the
 * execution to finish. A polling trigger then runs its poll in manual mode: "Fetch Test Event".
 * (`n8n execute --id` cannot do this: the CLI starts only at a Manual Trigger.)
 * With `triggerItems` the trigger's output is given, as the editor's chat panel gives a Chat
 * Trigger the message typed (no test webhook is registered then).
 * Resolves to the stored execution, its run data and its error (n8n stores them with `flatted`).
 * n8n 1.x: the endpoint runs the workflow the request sends (as the 1.x editor does), so with
 * `version` 1.x in the session the stored workflow is read and sent.
 * @param {{ baseUrl: string, cookie: string, n8nDir: string, browserId?: string, version?: string }} session
 * @param {string} workflowId @param {string} triggerName
 * @param {{ timeoutMs?: number, triggerItems?: Array<Record<string, unknown>> }} [options]
 */
export async function runManually(
	{ baseUrl, cookie, n8nDir, browserId = 'e2e-browser', version = DEFAULT_N8N_VERSION },
	workflowId,
	triggerName,
	{ timeoutMs = 60_000, triggerItems } = {},
) {
	const { rest, runDataOf } = n8nRestApi({ baseUrl, cookie, n8nDir, browserId });
	const data = triggerItems && {
		startTime: Date.now(),
		executionTime: 0,
		executionIndex: 0,
		executionStatus: 'success',
		source: [null],
		data: { main: [triggerItems.map((json) => ({ json }))] },
	};
	const workflowData = isN8n1(version)
		? await rest('GET', `/rest/workflows/${workflowId}`)
		: undefined;
	const started = await rest('POST', `/rest/workflows/${workflowId}/run`, {
		...(workflowData ? { workflowData } : {}),
		triggerToStartFrom: { name: triggerName, ...(data ? { data } : {}) },
	});
	if (!started?.executionId) {
		throw new Error(`manual run of ${workflowId} started no execution: ${JSON.stringify(started)}`);
	}
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const { execution, runData, error } = await runDataOf(started.executionId);
		if (execution.finished || !['new', 'running', 'waiting'].includes(execution.status)) {
			return { execution, runData, error };
		}
		if (Date.now() > deadline) {
			throw new Error(
				`execution ${started.executionId} of ${workflowId} still ${execution.status} after ${timeoutMs} ms`,
			);
		}
		await sleep(250);
	}
}

/**
 * The REST API of a running n8n as a logged-in user: `rest` (answers other than 200 fail the
 * test, with the body), the executions of a workflow (summaries, newest first, running ones
 * included) and the run data of one execution (n8n stores it with `flatted`).
 * @param {{ baseUrl: string, cookie: string, n8nDir: string, browserId?: string }} session
 */
export function n8nRestApi({ baseUrl, cookie, n8nDir, browserId = 'e2e-browser' }) {
	const parseFlatted = createRequire(join(n8nDir, 'node_modules', 'n8n', 'package.json'))(
		'flatted',
	).parse;
	/** @param {string} method @param {string} path @param {unknown} [body] */
	async function rest(method, path, body) {
		const response = await fetch(`${baseUrl}${path}`, {
			method,
			headers: {
				'browser-id': browserId,
				cookie,
				...(body ? { 'content-type': 'application/json' } : {}),
			},
			body: body ? JSON.stringify(body) : undefined,
		});
		const text = await response.text();
		if (response.status !== 200) {
			throw new Error(`${method} ${path} → ${response.status}: ${text.slice(0, 2000)}`);
		}
		return JSON.parse(text).data;
	}
	return {
		rest,
		/** @param {string} workflowId */
		async executionsOf(workflowId) {
			const filter = encodeURIComponent(JSON.stringify({ workflowId }));
			return (await rest('GET', `/rest/executions?filter=${filter}&limit=100`)).results;
		},
		/** @param {string} executionId */
		async runDataOf(executionId) {
			const execution = await rest('GET', `/rest/executions/${executionId}`);
			const data =
				typeof execution.data === 'string' ? parseFlatted(execution.data) : execution.data;
			// A running execution may have no run data yet.
			return {
				execution,
				runData: data?.resultData?.runData ?? {},
				error: data?.resultData?.error,
			};
		},
	};
}

/** Chromium flags for the editor test: no sandbox (root in CI), and no background connections,
 * which a closed network refuses (Chromium then stalls or logs errors). */
export const CHROMIUM_ARGS = Object.freeze([
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
]);

let chromiumPath;
/**
 * The path of a Chromium for playwright-core (scripts/ensure-chromium.sh finds one, or installs
 * Debian's `chromium` with apt-get when there is none). playwright-core never downloads a browser.
 */
export function ensureChromium() {
	chromiumPath ??= runSetupScript('ensure-chromium.sh').then((stdout) => {
		const path = stdout.split('\n').pop();
		if (!path) throw new Error('scripts/ensure-chromium.sh printed no browser path');
		return path;
	});
	return chromiumPath;
}

/**
 * Launches headless Chromium through playwright-core with CHROMIUM_ARGS. Each launch gets a fresh
 * profile (`--user-data-dir`): playwright creates a temporary one and removes it on close.
 * @param {Record<string, unknown>} [options] more options for `chromium.launch`
 * @returns {Promise<import('playwright-core').Browser>}
 */
export async function launchChromium(options = {}) {
	const executablePath = await ensureChromium();
	const { chromium } = await import('playwright-core');
	return chromium.launch({ executablePath, headless: true, args: [...CHROMIUM_ARGS], ...options });
}

/**
 * Starts `n8n start` with `owner` as the instance owner (set by environment in 2.x, through the
 * owner setup in 1.x; no setup screen either way) and logs in: resolves to the running server and
 * the session cookie.
 * @param {Awaited<ReturnType<typeof createN8nInstance>>} instance
 * @param {{ email: string, password: string }} owner
 * @param {string} [browserId]
 */
export async function startWithOwner(instance, owner, browserId = 'e2e-browser') {
	if (isN8n1(instance.version)) {
		// n8n 1.x has no owner by environment: set it up as the editor's first screen does.
		const server = await instance.start();
		return { server, cookie: await setUpOwner(server.baseUrl, owner, browserId) };
	}
	const server = await instance.start({
		N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
		N8N_INSTANCE_OWNER_EMAIL: owner.email,
		N8N_INSTANCE_OWNER_PASSWORD_HASH: bcryptHash(instance.n8nDir, owner.password),
	});
	return { server, cookie: await logIn(server.baseUrl, owner, browserId) };
}
