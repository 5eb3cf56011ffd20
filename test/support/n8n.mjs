// The e2e suites' n8n: one running n8n per line for a whole test run, shared by every e2e file.
//
//   const n8n = await useN8n({ version });      // in before(); `await n8n?.release()` in after()
//
// Under scripts/test.mjs one n8n 2.x and one n8n 1.x (each under its own Node, see tools/n8n.mjs
// ensureN8n), with the package packed once and installed, are started before the e2e files and
// handed to them in E2E_N8N (startSharedN8ns). A file run on its own gets one started for its
// process (shared by the suites that process imports, stopped with the last release()).
// `useN8n({ version, env })` starts an n8n of the file's own with that extra environment (binary
// data mode, restarts): a file that does so says why in one line at its top.
//
// The handle (each file has its own: its credentials, its workflows, its login):
//   version, baseUrl, n8nDir, userFolder, filesDir (Read/Write Files may read there), cookie,
//   browserId, own (true when this handle started its n8n), instance and server (own only:
//   tools/n8n.mjs createN8nInstance and its start(), for the CLI and restarts)
//   rest(method, path, body)         the REST API as the owner (answers other than 200 fail)
//   importCredentials([records])     POST /rest/credentials; n8n gives new ids (neither line
//                                    takes one), so the ids the records give are mapped:
//   credentialId(id)                 the id n8n gave the credential imported as `id`
//   importWorkflow(wf), importWorkflows([wf])  POST /rest/workflows with the record's id (2.x
//                                    keeps it when free; 1.x always gives a new one: the
//                                    handle's methods take the record's id, workflowId(id)
//                                    gives n8n's for raw REST calls and URLs); the nodes'
//                                    credential references are mapped to the imported ones;
//                                    `active: true` activates it afterwards
//   execute(id, { triggerName? })    a manual run from the Manual Trigger (or triggerName), as the
//                                    editor's button does; resolves to run data shaped like
//                                    `n8n execute --rawOutput`'s (nodeOutput, executionError and
//                                    assertExecutionSucceeded of tools/runData.mjs take it)
//   runManually(id, triggerName, options)  tools/n8nRest.mjs runManually on this n8n
//   activate(id), deactivate(id)     publish / unpublish (the same endpoints on both lines)
//   executionsOf(id), runDataOf(executionId)  tools/n8nRest.mjs n8nRestApi
//   output()                         n8n's output since this handle was made
//   log()                            the same, for assertExecutionSucceeded's failure message
//   release()                        deactivates and deletes the file's workflows and
//                                    credentials; stops the n8n only if this handle started it
//
// Most files want a sandbox of their own next to it, with their credentials imported:
//   const e2e = useSandboxAndN8n({ version, sandbox: { agentCount: 130 }, credentials: (sandbox) => [...] });
// inside describe() registers the before() and after() that fill and empty `e2e.sandbox` and `e2e.n8n`.
import { appendFileSync, closeSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';

import { startSandbox } from '../../sandbox/server.mjs';

import { DEFAULT_N8N_VERSION, createN8nInstance, logIn, startWithOwner } from '../../tools/n8n.mjs';
import { n8nRestApi, runManually } from '../../tools/n8nRest.mjs';
import { packPackage, removePack } from '../../tools/pack.mjs';
import { makeTempDir, removeDir } from '../../tools/processes.mjs';

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
		started.map(({ version, baseUrl, n8nDir, userFolder, filesDir, logFile }) => [
			version,
			{ version, baseUrl, n8nDir, userFolder, filesDir, logFile },
		]),
	);
	return { env: { [SHARED_VAR]: JSON.stringify(shared), [TARBALL_VAR]: tarball }, stop };
}

/** The shared n8n of `version` in this run, if scripts/test.mjs started one. */
function sharedN8n(version) {
	return JSON.parse(process.env[SHARED_VAR] || '{}')[version];
}

