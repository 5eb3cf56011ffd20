#!/usr/bin/env node
// npm start: the sandbox API plus a real n8n with this package installed the way self-hosted
// users install community nodes, an owner account, a credential for the sandbox and the example
// workflows. Ctrl-C stops everything it started.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

import { sentLines } from '../sandbox/api.mjs';
import { DEMO_CLIENTS, startSandbox, TOKEN_PATH } from '../sandbox/server.mjs';
import { bcryptHash, createN8nInstance } from '../tools/n8n.mjs';
import { packPackage } from '../tools/pack.mjs';
import { ROOT } from '../tools/processes.mjs';
import { sandboxCredential, sandboxModelCredential } from '../tools/workflows.mjs';

const N8N_PORT = Number(process.env.N8N_PORT || 5678);
const SANDBOX_PORT = Number(process.env.SANDBOX_PORT || 4010);
const OWNER_EMAIL = process.env.DEMO_OWNER_EMAIL || 'demo@example.com';
const OWNER_PASSWORD = process.env.DEMO_OWNER_PASSWORD || 'Demo-password-1';
const CACHE =
	process.env.VOICE_MESSAGING_CACHE || join(homedir(), '.cache', 'n8n-nodes-voice-messaging');
const USER_FOLDER = process.env.DEMO_N8N_USER_FOLDER || join(CACHE, 'demo-user-folder');
export const DEMO_CREDENTIAL = { id: 'sandboxVoiceMessaging', name: 'Voice & Messaging sandbox' };
/** n8n's OpenAI credential for the AI Agent example, pointing at the sandbox's stand-in model. */
export const DEMO_MODEL_CREDENTIAL = {
	id: 'sandboxChatModel',
	name: 'Sandbox chat model (stand-in)',
};

const say = (line) => process.stdout.write(`${line}\n`);

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
	say('[1/4] building and packing the package…');
	const tarball = await packPackage();

	say(`[2/4] starting the sandbox API on 127.0.0.1:${SANDBOX_PORT}…`);
	const sandbox = await startSandbox({
		port: SANDBOX_PORT,
		progressIntervalMs: 5000,
		maxLogEntries: 10_000,
		// A message the sandbox is asked to send is printed, with its links (Send and Wait).
		onSent: (sent) => sentLines(sent).forEach(say),
	});

	// The first run installs n8n into ~/.cache (scripts/ensure-n8n.sh), saying so with its progress.
	say('[3/4] preparing n8n…');
	mkdirSync(USER_FOLDER, { recursive: true });
	const instance = await createN8nInstance({ tarball, userFolder: USER_FOLDER });
	await instance.importCredentials([
		sandboxCredential(DEMO_CREDENTIAL, sandbox, DEMO_CLIENTS.full),
		sandboxModelCredential(DEMO_MODEL_CREDENTIAL, sandbox),
	]);
	const examplesDir = join(ROOT, 'examples');
	const examples = existsSync(examplesDir)
		? readdirSync(examplesDir)
				.filter((f) => f.endsWith('.json'))
				.sort()
		: [];
	for (const file of examples) {
		await instance.importWorkflow(JSON.parse(readFileSync(join(examplesDir, file), 'utf8')));
	}

	say(`[4/4] starting n8n on http://127.0.0.1:${N8N_PORT}…`);
	const server = await instance.start(
		{
			N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
			N8N_INSTANCE_OWNER_EMAIL: OWNER_EMAIL,
			N8N_INSTANCE_OWNER_FIRST_NAME: 'Demo',
			N8N_INSTANCE_OWNER_LAST_NAME: 'User',
			N8N_INSTANCE_OWNER_PASSWORD_HASH: bcryptHash(instance.n8nDir, OWNER_PASSWORD),
			N8N_LOG_LEVEL: 'warn',
		},
		{ port: N8N_PORT },
	);

	say('');
	say(`  n8n        ${server.baseUrl}`);
	say(`  login      ${OWNER_EMAIL} / ${OWNER_PASSWORD}`);
	say(`  credential "${DEMO_CREDENTIAL.name}" (points at the sandbox)`);
	say(
		`  model      "${DEMO_MODEL_CREDENTIAL.name}": the sandbox's stand-in at ${sandbox.url}/v1, no AI account`,
	);
	say(
		'             (open the AI Agent example and its chat; the README says how to use a real model)',
	);
	say(`  workflows  ${examples.length} examples imported from examples/`);
	for (const line of sandboxBanner(sandbox.url)) say(line);
	say(
		`  customer   npm run sandbox -- --write --port ${SANDBOX_PORT} --text "Is the quote still valid?"  (the demo customer writes on WhatsApp; activate "Messenger: follow up when a customer replies" to answer)`,
	);
	say(
		'  approval   run "Voice AI: cancel a campaign only after a person approves on WhatsApp": the message the sandbox is asked to send is printed here with its link; open it to approve or decline (Send and Wait for Response)',
	);
	say(`  n8n data   ${USER_FOLDER}`);
	say('');
	say('Press Ctrl-C to stop n8n and the sandbox.');

	let stopping = false;
	const stop = async () => {
		if (stopping) return;
		stopping = true;
		say('\nstopping…');
		await server.stop();
		await sandbox.close();
		process.exit(0);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((error) => {
	process.stderr.write(`npm start failed: ${error.stack ?? error}\n`);
	process.exit(1);
});
