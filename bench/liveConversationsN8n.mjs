// Messenger Live Trigger with customers in conversation (conversations.mjs) in a real n8n, in real
// time: an activated workflow "Messenger Live Trigger watching N chats → Messenger, Send Media in
// the chat the message came from", the package packed and installed as users install it, at the
// credential's defaults (Requests per Minute 100, Live Trigger Requests per Minute 60) against
// the sandbox at its defaults (100 requests a minute). Each customer replies some seconds after
// the sandbox received the workflow's answer in their chat, as in a chatbot conversation. Measured
// per size: from the message to the start of the execution it is in (the execution's startedAt,
// read through n8n's REST API, matched by the message ID of the trigger's item), first messages
// and follow-ups apart; the chat-history reads a minute (average, and the most in any minute) and
// all requests a minute from the sandbox's log; 429s; messages that started no execution or more
// than one; failed executions. One n8n per line serves every size, one after another, each with a
// workflow and chats of its own, a minute apart (the budget's window).
//
//   node scripts/node24.mjs bench/liveConversationsN8n.mjs [--chats 5,20,50] [--versions 2.41.1,1.123.81] [--minutes 3]
//
// (--minutes: every size that long; without it, LIVE_N8N.minutes, longer at the goals' size)
//
// prints the figures (JSON) and, on stderr, what each run does as it goes.
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { mulberry32 } from '../sandbox/data/random.mjs';
import { DEMO_CLIENTS, startSandbox, TOKEN_PATH } from '../sandbox/server.mjs';
import { DEFAULT_N8N_VERSION, N8N_1_VERSION } from '../tools/n8n.mjs';
import { n8nRestApi } from '../tools/n8nRest.mjs';
import { BROWSER_ID, cleanupTarball, startN8n } from '../tools/n8nRun.mjs';
import { sleep } from '../tools/processes.mjs';
import { lastRunItems } from '../tools/runData.mjs';
import { quantile } from '../tools/stats.mjs';
import {
	answeringLiveWorkflow,
	LIVE_TRIGGER_NODE,
	sandboxCredential,
} from '../tools/workflows.mjs';
import {
	CONVERSATION,
	conversationMinutes,
	customerChats,
	customersInConversation,
} from './conversations.mjs';

/** What a whole run measures, and how long each part may take (real milliseconds). */
export const LIVE_N8N = {
	sizes: [5, 20, 50],
	versions: [DEFAULT_N8N_VERSION, N8N_1_VERSION],
	/** Minutes of conversation per size (longer at the goals' size: conversationMinutes). */
	minutes: 4,
	/**
	 * Activation reads every chat (its baseline) within this long at the latest; the customers start
	 * CONVERSATION.afterActivationMs after activation.
	 */
	baselineMs: 60_000,
	/** Once the customers stop, the answers to what they wrote may take this long to come. */
	drainMs: 120_000,
	/** After the last answer, before deactivation: a message handed over twice would show by then. */
	settleMs: 5_000,
	/**
	 * Between two sizes on one n8n: the live budget's minute passes, so that each size's activation
	 * finds it unspent, as on a fresh n8n (reads spent in the last minute slow the reads at
	 * activation down). Reads of the chats after deactivation are counted meanwhile.
	 */
	pauseMs: 60_000,
};

const CREDENTIAL_NAME = 'Voice & Messaging sandbox (live bench)';
const HISTORY_PATH = '/api/v1/messenger/messages/chat/';

/** The most log entries in any `windowMs` (entries in time order). */
function mostInAnyWindow(entries, windowMs = 60_000) {
	const times = entries.map((entry) => Date.parse(entry.at));
	let most = 0;
	for (let last = 0, first = 0; last < times.length; last++) {
		while (times[last] - times[first] >= windowMs) first++;
		most = Math.max(most, last - first + 1);
	}
	return most;
}

/**
 * Every execution of a workflow (summaries), read newest first a page at a time: each page holds
 * those started up to the oldest of the page before (the same filter on both lines).
 */
async function allExecutions(rest, workflowId) {
	const byId = new Map();
	let before;
	for (;;) {
		const filter = { workflowId, ...(before ? { startedBefore: before } : {}) };
		const { results } = await rest(
			'GET',
			`/rest/executions?filter=${encodeURIComponent(JSON.stringify(filter))}&limit=100`,
		);
		const fresh = results.filter((execution) => !byId.has(execution.id));
		for (const execution of fresh) byId.set(execution.id, execution);
		if (!fresh.length || results.length < 100) break;
		before = results
			.map((execution) => execution.startedAt)
			.filter(Boolean)
			.sort()[0];
	}
	return [...byId.values()];
}

