// Messenger Live Trigger with customers in conversation (conversations.mjs), in process against the
// sandbox on loopback: each customer writes a first message, then replies 5–20 s after each answer,
// a few times, falls quiet for a while and starts again. The workflow answers each message (Send Media,
// through the same credential) a second after it starts. Measured: from the message to the
// trigger's emit (the workflow's start), first messages and follow-ups apart; the chat-history
// requests a minute; 429s; messages lost or handed over twice. Time runs `speedup` times faster
// on every side (the sandbox's window, the pacing's, the trigger's schedule, the customers), and
// the figures are given back in real seconds and minutes.
import { NodeApiError } from 'n8n-workflow';

import { MessengerLiveTrigger } from '../nodes/Messenger/MessengerLiveTrigger.node.ts';
import { LIVE_SCHEDULE } from '../nodes/Messenger/trigger/liveSchedule.ts';
import { LIVE_LOOP } from '../nodes/Messenger/trigger/messageLive.ts';
import { pacingSettings, resetPacing } from '../nodes/shared/pacing.ts';
import { apiRequest, retrySettings } from '../nodes/shared/transport.ts';
import { mulberry32 } from '../sandbox/data/random.mjs';
import { DEMO_CLIENTS, startSandbox } from '../sandbox/server.mjs';
import {
	createExecuteContext,
	createTriggerContext,
	httpError,
	sandboxHttp,
	TEST_NODE,
} from '../tools/context.mjs';
import { CONVERSATION, customerChats, customersInConversation } from './conversations.mjs';

/**
 * Scales the settings `names` of a settings object (nested) by `factor`, in place; returns the old
 * values. Without `names`, every time of it (a name ending in `Ms`): a time added later is scaled too.
 */
function scaleNumbers(
	settings,
	factor,
	names = Object.keys(settings).filter((name) => name.endsWith('Ms')),
) {
	const old = structuredClone(settings);
	for (const name of names) {
		const value = settings[name];
		if (typeof value === 'number') settings[name] = Math.max(1, Math.round(value * factor));
		else
			for (const key of Object.keys(value))
				value[key] = Math.max(1, Math.round(value[key] * factor));
	}
	return old;
}

/**
 * What both in-process live benches start with, time run `speedup` times faster on every side (the
 * sandbox's window, the pacing's, the trigger's schedule and loop, the retries): the sandbox with
 * `chats` chats of customers on phones starting with `prefix`, the trigger's context watching them
 * and a workflow's context on the same credential. `restore()` stops the sandbox and puts every
 * setting back.
 */
export async function startLiveBench({ chats, speedup, prefix }) {
	const scale = 1 / speedup;
	const ms = (real) => Math.max(1, Math.round(real * scale));
	const saved = {
		schedule: scaleNumbers(LIVE_SCHEDULE, scale),
		loop: scaleNumbers(LIVE_LOOP, scale),
		retry: scaleNumbers(retrySettings, scale, ['baseDelayMs', 'maxDelayMs', 'maxRetryAfterMs']),
		windowMs: pacingSettings.windowMs,
	};
	pacingSettings.windowMs = ms(60_000);
	const sandbox = await startSandbox({
		port: 0,
		rateWindowMs: ms(60_000),
		tokenRateLimitPerMinute: 0,
	});
	const { chatIds, write } = customerChats(sandbox, chats, prefix);
	const auth = sandboxHttp(sandbox, DEMO_CLIENTS.messengerOnly);
	const answering = createExecuteContext({
		params: {},
		http: auth.httpRequestWithAuthentication,
		credentials: auth.store.data,
	});
	// Chats in `broken` answer 500 to every history read (the trigger's own requests: the sandbox
	// never sees them), so that a run with a failing chat compares with the same run without.
	const broken = new Set();
	const failed = { reads: 0 };
	const http = async (type, options) => {
		const chat = /\/messages\/chat\/([^/?]+)/.exec(String(options.url))?.[1];
		if (chat && broken.has(decodeURIComponent(chat))) {
			failed.reads++;
			throw new NodeApiError(TEST_NODE, httpError(500, { message: 'Internal Server Error' }));
		}
		return await auth.httpRequestWithAuthentication(type, options);
	};
	const trigger = createTriggerContext({
		params: { event: 'messageReceived', chats: chatIds.join(','), direction: 'inbound' },
		http,
		credentials: auth.store.data,
	});
	const restore = async () => {
		await sandbox.close();
		Object.assign(LIVE_SCHEDULE, saved.schedule);
		Object.assign(LIVE_LOOP, saved.loop);
		Object.assign(retrySettings, saved.retry);
		pacingSettings.windowMs = saved.windowMs;
		resetPacing();
	};
	return { scale, ms, sandbox, chatIds, write, answering, trigger, broken, failed, restore };
}

