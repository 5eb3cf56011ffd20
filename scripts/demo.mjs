// What `npm start` (scripts/start.mjs) puts into its n8n: the package, installed again only when
// the tarball changed, and, through the REST API of the running n8n as its owner, the demo
// credentials, kept up to date, and the example workflows of examples/, each imported only when
// that n8n does not have it yet, so a user's edits and publishing survive a restart.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

import { PACKAGE_NAME } from '../tools/n8n.mjs';

/** The file in an n8n user folder that names the tarball last installed there by npm start. */
const installedStamp = (userFolder) => join(userFolder, '.n8n', 'nodes', '.installed-tarball');

/**
 * Whether `tarball` is what is installed in the n8n user folder: npm start installed it last
 * (see rememberInstalled) and the package is still there (the editor can uninstall it).
 * @param {string} userFolder @param {string} tarball
 */
export function isInstalled(userFolder, tarball) {
	const stamp = installedStamp(userFolder);
	const installed = join(userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME, 'package.json');
	return (
		existsSync(stamp) &&
		readFileSync(stamp, 'utf8').trim() === basename(tarball) &&
		existsSync(installed)
	);
}

/**
 * Notes that `tarball` was installed into the user folder.
 * @param {string} userFolder @param {string} tarball
 */
export function rememberInstalled(userFolder, tarball) {
	writeFileSync(installedStamp(userFolder), `${basename(tarball)}\n`);
}

/**
 * The example workflows: each file of `dir` ending in .json, sorted, with its parsed workflow.
 * @param {string} dir
 * @returns {Array<{ file: string, workflow: { id: string, name: string, nodes: Array<Record<string, any>> } }>}
 */
export function readExamples(dir) {
	return readdirSync(dir)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => ({ file, workflow: JSON.parse(readFileSync(join(dir, file), 'utf8')) }));
}

/** The examples the banner names, by file (their names are read from the files). */
export const BANNER_EXAMPLES = Object.freeze({
	assistant: 'ops-assistant.json',
	customer: 'reply-follow-up.json',
	approval: 'approve-campaign-cancel.json',
	calls: 'call-follow-up.json',
	mcp: 'mcp-server.json',
	mcpSends: 'mcp-server-sends.json',
	chatbot: 'whatsapp-ai-agent.json',
});

/**
 * The bearer token of examples/mcp-server-sends.json under `npm start` (a demo value, printed in
 * its banner): a token of its own, so that a client given the reading example's cannot send.
 */
export const DEMO_MCP_SEND_TOKEN = 'voice-messaging-demo-mcp-send-token';

/** The data table examples/call-follow-up.json writes answered calls to (by its name). */
export const ANSWERED_CALLS_TABLE = Object.freeze({
	name: 'Answered calls',
	columns: [
		...['phoneNumber', 'campaign', 'result'].map((name) => ({ name, type: 'string' })),
		{ name: 'durationSeconds', type: 'number' },
		{ name: 'calledAt', type: 'string' },
	],
});

/**
 * Makes sure the owner's personal project has the data table `table` ({ name, columns }), through
 * n8n's REST API (`/rest/projects/personal`, then its `data-tables`); one of that name is kept as
 * it is. Resolves to the table's id and the project's.
 * @param {Rest} rest
 * @param {{ name: string, columns: Array<{ name: string, type: string }> }} table
 * @returns {Promise<{ id: string, projectId: string, created: boolean }>}
 */
export async function ensureDataTable(rest, { name, columns }) {
	const { id: projectId } = await rest('GET', '/rest/projects/personal');
	const base = `/rest/projects/${encodeURIComponent(projectId)}/data-tables`;
	/** @type {{ data: Array<{ id: string, name: string }> }} */
	const listed = await rest('GET', base);
	const found = listed.data.find((table) => table.name === name);
	if (found) return { id: found.id, projectId, created: false };
	const created = await rest('POST', base, { name, columns });
	return { id: created.id, projectId, created: true };
}

/**
 * The name of the example in `file` (the banner quotes it as the editor shows it).
 * @param {ReturnType<typeof readExamples>} examples @param {string} file
 */
export function exampleName(examples, file) {
	const found = examples.find((example) => example.file === file);
	if (!found) throw new Error(`no examples/${file}`);
	return found.workflow.name;
}

/**
 * What the Messenger Live Trigger of the example in `file` watches (its Chats), for the banner's
 * line that makes the demo customer write there.
 * @param {ReturnType<typeof readExamples>} examples @param {string} file
 */
export function exampleWatchedChats(examples, file) {
	const found = examples.find((example) => example.file === file);
	const trigger = found?.workflow.nodes.find((node) => node.type.endsWith('.messengerLiveTrigger'));
	if (!trigger) throw new Error(`examples/${file} has no Messenger Live Trigger`);
	return String(trigger.parameters.chats);
}

/**
 * `workflow` with its nodes' credential references moved to the ids this n8n gave the
 * credentials: `ids` maps the id the example files name (e.g. sandboxVoiceMessaging) to it.
 * References to other credentials stay as they are.
 * @template {{ nodes: Array<Record<string, any>> }} W
 * @param {W} workflow @param {Map<string, string>} ids
 * @returns {W}
 */
export function withCredentialIds(workflow, ids) {
	return {
		...workflow,
		nodes: workflow.nodes.map((node) =>
			node.credentials
				? {
						...node,
						credentials: Object.fromEntries(
							Object.entries(node.credentials).map(([type, reference]) => [
								type,
								ids.has(reference.id) ? { ...reference, id: ids.get(reference.id) } : reference,
							]),
						),
					}
				: node,
		),
	};
}

