#!/usr/bin/env node
// npm start: the sandbox API plus a real n8n with this package installed the way self-hosted
// users install community nodes, an owner account, a credential for the sandbox and the example
// workflows, and the addresses of the MCP server examples (the reading one's said again when it is
// published).
// Ctrl-C, or SIGINT/SIGTERM to this process or to npm's, stops everything it started.
// Warm (nothing to install, sources unchanged) it needs about 9 s of CPU, most of it n8n's: the
// package is built and packed only when its sources changed (tools/pack.mjs packOnChange),
// independent steps run at once, and the credentials and examples go in through the running
// n8n's REST API (scripts/demo.mjs) instead of one n8n CLI process each.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { homedir } from 'node:os';
import { createServer } from 'node:net';

import { sentLines } from '../sandbox/api.mjs';
import { DEMO_CLIENTS, startSandbox, TOKEN_PATH } from '../sandbox/server.mjs';
import {
	bcryptHash,
	createN8nInstance,
	DEFAULT_N8N_VERSION,
	ensureN8n,
	logIn,
} from '../tools/n8n.mjs';
import { n8nRestApi } from '../tools/n8nRest.mjs';
import { packOnChange, packPackage } from '../tools/pack.mjs';
import { ROOT } from '../tools/processes.mjs';
import {
	DEMO_MCP_TOKEN,
	mcpBearerCredential,
	sandboxCredential,
	sandboxModelCredential,
} from '../tools/workflows.mjs';
import {
	ANSWERED_CALLS_TABLE,
	BANNER_EXAMPLES,
	DEMO_MCP_SEND_TOKEN,
	ensureDataTable,
	exampleName,
	exampleWatchedChats,
	importMissingExamples,
	isInstalled,
	mcpServerAddress,
	readExamples,
	rememberInstalled,
	upsertCredential,
	watchMcpServer,
} from './demo.mjs';
import { formatDuration, withProgress } from './progress.mjs';

const N8N_PORT = Number(process.env.N8N_PORT || 5678);
/** Where the customer-documents example saves files (the one folder n8n's file nodes may write). */
const CUSTOMER_DOCUMENTS_DIR = '/tmp/customer-documents';
const SANDBOX_PORT = Number(process.env.SANDBOX_PORT || 4010);
const OWNER = {
	email: process.env.DEMO_OWNER_EMAIL || 'demo@example.com',
	password: process.env.DEMO_OWNER_PASSWORD || 'Demo-password-1',
};
const CACHE =
	process.env.VOICE_MESSAGING_CACHE || join(homedir(), '.cache', 'n8n-nodes-voice-messaging');
const USER_FOLDER = process.env.DEMO_N8N_USER_FOLDER || join(CACHE, 'demo-user-folder');
/** The ids the example files give the credentials; n8n may give them others (scripts/demo.mjs). */
export const DEMO_CREDENTIAL = { id: 'sandboxVoiceMessaging', name: 'Voice & Messaging sandbox' };
/** n8n's OpenAI credential for the AI Agent example, pointing at the sandbox's stand-in model. */
export const DEMO_MODEL_CREDENTIAL = {
	id: 'sandboxChatModel',
	name: 'Sandbox chat model (stand-in)',
};
/** n8n's Bearer Auth credential the MCP server example checks its clients' token against. */
export const DEMO_MCP_CREDENTIAL = { id: 'sandboxMcpClients', name: 'MCP clients (demo token)' };
/** The sending MCP example's own Bearer Auth credential: a reading client's token cannot send. */
export const DEMO_MCP_SEND_CREDENTIAL = {
	id: 'sandboxMcpSenders',
	name: 'MCP sending clients (demo token)',
};
/** How often a step that takes a while says it is still going. */
const STEP_PROGRESS_MS = 10_000;

const started = Date.now();
const say = (line) => process.stdout.write(`${line}\n`);
const tilde = (path) => path.replace(homedir(), '~');
/** @type {string[]} how long each step took, for the line that says the demo is ready */
const timings = [];
/**
 * Runs a step: says what it does, every 10 s that it is still going, and when it is done with
 * the time it took (also kept under `name` for the ready line).
 * @template T @param {string} name @param {string} what @param {() => Promise<T>} task
 * @returns {Promise<T>}
 */