/** What a log file got after `offset` (at most its last 200 kB). */
function readFrom(file, offset) {
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

/** n8ns started for this process (a file run on its own), by version, with their users. */
const processN8ns = new Map();

/**
 * The n8n of `version` for one e2e file: the run's shared one, else one started for this process;
 * with `env`, one of the file's own. Resolves to the handle described at the top of this file.
 * @param {{ version?: string, env?: NodeJS.ProcessEnv }} [options]
 */
export async function useN8n({ version = DEFAULT_N8N_VERSION, env } = {}) {
	/** @type {{ version: string, baseUrl: string, n8nDir: string, userFolder: string, filesDir: string }} */
	let base;
	let cookie;
	let output;
	let releaseN8n = async () => {};
	let own;
	const shared = !env && sharedN8n(version);
	if (shared) {
		base = shared;
		cookie = await logIn(base.baseUrl, OWNER, BROWSER_ID);
		const offset = statSync(shared.logFile, { throwIfNoEntry: false })?.size ?? 0;
		output = () => readFrom(shared.logFile, offset);
	} else if (env) {
		own = await startN8n({ version, env });
		({ cookie } = own);
		base = own;
		output = () => own.server.output();
		releaseN8n = () => own.stop();
	} else {
		let entry = processN8ns.get(version);
		if (!entry) {
			entry = { started: startN8n({ version }), users: 0 };
			processN8ns.set(version, entry);
		}
		entry.users++;
		const current = entry;
		try {
			base = await current.started;
		} catch (error) {
			processN8ns.delete(version);
			throw error;
		}
		cookie = await logIn(base.baseUrl, OWNER, BROWSER_ID);
		const offset = base.server.output().length;
		output = () => base.server.output().slice(offset);
		releaseN8n = async () => {
			if (--current.users > 0) return;
			processN8ns.delete(version);
			await base.stop();
			await cleanupTarball();
		};
	}
	return n8nHandle({ base, cookie, output, releaseN8n, own });
}

/** The handle of one file on one n8n (see the top of this file). */
function n8nHandle({ base, cookie, output, releaseN8n, own }) {
	const { version, baseUrl, n8nDir } = base;
	const session = { baseUrl, cookie, n8nDir, browserId: BROWSER_ID, version };
	const api = n8nRestApi(session);
	const { rest } = api;
	const credentialIds = new Map();
	const workflowIds = new Map();
	/** What this file made, to delete in release(): workflow ids (n8n's) and credential ids. */
	const made = { workflows: new Set(), active: new Set(), credentials: new Set() };
	const workflowId = (id) => workflowIds.get(id) ?? id;

	/** A node with its credential references pointing at the credentials n8n gave ids to. */
	const withCredentials = (node) =>
		node.credentials
			? {
					...node,
					credentials: Object.fromEntries(
						Object.entries(node.credentials).map(([type, ref]) => [
							type,
							ref && credentialIds.has(ref.id) ? { ...ref, id: credentialIds.get(ref.id) } : ref,
						]),
					),
				}
			: node;

	const handle = {
		version,
		baseUrl,
		n8nDir,
		userFolder: base.userFolder,
		filesDir: base.filesDir,
		cookie,
		browserId: BROWSER_ID,
		session,
		own: Boolean(own),
		instance: own?.instance,
		server: own?.server,
		rest,
		executionsOf: (id) => api.executionsOf(workflowId(id)),
		runDataOf: api.runDataOf,
		output,
		log: output,
		credentialId: (id) => credentialIds.get(id) ?? id,
		workflowId,

		/** @param {Array<{ id?: string, name: string, type: string, data: object }>} records */
		async importCredentials(records) {
			const created = [];
			for (const { id, name, type, data } of records) {
				const credential = await rest('POST', '/rest/credentials', { name, type, data });
				made.credentials.add(credential.id);
				if (id) credentialIds.set(id, credential.id);
				created.push(credential);
			}
			return created;
		},

		/** @param {Record<string, any>} workflow */
		async importWorkflow(workflow) {
			const { active, id, ...record } = workflow;
			if (workflowIds.has(id)) throw new Error(`workflow ${id} was imported already`);
			const body = { ...record, nodes: (record.nodes ?? []).map(withCredentials) };
			let created;
			try {
				created = await rest('POST', '/rest/workflows', { ...body, ...(id ? { id } : {}) });
			} catch (error) {
				// Another file on this n8n took the id (2.x refuses it): let n8n give one.
				if (!id || !/exists already/.test(String(error.message))) throw error;
				created = await rest('POST', '/rest/workflows', body);
			}
			made.workflows.add(created.id);
			if (id && created.id !== id) workflowIds.set(id, created.id);
			if (active) await handle.activate(id ?? created.id);
			return created;
		},

		/** @param {Array<Record<string, any>>} workflows */
		async importWorkflows(workflows) {
			const created = [];
			for (const workflow of workflows) created.push(await handle.importWorkflow(workflow));
			return created;
		},

		/**
		 * Runs a workflow from its Manual Trigger (or `triggerName`) and resolves to its run data.
		 * @param {string} id
		 * @param {{ triggerName?: string, timeoutMs?: number }} [options]
		 */
		async execute(id, { triggerName = 'Manual Trigger', timeoutMs } = {}) {
			const { execution, data } = await runManually(session, workflowId(id), triggerName, {
				timeoutMs,
			});
			return { ...execution, data };
		},

		/** @type {(id: string, triggerName: string, options?: Parameters<typeof runManually>[3]) => ReturnType<typeof runManually>} */
		runManually: (id, triggerName, options) =>
			runManually(session, workflowId(id), triggerName, options),

		/** @param {string} id */
		async activate(id) {
			const actual = workflowId(id);
			const { versionId } = await rest('GET', `/rest/workflows/${actual}`);
			made.active.add(actual);
			return rest('POST', `/rest/workflows/${actual}/activate`, { versionId });
		},

		/** @param {string} id */
		async deactivate(id) {
			const actual = workflowId(id);
			made.active.delete(actual);
			return rest('POST', `/rest/workflows/${actual}/deactivate`, {});
		},

		/** Deletes what this file made; stops the n8n if this handle started it. */
		async release() {
			try {
				// An n8n of the file's own goes with all it holds.
				if (own) return;
				for (const id of made.active) await handle.deactivate(id);
				for (const id of made.workflows) {
					// Both lines delete only an archived workflow.
					await rest('POST', `/rest/workflows/${id}/archive`, {});
					await rest('DELETE', `/rest/workflows/${id}`);
				}
				for (const id of made.credentials) await rest('DELETE', `/rest/credentials/${id}`);
			} finally {
				await releaseN8n();
			}
		},
	};
	return handle;
}

/**
 * Registers, in the describe() it is called in, a before() that starts a sandbox of the file's own
 * (in this process, on a free loopback port, with `sandbox` options), gets the n8n (useN8n with
 * `version` and `env`) and imports `credentials(sandbox)`, and the after() that releases both.
 * Returns the holder they fill: `sandbox` and `n8n` are set once before() ran.
 * @param {{ version?: string, env?: NodeJS.ProcessEnv, sandbox?: Parameters<typeof startSandbox>[0], credentials?: (sandbox: Awaited<ReturnType<typeof startSandbox>>) => Array<{ id?: string, name: string, type: string, data: object }> }} [options]
 */
export function useSandboxAndN8n({ version, env, sandbox = {}, credentials = () => [] } = {}) {
	/** @type {{ sandbox: Awaited<ReturnType<typeof startSandbox>>, n8n: Awaited<ReturnType<typeof useN8n>> }} */
	const held = /** @type {any} */ ({});
	before(async () => {
		held.sandbox = await startSandbox({ port: 0, host: '127.0.0.1', ...sandbox });
		held.n8n = await useN8n({ version, env });
		await held.n8n.importCredentials(credentials(held.sandbox));
	});
	after(async () => {
		await held.n8n?.release();
		await held.sandbox?.close();
	});
	return held;
}
