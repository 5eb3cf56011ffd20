// Request counts against the sandbox (in this process, on loopback): what each job costs.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { VoiceMessagingApi } from '../credentials/VoiceMessagingApi.credentials.ts';
import { exchangeClientCredentials } from '../nodes/shared/auth/token.ts';
import { MessengerTrigger } from '../nodes/Messenger/MessengerTrigger.node.ts';
import { VoiceAi } from '../nodes/VoiceAi/VoiceAi.node.ts';
import { VoiceAiTrigger } from '../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { DEMO_CLIENTS, startSandbox } from '../sandbox/server.mjs';
import { createPollContext, fetchHttpRequest, sandboxHttp } from '../tools/context.mjs';
import { sandboxRunner } from '../tools/sandboxRun.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const apiCalls = (sandbox, mark) =>
	sandbox.log.slice(mark).filter((e) => !e.path.endsWith('/auth/token'));

/** Requests that Agent → Get Many with Return All makes over 10,000 agents. */
export async function returnAllRequests() {
	const sandbox = await startSandbox({ port: 0, agentCount: 10_000, rateLimitPerMinute: 0 });
	try {
		const voice = sandboxRunner(VoiceAi, sandbox, DEMO_CLIENTS.full);
		const mark = sandbox.log.length;
		const output = await voice.run({
			resource: 'agent',
			operation: 'getAll',
			returnAll: true,
			options: {},
		});
		return { requests: apiCalls(sandbox, mark).length, items: output.length };
	} finally {
		await sandbox.close();
	}
}

/** Token requests for 20 executions × 50 calls through one credential within one token lifetime. */
export async function tokenRequests() {
	const sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 0 });
	try {
		// Pacing off: this row counts tokens, not how fast 1,000 calls may go.
		const voice = sandboxRunner(VoiceAi, sandbox, DEMO_CLIENTS.full, { requestsPerMinute: 0 });
		const items = Array.from({ length: 50 }, () => ({ json: {} }));
		for (let execution = 0; execution < 20; execution++) {
			await voice.run({ resource: 'billing', operation: 'getBalance' }, { items });
		}
		return { tokens: sandbox.tokenRequests().length, calls: apiCalls(sandbox, 0).length };
	} finally {
		await sandbox.close();
	}
}

/**
 * Token requests when 20 executions of one n8n process find no token at the same moment (a
 * queue-mode worker runs ten at once; so do parallel webhook executions): through the
 * credential's preAuthentication, which shares one exchange, and the same 20 exchanges made one
 * per execution, as a credential without sharing does. The token endpoint allows 10 a minute.
 */
export async function concurrentTokenRequests() {
	const measure = async (getToken) => {
		const sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 0 });
		try {
			const credentials = {
				baseUrl: sandbox.url,
				clientId: DEMO_CLIENTS.full.clientId,
				clientSecret: DEMO_CLIENTS.full.clientSecret,
			};
			const outcomes = await Promise.allSettled(
				Array.from({ length: 20 }, () => getToken({ ...credentials, accessToken: '' })),
			);
			return {
				requests: sandbox.tokenRequests().length,
				refused: sandbox.tokenRequests().filter((entry) => entry.status === 429).length,
				failed: outcomes.filter((outcome) => outcome.status === 'rejected').length,
			};
		} finally {
			await sandbox.close();
		}
	};
	const credential = new VoiceMessagingApi();
	const helpers = { httpRequest: fetchHttpRequest };
	return {
		shared: await measure((credentials) =>
			credential.preAuthentication.call({ helpers }, credentials),
		),
		perExecution: await measure((credentials) =>
			exchangeClientCredentials(fetchHttpRequest, credentials),
		),
	};
}

/** Requests per steady-state poll of Campaign Status Changed with 10,000 campaigns, 20 active. */
export async function triggerRequestsPerPoll() {
	const sandbox = await startSandbox({
		port: 0,
		campaignCount: 10_000,
		activeCampaignCount: 20,
		rateLimitPerMinute: 0,
	});
	try {
		const auth = sandboxHttp(sandbox, DEMO_CLIENTS.full);
		const staticData = {};
		const poll = async () => {
			const { context } = createPollContext({
				params: { event: 'campaignStatusChanged', campaignScope: 'all', statuses: [] },
				http: auth.httpRequestWithAuthentication,
				credentials: auth.store.data,
				staticData,
			});
			await new VoiceAiTrigger().poll.call(context);
		};
		await poll();
		const counts = [];
		for (let i = 0; i < 5; i++) {
			const mark = sandbox.log.length;
			await poll();
			counts.push(apiCalls(sandbox, mark).length);
		}
		const mark = sandbox.log.length;
		sandbox.advance();
		await poll();
		return { steady: Math.max(...counts), afterChanges: apiCalls(sandbox, mark).length };
	} finally {
		await sandbox.close();
	}
}

/**
 * Requests per poll of Message Received watching 50 chats: nothing new (the floor: one history
 * page per chat, the API has no list of chats), and 3 of the chats each receiving 250 messages
 * (two more pages of 100 each). `emitted` is what the second poll reported.
 */
export async function messageTriggerRequestsPerPoll() {
	const sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 0 });
	try {
		const chats = Array.from(
			{ length: 50 },
			(_, i) => sandbox.customerWrites({ phone: `+3460070${String(i).padStart(4, '0')}` }).chat.id,
		);
		// Pacing off: this row counts requests, not how fast they may go.
		const auth = sandboxHttp(sandbox, DEMO_CLIENTS.messengerOnly, { requestsPerMinute: 0 });
		const staticData = {};
		const poll = async () => {
			const { context } = createPollContext({
				params: { event: 'messageReceived', chats, direction: 'inbound', messageTypes: [] },
				http: auth.httpRequestWithAuthentication,
				credentials: auth.store.data,
				staticData,
			});
			const mark = sandbox.log.length;
			const output = await new MessengerTrigger().poll.call(context);
			return { requests: apiCalls(sandbox, mark).length, emitted: output?.[0].length ?? 0 };
		};
		await poll();
		const quiet = await poll();
		for (const chatId of chats.slice(0, 3)) sandbox.customerWrites({ chatId, count: 250 });
		const burst = await poll();
		return { quiet: quiet.requests, burst: burst.requests, emitted: burst.emitted };
	} finally {
		await sandbox.close();
	}
}

/** Size of the npm package and its runtime dependencies. */
export function packageFacts() {
	const packed = JSON.parse(
		execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
			cwd: ROOT,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		}),
	)[0];
	const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
	return {
		packedBytes: packed.size,
		files: packed.entryCount,
		dependencies: Object.keys(pkg.dependencies ?? {}).length,
		peers: Object.keys(pkg.peerDependencies ?? {}),
	};
}