async function step(name, what, task) {
	const line = `${name.padEnd(10)} ${what}`;
	const { value, elapsed } = await withProgress(line, task, { intervalMs: STEP_PROGRESS_MS, say });
	say(`${line}: done, ${elapsed}`);
	timings.push(`${name} ${elapsed}`);
	return value;
}

/** What runs, to stop on a signal: each entry stops one thing. */
const running = [];
let stopping = false;
/** Stops n8n and the sandbox (those started) and exits; a repeated signal changes nothing. */
async function stop() {
	if (stopping) return;
	stopping = true;
	say('\nstopping…');
	// Steps still running (a build, npm, n8n not ready yet) die on exit: tools/processes.mjs.
	await Promise.allSettled(running.map((stopOne) => stopOne()));
	process.exit(0);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, stop);

/** Fails with a clear message when `port` is taken (another npm start, most likely). */
function assertPortFree(port, variable) {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', () =>
			reject(new Error(`port ${port} is in use (another npm start?): stop it, or set ${variable}`)),
		);
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(undefined)));
	});
}

/**
 * The banner's lines for the MCP server example: its address, whether it serves yet (only once
 * published), and how an AI client connects (the token is a demo value, like the clients' secrets).
 * @param {string} name the example's name @param {{ url: string, published: boolean } | undefined} address
 */
function mcpBanner(name, address) {
	if (!address) return [`  mcp        "${name}" is not in n8n or has no MCP Server Trigger`];
	const header = `Authorization: Bearer ${DEMO_MCP_TOKEN}`;
	return [
		address.published
			? `  mcp        ${address.url}  ("${name}" is published): its tools, for AI clients`
			: `  mcp        publish "${name}" and its tools are served at ${address.url} (said here once it is)`,
		`             to clients sending the header '${header}' (credential "${DEMO_MCP_CREDENTIAL.name}")`,
		`  connect    npx -y mcp-remote ${address.url} --header '${header}'  (what Claude Desktop runs; Cursor and others: docs/mcp.md)`,
	];
}

/**
 * The banner's lines for the sending MCP example: where it would serve, with its own token, and
 * that docs/mcp.md says what publishing it means first (a client that sends can be talked into it).
 * @param {string} name @param {{ url: string, published: boolean } | undefined} address
 */
function mcpSendsBanner(name, address) {
	if (!address) return [];
	return [
		`  mcp sends  "${name}" (${address.published ? 'published' : 'not published'}): its send tools at ${address.url}`,
		`             with a token of its own, 'Authorization: Bearer ${DEMO_MCP_SEND_TOKEN}' (credential "${DEMO_MCP_SEND_CREDENTIAL.name}"); read docs/mcp.md#sending-media before publishing it`,
	];
}

/** The line `npm start` says when the MCP example's address or published state changed. */
function mcpChange(name, address) {
	if (!address) return `mcp        "${name}" is no longer in n8n, or has no MCP Server Trigger`;
	return address.published
		? `mcp        "${name}" is published: MCP clients can connect to ${address.url}`
		: `mcp        "${name}" is not published: ${address.url} serves nothing until it is`;
}

/**
 * The banner's lines for calling the sandbox yourself: each demo client (demo values, printed so
 * nobody has to read the source) and curl lines for a token and a first request.
 * @param {string} url
 */
function sandboxBanner(url) {
	const { full } = DEMO_CLIENTS;
	const body = JSON.stringify({ client_id: full.clientId, client_secret: full.clientSecret });
	return [
		`  sandbox    ${url}  demo clients (client ID / secret, scopes):`,
		...Object.entries(DEMO_CLIENTS).map(
			([name, client]) =>
				`             ${name.padEnd(14)} ${client.clientId} / ${client.clientSecret}  (${client.scopes.join(' ')})`,
		),
		`  token      curl -s ${url}${TOKEN_PATH} -H 'content-type: application/json' -d '${body}'`,
		`  then       curl -s ${url}/api/v1/voice/billing/balance -H 'authorization: Bearer <access_token>'`,
	];
}

