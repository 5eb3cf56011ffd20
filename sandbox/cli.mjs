#!/usr/bin/env node
// Runs the sandbox API server until SIGINT/SIGTERM: node sandbox/cli.mjs [--port 4010] [--help]
import { parseArgs } from 'node:util';
import { ALTERNATIVES, checkAlternative } from './alternatives.mjs';
import { CHAT_MODEL } from './chatModel.mjs';
import {
	CUSTOMER_MESSAGES_PATH,
	DEFAULT_OPTIONS,
	DEMO_CLIENTS,
	ENDPOINTS,
	startSandbox,
} from './server.mjs';
import { sentLines } from './api.mjs';
import { usage } from './cli/usage.mjs';

const DEFAULT_CLI_PORT = 4010;

/** flag → [env var, option name, default for the CLI] */
const NUMERIC_FLAGS = /** @type {const} */ ({
	port: ['SANDBOX_PORT', 'port', DEFAULT_CLI_PORT],
	'token-lifetime': [
		'SANDBOX_TOKEN_LIFETIME',
		'tokenLifetimeSeconds',
		DEFAULT_OPTIONS.tokenLifetimeSeconds,
	],
	'progress-ms': ['SANDBOX_PROGRESS_MS', 'progressIntervalMs', 5000],
	// Call campaigns whose calls land while you watch (sandbox/README.md).
	'call-step-ms': ['SANDBOX_CALL_STEP_MS', 'callStepMs', 5000],
	'call-campaigns': ['SANDBOX_CALL_CAMPAIGNS', 'callCampaigns', 2],
	'call-numbers': [
		'SANDBOX_CALL_NUMBERS',
		'callCampaignNumbers',
		DEFAULT_OPTIONS.callCampaignNumbers,
	],
	'rate-limit': ['SANDBOX_RATE_LIMIT', 'rateLimitPerMinute', DEFAULT_OPTIONS.rateLimitPerMinute],
	'token-rate-limit': [
		'SANDBOX_TOKEN_RATE_LIMIT',
		'tokenRateLimitPerMinute',
		DEFAULT_OPTIONS.tokenRateLimitPerMinute,
	],
	seed: ['SANDBOX_SEED', 'seed', DEFAULT_OPTIONS.seed],
	agents: ['SANDBOX_AGENTS', 'agentCount', DEFAULT_OPTIONS.agentCount],
	campaigns: ['SANDBOX_CAMPAIGNS', 'campaignCount', DEFAULT_OPTIONS.campaignCount],
	'active-campaigns': [
		'SANDBOX_ACTIVE_CAMPAIGNS',
		'activeCampaignCount',
		DEFAULT_OPTIONS.activeCampaignCount,
	],
});

/** @param {string} name @param {string} value */
function toNumber(name, value) {
	const number = Number(value);
	if (value.trim() === '' || !Number.isFinite(number) || number < 0) {
		console.error(`--${name} must be a non-negative number, got "${value}"`);
		process.exit(2);
	}
	return number;
}

const { values } = parseArgs({
	options: {
		host: { type: 'string' },
		faults: { type: 'string' },
		quiet: { type: 'boolean', default: false },
		'count-refused': { type: 'boolean', default: false },
		write: { type: 'boolean', default: false },
		text: { type: 'string' },
		chat: { type: 'string' },
		phone: { type: 'string' },
		count: { type: 'string' },
		type: { type: 'string' },
		at: { type: 'string' },
		'same-time': { type: 'boolean', default: false },
		help: { type: 'boolean', short: 'h', default: false },
		...Object.fromEntries(Object.keys(NUMERIC_FLAGS).map((flag) => [flag, { type: 'string' }])),
		...Object.fromEntries(
			Object.values(ALTERNATIVES).map((spec) => [
				spec.flag,
				{ type: spec.kind === 'boolean' ? 'boolean' : 'string' },
			]),
		),
	},
	strict: true,
});

if (values.help) {
	console.log(usage(NUMERIC_FLAGS));
	process.exit(0);
}

/** @type {import('./server.mjs').SandboxOptions & Record<string, unknown>} */
const options = {
	host: /** @type {string | undefined} */ (values.host) ?? process.env.SANDBOX_HOST ?? '127.0.0.1',
};
for (const [flag, [env, option, fallback]] of Object.entries(NUMERIC_FLAGS)) {
	const fromFlag = /** @type {Record<string, unknown>} */ (values)[flag];
	const raw = typeof fromFlag === 'string' ? fromFlag : process.env[env];
	options[option] = raw === undefined ? fallback : toNumber(flag, raw);
}
options.countRefusedRequests =
	values['count-refused'] === true || process.env.SANDBOX_COUNT_REFUSED === '1';