/**
 * Where a follow-up's latency goes: from the message to the first read of its chat that began
 * after it (the sandbox's log), and from that read to the start of the execution it was in (the
 * trigger's work and n8n's start of the execution), p50 and p95 in seconds.
 */
function latencySplit(messages, startOf, historyReads) {
	const readsOf = new Map();
	for (const entry of historyReads) {
		const chatId = entry.path.slice(HISTORY_PATH.length);
		if (!readsOf.has(chatId)) readsOf.set(chatId, []);
		readsOf.get(chatId).push(Date.parse(entry.at));
	}
	const toRead = [];
	const toStart = [];
	for (const { id, chatId, writtenAt, first } of messages) {
		const startedAt = startOf.get(id);
		const readAt = (readsOf.get(chatId) ?? []).find((at) => at >= writtenAt);
		if (first || startedAt === undefined || readAt === undefined) continue;
		toRead.push(readAt - writtenAt);
		toStart.push(startedAt - readAt);
	}
	const of = (values) => ({
		p50: quantile(values, 0.5) / 1000,
		p95: quantile(values, 0.95) / 1000,
	});
	return { toRead: of(toRead), toStart: of(toStart) };
}

/**
 * One size on one running n8n: fresh chats, the workflow activated, the customers for `minutes`,
 * the answers drained, the workflow deactivated, then its executions read back (and, with `pause`,
 * the rest of the budget's minute waited out).
 */
async function runSize({ n8n, api, sandbox, credential, chats, minutes, seed, say, hooks, pause }) {
	const { chatIds, write } = customerChats(
		sandbox,
		chats,
		`+3460${String(chats).padStart(3, '0')}`,
	);
	const customers = customersInConversation({
		chatIds,
		random: mulberry32(seed + chats),
		write,
	});
	hooks.answered = (chatId) => customers.answered(chatId);
	const watched = new Set(chatIds.map((id) => `${HISTORY_PATH}${id}`));
	const ofRun = (from, to = sandbox.log.length) => sandbox.log.slice(from, to);
	const reads = (entries) => entries.filter((entry) => watched.has(entry.path));
	try {
		const { id: workflowId } = await api.rest(
			'POST',
			'/rest/workflows',
			answeringLiveWorkflow({ name: `Live bench, ${chats} chats`, chatIds, credential }),
		);
		const activationMark = sandbox.log.length;
		const activatedAt = Date.now();
		const { versionId } = await api.rest('GET', `/rest/workflows/${workflowId}`);
		await api.rest('POST', `/rest/workflows/${workflowId}/activate`, { versionId });
		const readAtStart = () => new Set(reads(ofRun(activationMark)).map((entry) => entry.path)).size;
		while (readAtStart() < chats && Date.now() - activatedAt < LIVE_N8N.baselineMs)
			await sleep(200);
		const unreadAtStart = chats - readAtStart();
		say(
			`activated; ${chats - unreadAtStart} of ${chats} chats read after ${((Date.now() - activatedAt) / 1000).toFixed(1)} s`,
		);

		await sleep(Math.max(0, activatedAt + CONVERSATION.afterActivationMs - Date.now()));
		const mark = sandbox.log.length;
		const startedAt = Date.now();
		customers.start();
		await sleep(minutes * 60_000);
		customers.stop();
		const stoppedAt = Date.now();
		while (customers.waiting() > 0 && Date.now() - stoppedAt < LIVE_N8N.drainMs) await sleep(250);
		say(
			`${minutes} min of conversation, the answers drained in ${((Date.now() - stoppedAt) / 1000).toFixed(1)} s (${customers.waiting()} customers still waiting)`,
		);
		await sleep(LIVE_N8N.settleMs);
		await api.rest('POST', `/rest/workflows/${workflowId}/deactivate`, {});
		const end = sandbox.log.length;
		const elapsedMinutes = (Date.now() - startedAt) / 60_000;
		const deactivatedAt = Date.now();
		// A read or an answer under way at deactivation ends within seconds.
		await sleep(3_000);
		const afterMark = sandbox.log.length;

		let failed = 0;
		/** Message ID → the start of the first execution it was in. */
		const startOf = new Map();
		const executions = await allExecutions(api.rest, workflowId);
		for (const summary of executions) {
			const { execution, runData } = await api.runDataOf(summary.id);
			if (execution.status !== 'success') failed++;
			let items = [];
			try {
				items = lastRunItems(runData, LIVE_TRIGGER_NODE);
			} catch {
				// The trigger's output is not there: the execution failed before it (counted above).
			}
			for (const item of items) {
				const id = String(item.messageId);
				const at = Date.parse(execution.startedAt);
				customers.handedOver(id, at);
				if (!startOf.has(id) || at < startOf.get(id)) startOf.set(id, at);
			}
		}
		if (pause) await sleep(Math.max(0, deactivatedAt + LIVE_N8N.pauseMs - Date.now()));
		const all = ofRun(activationMark, end);
		const during = ofRun(mark, end);
		const history = reads(during);
		const figures = customers.figures();
		const split = latencySplit(customers.messages(), startOf, reads(ofRun(activationMark, end)));
		const result = {
			version: n8n.version,
			chats,
			minutes,
			...figures,
			split,
			executions: executions.length,
			failed,
			readsPerMinute: history.length / elapsedMinutes,
			// From activation on: the reads of the baselines count in the first minute.
			mostReadsInAMinute: mostInAnyWindow(reads(all)),
			requestsPerMinute:
				during.filter((entry) => entry.path !== TOKEN_PATH).length / elapsedMinutes,
			refused: all.filter((entry) => entry.status === 429).length,
			unreadAtStart,
			readsAfterDeactivation: reads(ofRun(afterMark)).length,
			elapsedMinutes,
		};
		say(
			`${result.written} messages, ${result.executions} executions (${failed} failed), lost ${result.lost}, doubled ${result.doubled}; follow-ups p50 ${figures.followUp.p50} s p95 ${figures.followUp.p95} s, first messages p50 ${figures.first.p50} s p95 ${figures.first.p95} s (follow-ups: to the read that found them p50 ${split.toRead.p50} s, from there to the start p50 ${split.toStart.p50} s p95 ${split.toStart.p95} s); ${result.readsPerMinute.toFixed(1)} chat reads a minute (most in a minute ${result.mostReadsInAMinute}), ${result.requestsPerMinute.toFixed(1)} requests a minute, ${result.refused} × 429; ${result.readsAfterDeactivation} reads after deactivation`,
		);
		return result;
	} finally {
		hooks.answered = undefined;
		customers.close();
	}
}