/**
 * Runs `chats` customers for `minutes` (of real time, run `speedup` times faster) against one live
 * trigger at default settings, and returns the latencies (real seconds), requests a minute, 429s,
 * and messages lost or doubled. `idle`: the first chats have no customer (watched, quiet);
 * `failing`: the first of them answer 500 to every history read (startLiveBench's `broken`).
 */
export async function measureLiveConversations({
	chats,
	minutes = 3,
	speedup = 10,
	seed = 7,
	idle = 0,
	failing = 0,
}) {
	// Seeded, so that runs compare.
	const random = mulberry32(seed + chats);
	const bench = await startLiveBench({ chats, speedup, prefix: '+3460010' });
	const { scale, ms, sandbox, chatIds, write, answering, trigger, broken, failed } = bench;
	let customers;
	try {
		customers = customersInConversation({
			chatIds: chatIds.slice(idle),
			random,
			speedup,
			write,
		});
		// The workflow: it answers each message once (Send Media) a second after it starts.
		let running = true;
		trigger.context.emit = (data) => {
			const now = Date.now();
			for (const { json } of data[0]) {
				const message = customers.handedOver(String(json.messageId), now);
				if (!message) continue;
				customers.later(ms(CONVERSATION.answerAfterMs), async () => {
					if (!running) return;
					await apiRequest.call(answering, 'POST', '/api/v1/messenger/messages/send/media', {
						body: { chatId: message.chatId, type: 'document', url: 'https://example.com/a.pdf' },
					});
					customers.answered(message.chatId);
				});
			}
		};

		const response = await new MessengerLiveTrigger().trigger.call(trigger.context);
		// The broken chats break after the activation (a person's activation refuses a chat it cannot read).
		for (const chat of chatIds.slice(0, failing)) broken.add(chat);
		await new Promise((resolve) => setTimeout(resolve, ms(CONVERSATION.afterActivationMs)));
		const mark = sandbox.log.length;
		const startedAt = Date.now();
		customers.start();
		await new Promise((resolve) => setTimeout(resolve, ms(minutes * 60_000)));
		running = false;
		customers.stop();
		// What was written by now is read within a quiet chat's gap at most.
		await new Promise((resolve) => setTimeout(resolve, ms(60_000)));
		const elapsedMinutes = (Date.now() - startedAt) / scale / 60_000;
		await response.closeFunction();
		const log = sandbox.log.slice(mark);
		const history = log.filter((entry) => entry.path.includes('/messages/chat/'));
		const { first, followUp, written, lost, doubled } = customers.figures();
		return {
			chats,
			first,
			followUp,
			readsPerMinute: history.length / elapsedMinutes,
			requestsPerMinute: log.filter((e) => !e.path.endsWith('/auth/token')).length / elapsedMinutes,
			refused: log.filter((entry) => entry.status === 429).length,
			written,
			lost,
			doubled,
			failedReads: failed.reads,
			failedExecutions: trigger.failed.length,
		};
	} finally {
		customers?.close();
		await bench.restore();
	}
}

/**
 * One of `chats` chats answering 500 to every history read, against the same run (the same
 * customers, in the other chats, at the same times) with that chat quiet and healthy: the other
 * chats' follow-ups, and their p50 with the fault over the p50 without.
 */
export async function measureOneChatFailing({ chats, minutes, speedup = 5, seed = 7 }) {
	const run = { chats, minutes, speedup, seed, idle: 1 };
	const healthy = await measureLiveConversations(run);
	const faulty = await measureLiveConversations({ ...run, failing: 1 });
	return { healthy, faulty, ratio: faulty.followUp.p50 / healthy.followUp.p50 };
}