/** n8n's MCP Server Trigger, whose production URL is `<n8n>/mcp/<path>`. */
const MCP_TRIGGER_TYPE = '@n8n/n8n-nodes-langchain.mcpTrigger';

/**
 * Where the MCP Server Trigger of the workflow `workflowId` serves its tools in the n8n at
 * `baseUrl`: its production URL, from the path n8n has (the user may have changed it; the
 * published version's when there is one), and whether the workflow is published (the URL answers
 * only then). Undefined when n8n has no such workflow or it has no enabled MCP Server Trigger.
 * @param {Rest} rest @param {string} baseUrl @param {string} workflowId
 * @returns {Promise<{ url: string, published: boolean } | undefined>}
 */
export async function mcpServerAddress(rest, baseUrl, workflowId) {
	let workflow;
	try {
		workflow = await rest('GET', `/rest/workflows/${encodeURIComponent(workflowId)}`);
	} catch (error) {
		if (/ → 404\b/.test(String(error?.message))) return undefined;
		throw error;
	}
	const published = Boolean(workflow.activeVersionId ?? workflow.active) && !workflow.isArchived;
	/** @type {Array<Record<string, any>>} */
	const nodes = (published && workflow.activeVersion?.nodes) || workflow.nodes || [];
	const trigger = nodes.find((node) => node.type === MCP_TRIGGER_TYPE && !node.disabled);
	const path = trigger?.parameters?.path;
	if (typeof path !== 'string' || path === '') return undefined;
	return { url: `${baseUrl}/mcp/${path}`, published };
}

/**
 * Reads the MCP server address of `workflowId` (mcpServerAddress) every `intervalMs` and calls
 * `onChange` with it when its URL or published state differs from `last` (what the banner showed),
 * so `npm start` can say when the user has published the example. A failed read is skipped (n8n
 * may be stopping). Returns the function that stops it.
 * @param {{ rest: Rest, baseUrl: string, workflowId: string, last: Awaited<ReturnType<typeof mcpServerAddress>>, onChange: (address: Awaited<ReturnType<typeof mcpServerAddress>>) => void, intervalMs?: number }} options
 */
export function watchMcpServer({ rest, baseUrl, workflowId, last, onChange, intervalMs = 5000 }) {
	let shown = JSON.stringify(last);
	let reading = false;
	const timer = setInterval(async () => {
		if (reading) return;
		reading = true;
		try {
			const address = await mcpServerAddress(rest, baseUrl, workflowId);
			if (JSON.stringify(address) === shown) return;
			shown = JSON.stringify(address);
			onChange(address);
		} catch {
			// n8n did not answer this time: the next read tries again.
		} finally {
			reading = false;
		}
	}, intervalMs);
	timer.unref();
	return () => clearInterval(timer);
}

/**
 * @typedef {(method: string, path: string, body?: unknown) => Promise<any>} Rest
 *   a call of the n8n REST API as the owner, resolving to the answer's `data` (tools/n8nRest.mjs)
 */

/**
 * Makes sure n8n has the credential `record` ({ id, name, type, data }) with that data: the one
 * with its id (as earlier demo runs imported it) or else its name and type is updated, or a new
 * one is created (n8n picks its id). Resolves to the id it has in n8n.
 * @param {Rest} rest
 * @param {{ id: string, name: string, type: string, data: Record<string, unknown> }} record
 * @returns {Promise<{ id: string, created: boolean }>}
 */
export async function upsertCredential(rest, { id, name, type, data }) {
	/** @type {Array<{ id: string, name: string, type: string }>} */
	const existing = await rest('GET', '/rest/credentials');
	const found =
		existing.find((credential) => credential.id === id) ??
		existing.find((credential) => credential.name === name && credential.type === type);
	if (found) {
		// The sandbox's address may differ from the last run (SANDBOX_PORT).
		await rest('PATCH', `/rest/credentials/${found.id}`, { name: found.name, type, data });
		return { id: found.id, created: false };
	}
	const created = await rest('POST', '/rest/credentials', { name, type, data });
	return { id: created.id, created: true };
}

/**
 * Imports each example that n8n does not have (by its id, archived ones included), with its
 * credential references moved to `ids`; one n8n has already is left as it is.
 * @param {Rest} rest @param {ReturnType<typeof readExamples>} examples
 * @param {Map<string, string>} ids
 * @returns {Promise<{ imported: string[], kept: string[] }>} the files of each
 */
export async function importMissingExamples(rest, examples, ids) {
	const present = await Promise.all(
		examples.map(({ workflow }) => workflowExists(rest, workflow.id)),
	);
	const missing = examples.filter((_, index) => !present[index]);
	await Promise.all(
		missing.map(({ workflow }) =>
			rest('POST', '/rest/workflows', withCredentialIds(workflow, ids)),
		),
	);
	return {
		imported: missing.map(({ file }) => file),
		kept: examples.filter((_, index) => present[index]).map(({ file }) => file),
	};
}

/**
 * Whether n8n has a workflow with this id (an archived one too: it is the user's to restore).
 * @param {Rest} rest @param {string} id
 */
async function workflowExists(rest, id) {
	try {
		await rest('GET', `/rest/workflows/${encodeURIComponent(id)}`);
		return true;
	} catch (error) {
		if (/ → 404\b/.test(String(error?.message))) return false;
		throw error;
	}
}