async function main() {
	say(
		`npm start: n8n ${DEFAULT_N8N_VERSION} with this package, and the sandbox API (about 20 s when nothing changed; more on a busy machine)`,
	);
	await Promise.all([
		assertPortFree(N8N_PORT, 'N8N_PORT'),
		assertPortFree(SANDBOX_PORT, 'SANDBOX_PORT'),
	]);
	const examples = readExamples(join(ROOT, 'examples'));

	// Independent steps at once. The first run installs n8n into ~/.cache (scripts/ensure-n8n.sh),
	// saying so with its progress every 15 s.
	const [{ tarball, reused }, sandbox] = await Promise.all([
		packOnChange(join(USER_FOLDER, 'packed'), {
			build: () => step('build', 'sources changed: building and packing the package', packPackage),
		}),
		step('sandbox', `starting on 127.0.0.1:${SANDBOX_PORT}`, async () => {
			const server = await startSandbox({
				port: SANDBOX_PORT,
				progressIntervalMs: 5000,
				// Two call campaigns always running, a call step every 5 s: calls land within a minute.
				callStepMs: 5000,
				callCampaigns: 2,
				maxLogEntries: 10_000,
				// A message the sandbox is asked to send is printed, with its links (Send and Wait).
				onSent: (sent) => sentLines(sent).forEach(say),
			});
			running.push(() => server.close());
			return server;
		}),
		step('n8n', `finding n8n ${DEFAULT_N8N_VERSION} in ${tilde(CACHE)}`, () => ensureN8n()),
	]);
	if (reused) say(`package    unchanged since it was last packed (${tilde(tarball)})`);

	const instance = isInstalled(USER_FOLDER, tarball)
		? await createN8nInstance({ tarball, userFolder: USER_FOLDER, installed: true })
		: await step('install', `installing the package into ${tilde(USER_FOLDER)}`, async () => {
				const installing = await createN8nInstance({ tarball, userFolder: USER_FOLDER });
				rememberInstalled(USER_FOLDER, tarball);
				return installing;
			});
	const server = await step('start', `starting n8n on http://127.0.0.1:${N8N_PORT}`, async () => {
		const ownerHash = bcryptHash(instance.n8nDir, OWNER.password);
		mkdirSync(CUSTOMER_DOCUMENTS_DIR, { recursive: true });
		const starting = instance.start(
			{
				N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
				N8N_INSTANCE_OWNER_EMAIL: OWNER.email,
				N8N_INSTANCE_OWNER_FIRST_NAME: 'Demo',
				N8N_INSTANCE_OWNER_LAST_NAME: 'User',
				N8N_INSTANCE_OWNER_PASSWORD_HASH: ownerHash,
				N8N_LOG_LEVEL: 'warn',
				// customer-documents.json saves what customers send here; n8n's file nodes may use
				// only the folders listed (and n8n's own files folder).
				N8N_RESTRICT_FILE_ACCESS_TO: CUSTOMER_DOCUMENTS_DIR,
				// Node keeps n8n's compiled modules: about a tenth less CPU at each start.
				NODE_COMPILE_CACHE: join(USER_FOLDER, 'node-compile-cache'),
			},
			{ port: N8N_PORT },
		);
		const ready = await starting;
		running.push(() => ready.stop());
		return ready;
	});

	const { imported, kept, table, mcp, mcpSends, mcpWatch } = await step(
		'examples',
		'credentials, and the examples n8n lacks',
		async () => {
			const { rest } = n8nRestApi({
				baseUrl: server.baseUrl,
				cookie: await logIn(server.baseUrl, OWNER),
				n8nDir: instance.n8nDir,
			});
			const records = [
				sandboxCredential(DEMO_CREDENTIAL, sandbox, DEMO_CLIENTS.full),
				sandboxModelCredential(DEMO_MODEL_CREDENTIAL, sandbox),
				mcpBearerCredential(DEMO_MCP_CREDENTIAL, DEMO_MCP_TOKEN),
				mcpBearerCredential(DEMO_MCP_SEND_CREDENTIAL, DEMO_MCP_SEND_TOKEN),
			];
			const found = await Promise.all(records.map((record) => upsertCredential(rest, record)));
			const ids = new Map(records.map((record, index) => [record.id, found[index].id]));
			// The call follow-up example writes answered calls to an n8n data table of this name.
			const table = await ensureDataTable(rest, ANSWERED_CALLS_TABLE);
			const imports = await importMissingExamples(rest, examples, ids);
			// Where the MCP server example serves its tools, and a watch that says when that changes.
			const mcpWatch = {
				rest,
				baseUrl: server.baseUrl,
				workflowId: examples.find(({ file }) => file === BANNER_EXAMPLES.mcp)?.workflow.id ?? '',
			};
			const addressOf = async (file) => {
				const id = examples.find((example) => example.file === file)?.workflow.id;
				return id ? await mcpServerAddress(rest, mcpWatch.baseUrl, id) : undefined;
			};
			const [mcp, mcpSends] = await Promise.all([
				addressOf(BANNER_EXAMPLES.mcp),
				addressOf(BANNER_EXAMPLES.mcpSends),
			]);
			return { ...imports, table, mcp, mcpSends, mcpWatch };
		},
	);

	const approval = exampleName(examples, BANNER_EXAMPLES.approval);
	say('');
	say(`  n8n        ${server.baseUrl}`);
	say(`  login      ${OWNER.email} / ${OWNER.password}`);
	say(`  credential "${DEMO_CREDENTIAL.name}" (points at the sandbox)`);
	say(
		`  model      "${DEMO_MODEL_CREDENTIAL.name}": the sandbox's stand-in at ${sandbox.url}/v1, no AI account`,
	);
	say(
		`             (open "${exampleName(examples, BANNER_EXAMPLES.assistant)}" and its chat; docs/ai-agents.md says how to use a real model)`,
	);
	say(
		`  workflows  ${examples.length} examples from examples/: ${imported.length} imported, ${kept.length} already there and kept as you left them (a fresh copy: docs/examples.md)`,
	);
	for (const line of sandboxBanner(sandbox.url)) say(line);
	say(
		`  customer   npm run sandbox -- --write --port ${SANDBOX_PORT} --text "Is the quote still valid?"  (the demo customer writes on WhatsApp; publish "${exampleName(examples, BANNER_EXAMPLES.customer)}" to answer)`,
	);
	say(
		`  chatbot    publish "${exampleName(examples, BANNER_EXAMPLES.chatbot)}", then write twice, seconds apart: npm run sandbox -- --write --port ${SANDBOX_PORT} --phone ${exampleWatchedChats(examples, BANNER_EXAMPLES.chatbot)} --text "My order number is 4711"  (then --text "When does it arrive?"): each answer is printed here, the second quoting the first (the chat's history is the agent's memory, n8n 2.x)`,
	);
	say(
		`  approval   run "${approval}": the message the sandbox is asked to send is printed here with its link; open it to approve or decline (Send and Wait for Response)`,
	);
	say(
		`  calls      publish "${exampleName(examples, BANNER_EXAMPLES.calls)}": two call campaigns keep calling in the sandbox (a step every 5 s); within a minute or two the missed calls get a WhatsApp template (printed here) and answered ones fill the data table "${ANSWERED_CALLS_TABLE.name}"${table.created ? ' (created now)' : ''}`,
	);
	const mcpName = exampleName(examples, BANNER_EXAMPLES.mcp);
	for (const line of mcpBanner(mcpName, mcp)) say(line);
	for (const line of mcpSendsBanner(exampleName(examples, BANNER_EXAMPLES.mcpSends), mcpSends))
		say(line);
	say(`  n8n data   ${USER_FOLDER}`);
	say('');
	say(`Ready in ${formatDuration(Date.now() - started)} (${timings.join(', ')}; some at once).`);
	say('Press Ctrl-C to stop n8n and the sandbox.');
	// Publishing the MCP server example is done in the editor: say when its address serves.
	const onChange = (address) => say(mcpChange(mcpName, address));
	running.push(watchMcpServer({ ...mcpWatch, last: mcp, onChange }));
}

main().catch(async (error) => {
	process.stderr.write(`npm start failed: ${error.stack ?? error}\n`);
	stopping = true;
	await Promise.allSettled(running.map((stopOne) => stopOne()));
	process.exit(1);
});
