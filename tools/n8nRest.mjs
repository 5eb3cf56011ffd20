// The REST API of a running n8n as a logged-in user, and manual runs of its workflows.
import { createHash } from 'node:crypto';
import { closeSync, openSync, statSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DEFAULT_N8N_VERSION, isN8n1 } from './n8n.mjs';
import { sleep, waitFor } from './processes.mjs';
import { lastRunItems } from './runData.mjs';

/**
 * Runs an imported workflow of a running n8n the way the editor's "Execute workflow" button does
 * (POST /rest/workflows/:id/run, mode `manual`) from the trigger `triggerName`, and waits for the
 * execution to finish. A polling trigger then runs its poll in manual mode: "Fetch Test Event".
 * (`n8n execute --id` cannot do this: the CLI starts only at a Manual Trigger.)
 * With `triggerItems` the trigger's output is given, as the editor's chat panel gives a Chat
 * Trigger the message typed (no test webhook is registered then).
 * Resolves to the stored execution, its run data, its error and the whole run data (`data`; n8n
 * stores it with `flatted`).
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
	let endedAt;
	for (;;) {
		const { execution, runData, error, data } = await runDataOf(started.executionId);
		const ended = execution.finished || !['new', 'running', 'waiting'].includes(execution.status);
		// n8n 1.x on SQLite without a pool stores an execution's status, then its run data, in two
		// statements: an execution read between them has ended with no run data yet.
		endedAt ??= ended ? Date.now() : undefined;
		const stored = error || Object.keys(runData).length > 0 || Date.now() - endedAt > 5_000;
		if (ended && stored) return { execution, runData, error, data };
		if (!ended && Date.now() > deadline) {
			throw new Error(
				`execution ${started.executionId} of ${workflowId} still ${execution.status} after ${timeoutMs} ms`,
			);
		}
		await sleep(250);
	}
}

/** A lock older than this was left by a test process that ended while holding it. */
const STALE_LOCK_MS = 30_000;

/**
 * Runs `write` (a request that changes what n8n stores) while no other test process writes to the
 * n8n at `baseUrl`: the test files of a lane share an n8n, and n8n 1.x on SQLite fails
 * transactions that overlap ("SQLITE_ERROR: no such savepoint", a statement broken mid-way).
 * The lock is a file created exclusively, next to the others of this machine's temporary folder.
 * @template T @param {string} baseUrl @param {() => Promise<T>} write @returns {Promise<T>}
 */
async function oneWriterAt(baseUrl, write) {
	const name = createHash('sha256').update(baseUrl).digest('hex').slice(0, 16);
	const lock = join(tmpdir(), `n8n-rest-writes-${name}.lock`);
	for (;;) {
		try {
			closeSync(openSync(lock, 'wx'));
			break;
		} catch (error) {
			if (error.code !== 'EEXIST') throw error;
			try {
				if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) unlinkSync(lock);
			} catch {
				// Let go of meanwhile: try again.
			}
			await sleep(20);
		}
	}
	try {
		return await write();
	} finally {
		try {
			unlinkSync(lock);
		} catch {
			// Taken as stale by another process: nothing to let go of.
		}
	}
}

/**
 * A read, sent again once when the connection was reset or closed before an answer: a kept-alive
 * connection that n8n closed as it was taken again (n8n under load) is no answer of n8n's.
 * @param {() => Promise<Response>} send
 */
async function readAgainOnReset(send) {
	try {
		return await send();
	} catch (error) {
		if (!['ECONNRESET', 'UND_ERR_SOCKET'].includes(error?.cause?.code)) throw error;
		return await send();
	}
}

/**
 * The REST API of a running n8n as a logged-in user: `rest` (answers other than 200 fail the
 * test, with the body), the executions of a workflow (summaries, newest first, running ones
 * included), the run data of one execution (n8n stores it with `flatted`) and the items a node
 * output in every execution of a workflow. `workflowId` maps the IDs the callers use to n8n's
 * (an n8n shared by several test files may have given a workflow another).
 * @param {{ baseUrl: string, cookie: string, n8nDir: string, browserId?: string, workflowId?: (id: string) => string }} session
 */
export function n8nRestApi({
	baseUrl,
	cookie,
	n8nDir,
	browserId = 'e2e-browser',
	workflowId = (id) => id,
}) {
	const parseFlatted = createRequire(join(n8nDir, 'node_modules', 'n8n', 'package.json'))(
		'flatted',
	).parse;
	/** @param {string} method @param {string} path @param {unknown} [body] */
	async function rest(method, path, body) {
		const send = () =>
			fetch(`${baseUrl}${path}`, {
				method,
				headers: {
					'browser-id': browserId,
					cookie,
					...(body ? { 'content-type': 'application/json' } : {}),
				},
				body: body ? JSON.stringify(body) : undefined,
			});
		const response =
			method === 'GET' ? await readAgainOnReset(send) : await oneWriterAt(baseUrl, send);
		const text = await response.text();
		if (response.status !== 200) {
			throw new Error(`${method} ${path} → ${response.status}: ${text.slice(0, 2000)}`);
		}
		return JSON.parse(text).data;
	}
	/** @param {string} id */
	async function executionsOf(id) {
		const filter = encodeURIComponent(JSON.stringify({ workflowId: workflowId(id) }));
		return (await rest('GET', `/rest/executions?filter=${filter}&limit=100`)).results;
	}
	/** @param {string} executionId */
	async function runDataOf(executionId) {
		const execution = await rest('GET', `/rest/executions/${executionId}`);
		const data = typeof execution.data === 'string' ? parseFlatted(execution.data) : execution.data;
		// A running execution may have no run data yet. `data` is the whole run data, parsed.
		return {
			execution,
			runData: data?.resultData?.runData ?? {},
			error: data?.resultData?.error,
			data,
		};
	}
	return {
		rest,
		executionsOf,
		runDataOf,
		/**
		 * Every item `nodeName` output in the workflow's executions (a polling workflow's: one per
		 * poll that found something), oldest execution first, once none is still running (waited
		 * for up to `timeoutMs`). An execution that did not succeed fails the test.
		 * @param {string} workflowId @param {string} nodeName
		 */
		async emittedItems(workflowId, nodeName, { timeoutMs = 60_000 } = {}) {
			const unfinished = (execution) => ['new', 'running', 'waiting'].includes(execution.status);
			const executions = await waitFor(
				async () => {
					const all = await executionsOf(workflowId);
					return all.some(unfinished) ? undefined : all;
				},
				{
					timeoutMs,
					intervalMs: 1_000,
					describe: () => `executions of ${workflowId} still running`,
				},
			);
			const items = [];
			for (const execution of executions.sort((x, y) => Number(x.id) - Number(y.id))) {
				if (execution.status !== 'success') {
					// What the execution failed with (a poll's error), for the log CI keeps.
					const { error } = await runDataOf(execution.id);
					const said = error ? { message: error.message, description: error.description } : {};
					throw new Error(
						`execution ${execution.id} of ${workflowId} ${execution.status}: ${JSON.stringify(said)} ${JSON.stringify(execution)}`,
					);
				}
				items.push(...lastRunItems((await runDataOf(execution.id)).runData, nodeName));
			}
			return items;
		},
	};
}