/**
 * Runs the customers at each size in `sizes` on each n8n line in `versions`, one n8n per line,
 * for `minutes` each (by default LIVE_N8N.minutes, longer at the goals' size); `say` gets a line
 * as each step ends.
 * @param {{ sizes?: number[], versions?: string[], minutes?: number, seed?: number, say?: (line: string) => void }} [options]
 */
export async function measureLiveConversationsInN8n({
	sizes = LIVE_N8N.sizes,
	versions = LIVE_N8N.versions,
	minutes,
	seed = 7,
	say = (line) => process.stderr.write(`${line}\n`),
} = {}) {
	const results = [];
	try {
		for (const version of versions) {
			/** What the sandbox tells the customers: an answer reached a chat. */
			const hooks = { answered: undefined };
			const sandbox = await startSandbox({
				port: 0,
				host: '127.0.0.1',
				onSent: (sent) => {
					if (sent.chatId) hooks.answered?.(sent.chatId);
				},
			});
			let n8n;
			try {
				const startingAt = Date.now();
				n8n = await startN8n({ version });
				say(`n8n ${version} started in ${((Date.now() - startingAt) / 1000).toFixed(0)} s`);
				const api = n8nRestApi({
					baseUrl: n8n.baseUrl,
					cookie: n8n.cookie,
					n8nDir: n8n.n8nDir,
					browserId: BROWSER_ID,
				});
				const { id, name } = await api.rest('POST', '/rest/credentials', {
					...sandboxCredential({ name: CREDENTIAL_NAME }, sandbox, DEMO_CLIENTS.messengerOnly),
				});
				for (const [index, chats] of sizes.entries()) {
					const tell = (line) => say(`n8n ${version}, ${chats} chats: ${line}`);
					results.push(
						await runSize({
							n8n,
							api,
							sandbox,
							credential: { id, name },
							chats,
							minutes: minutes ?? conversationMinutes(chats, LIVE_N8N.minutes),
							seed,
							say: tell,
							hooks,
							pause: index < sizes.length - 1,
						}),
					);
				}
			} finally {
				await n8n?.stop();
				await sandbox.close();
			}
		}
	} finally {
		await cleanupTarball();
	}
	return results;
}

// Run on its own: `node scripts/node24.mjs bench/liveConversationsN8n.mjs [--chats 5,20] …`.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
	const { values } = parseArgs({
		options: {
			chats: { type: 'string' },
			versions: { type: 'string' },
			minutes: { type: 'string' },
		},
	});
	const list = (value) => value?.split(',').map((part) => part.trim());
	const started = Date.now();
	const figures = await measureLiveConversationsInN8n({
		sizes: list(values.chats)?.map(Number),
		versions: list(values.versions),
		minutes: values.minutes === undefined ? undefined : Number(values.minutes),
	});
	const benchMinutes = (Date.now() - started) / 60_000;
	console.log(JSON.stringify({ benchMinutes, figures }, null, 1));
}