for (const [option, spec] of Object.entries(ALTERNATIVES)) {
	const given = /** @type {Record<string, unknown>} */ (values)[spec.flag];
	if (given === undefined) continue;
	try {
		options[option] = checkAlternative(
			/** @type {keyof typeof ALTERNATIVES} */ (option),
			spec.kind === 'number' ? Number(given) : given,
		);
	} catch (error) {
		console.error(`--${spec.flag}: ${error.message}`);
		process.exit(2);
	}
}
// A long-running demo must not grow its request log forever.
options.maxLogEntries = 10_000;
const faultsText = /** @type {string | undefined} */ (values.faults) ?? process.env.SANDBOX_FAULTS;
if (faultsText) {
	try {
		options.faults = JSON.parse(faultsText);
	} catch (error) {
		console.error(
			`--faults must be JSON such as '{"serverErrorRate":0.05,"seed":1}': ${error.message}`,
		);
		process.exit(2);
	}
}

if (values.write) {
	// The control endpoint of the sandbox already running (e.g. the one `npm start` runs).
	const body = {
		text: values.text,
		chatId: values.chat,
		phone: values.phone,
		count: values.count === undefined ? undefined : Number(values.count),
		type: values.type,
		createdAt: values.at,
		sameCreatedAt: values['same-time'],
	};
	const url = `http://${options.host}:${options.port}${CUSTOMER_MESSAGES_PATH}`;
	const response = await fetch(url, { method: 'POST', body: JSON.stringify(body) }).catch(
		(error) => {
			console.error(
				`No sandbox answers at ${url} (${error.cause?.code ?? error.message}): start it first (npm start or npm run sandbox).`,
			);
			process.exit(1);
		},
	);
	const answer = await response.json();
	if (!response.ok) {
		console.error(`The sandbox refused: ${[].concat(answer.message).join('; ')}`);
		process.exit(2);
	}
	for (const m of answer.items)
		console.log(
			`${m.createdAt} ${m.id} ${m.type} in chat ${m.chatId} (${answer.chat.phone}): ${JSON.stringify(m.content)}`,
		);
	process.exit(0);
}

// What the sandbox is asked to send (a broadcast with its links, a message to a chat) is printed as it comes.
const sandbox = await startSandbox({
	...options,
	onSent: (sent) => sentLines(sent).forEach((line) => console.log(line)),
});

if (!values.quiet) {
	let printed = 0;
	// Print requests as they are logged, without changing the library module.
	setInterval(() => {
		const { log } = sandbox;
		if (printed > log.length) printed = 0;
		for (; printed < log.length; printed++) {
			const { at, method, path, status, clientId } = log[printed];
			console.log(
				`${at} ${method} ${path} -> ${status}${clientId ? ` (${clientId})` : ''}${log[printed].fault ? ` [fault: ${log[printed].fault}]` : ''}`,
			);
		}
	}, 250).unref();
}

const rows = Object.entries(DEMO_CLIENTS).map(
	([name, c]) =>
		`  ${name.padEnd(14)} client_id ${c.clientId.padEnd(22)} client_secret ${c.clientSecret}   scope "${c.scopes.join(' ')}"`,
);
console.log(`Integration API sandbox listening on ${sandbox.url}
Base URL for the credential: ${sandbox.url}
Token endpoint: POST ${sandbox.url}/api/v1/auth/token  (${ENDPOINTS.length} endpoints in all)
Stand-in chat model (OpenAI-compatible, no AI): Base URL ${sandbox.url}/v1, API key ${CHAT_MODEL.apiKey}, model ${CHAT_MODEL.model}

Demo clients:
${rows.join('\n')}

Token lifetime ${options.tokenLifetimeSeconds}s, rate limits ${options.rateLimitPerMinute}/min (API) and ${options.tokenRateLimitPerMinute}/min (token), progression every ${options.progressIntervalMs || 'never'}${options.progressIntervalMs ? 'ms' : ''}, seed ${options.seed}.
Call campaigns: ${options.callCampaigns} kept running (${options.callCampaignNumbers} numbers each, 2 lines), a call step every ${options.callStepMs || 'never'}${options.callStepMs ? 'ms' : ''}.
Press Ctrl+C to stop.`);

let stopping = false;
/** @param {NodeJS.Signals} signal */
async function stop(signal) {
	if (stopping) return;
	stopping = true;
	console.log(`\n${signal} received, stopping the sandbox.`);
	await sandbox.close();
	process.exit(0);
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
