// The e2e suites' n8n: one running n8n per line for a whole test run, shared by every e2e file.
//
//   const n8n = await useN8n({ version });      // in before(); `await n8n?.release()` in after()
//
// Under scripts/test.mjs one n8n 2.x and one n8n 1.x (each under its own Node, see tools/n8n.mjs
// ensureN8n), with the package packed once and installed, are started before the e2e files and
// handed to them in E2E_N8N (tools/n8nRun.mjs startSharedN8ns). A file run on its own gets one started for its
// process (shared by the suites that process imports, stopped with the last release()).
// `useN8n({ version, env })` starts an n8n of the file's own with that extra environment (binary
// data mode, restarts): a file that does so says why in one line at its top.
//
// The handle (each file has its own: its credentials and workflows; the owner's session is the one
// made when the n8n started, as n8n limits logins per minute):
//   version, baseUrl, n8nDir, userFolder, filesDir (Read/Write Files may read there), cookie,
//   browserId, session (what tools/n8nRest.mjs takes), own (true when this handle started its
//   n8n), instance and server (own only: tools/n8n.mjs createN8nInstance and its start(), for
//   the CLI and restarts)
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
//   executionsOf(id), runDataOf(executionId), emittedItems(id, nodeName)  tools/n8nRest.mjs n8nRestApi
//   output()                         n8n's output since this handle was made
//   log()                            the same, for assertExecutionSucceeded's failure message
//   release()                        deactivates and deletes the file's workflows and
//                                    credentials; stops the n8n only if this handle started it
//
// Most files want a sandbox of their own next to it, with their credentials imported:
//   const e2e = useSandboxAndN8n({ version, sandbox: { agentCount: 130 }, credentials: (sandbox) => [...] });
// inside describe() registers the before() and after() that fill and empty `e2e.sandbox` and `e2e.n8n`.
import { statSync } from 'node:fs';
import { after, before } from 'node:test';

import { startSandbox } from '../../sandbox/server.mjs';
import { DEFAULT_N8N_VERSION } from '../../tools/n8n.mjs';
import { n8nRestApi, runManually } from '../../tools/n8nRest.mjs';
import { BROWSER_ID, cleanupTarball, readFrom, sharedN8n, startN8n } from '../../tools/n8nRun.mjs';

export { BROWSER_ID, OWNER, cleanupTarball, packedTarball, startN8n } from '../../tools/n8nRun.mjs';

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
		({ cookie } = shared);
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
		({ cookie } = base);
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
	const credentialIds = new Map();
	const workflowIds = new Map();
	/** What this file made, to delete in release(): workflow ids (n8n's) and credential ids. */
	const made = { workflows: new Set(), active: new Set(), credentials: new Set() };
	const workflowId = (id) => workflowIds.get(id) ?? id;
	const api = n8nRestApi({ ...session, workflowId });
	const { rest } = api;

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
		executionsOf: api.executionsOf,
		runDataOf: api.runDataOf,
		emittedItems: api.emittedItems,
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
			// Created inactive (n8n 1.x needs `active` said); activate() publishes it.
			const body = { ...record, active: false, nodes: (record.nodes ?? []).map(withCredentials) };
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
					await whileUnpublishing(() => rest('POST', `/rest/workflows/${id}/archive`, {}));
					await whileUnpublishing(() => rest('DELETE', `/rest/workflows/${id}`));
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
 * Calls `request` again while n8n answers 409 "still being unpublished": n8n 2.x unpublishes a
 * deactivated workflow in the background (an outbox it empties every 15 s) and refuses to archive
 * or delete it until then.
 * @template T
 * @param {() => Promise<T>} request
 * @returns {Promise<T>}
 */
async function whileUnpublishing(request, deadline = Date.now() + 60_000) {
	for (;;) {
		try {
			return await request();
		} catch (error) {
			if (!/→ 409:.*unpublish/i.test(String(error.message)) || Date.now() > deadline) throw error;
			await new Promise((resolve) => setTimeout(resolve, 1000));
		}
	}
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
		try {
			await held.n8n?.release();
		} finally {
			await held.sandbox?.close();
		}
	});
	return held;
}
