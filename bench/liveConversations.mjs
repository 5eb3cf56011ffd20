// Messenger Live Trigger with customers in conversation, in process against the sandbox on
// loopback: each customer writes a first message, then replies 5–20 s after each answer, a few
// times, falls quiet for a while and starts again. The workflow answers each message (Send Media,
// through the same credential) a second after it starts. Measured: from the message to the
// trigger's emit (the workflow's start), first messages and follow-ups apart; the chat-history
// requests a minute; 429s; messages lost or handed over twice. Time runs `speedup` times faster
// on every side (the sandbox's window, the pacing's, the trigger's schedule, the customers), and
// the figures are given back in real seconds and minutes.
import { MessengerLiveTrigger } from '../nodes/Messenger/MessengerLiveTrigger.node.ts';
import { LIVE_SCHEDULE } from '../nodes/Messenger/trigger/liveSchedule.ts';
import { LIVE_LOOP } from '../nodes/Messenger/trigger/messageLive.ts';
import { pacingSettings, resetPacing } from '../nodes/shared/pacing.ts';
import { apiRequest, retrySettings } from '../nodes/shared/transport.ts';
import { mulberry32 } from '../sandbox/data/random.mjs';
import { CUSTOMER_MESSAGES_PATH, DEMO_CLIENTS, startSandbox } from '../sandbox/server.mjs';
import { createExecuteContext, createTriggerContext, sandboxHttp } from '../tools/context.mjs';
import { quantile } from '../tools/stats.mjs';

/** The customers' habits, in real milliseconds. */
export const CONVERSATION = {
	/** A first message comes within this long of the start, and again after a quiet spell. */
	firstWithinMs: 30_000,
	/** A reply comes this long after the answer. */
	replyAfterMs: { min: 5_000, max: 20_000 },
	/** Replies before the customer falls quiet. */
	replies: { min: 2, max: 5 },
	/** A quiet spell between two conversations of one customer. */
	quietMs: { min: 30_000, max: 90_000 },
	/** How long the workflow takes to answer once it started. */
	answerAfterMs: 1_000,
};

/** Scales every number of a settings object (nested) by `factor`, in place; returns the old values. */
function scaleNumbers(settings, factor, names) {
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
 * Runs `chats` customers for `minutes` (of real time, run `speedup` times faster) against one live
 * trigger at default settings, and returns the latencies (real seconds), requests a minute, 429s,
 * and messages lost or doubled.
 */
export async function measureLiveConversations({ chats, minutes = 3, speedup = 10, seed = 7 }) {
	const scale = 1 / speedup;
	const ms = (real) => Math.max(1, Math.round(real * scale));
	// Seeded, so that runs compare.
	const random = mulberry32(seed + chats);
	const between = ({ min, max }) => ms(min + (max - min) * random());
	const saved = {
		schedule: scaleNumbers(LIVE_SCHEDULE, scale, ['activeGapMs', 'quietGapMs']),
		loop: scaleNumbers(LIVE_LOOP, scale, [
			'activationBudgetMs',
			'readBudgetMs',
			'backoffMs',
			'reportEveryMs',
			'maxNapMs',
		]),
		retry: scaleNumbers(retrySettings, scale, ['baseDelayMs', 'maxDelayMs', 'maxRetryAfterMs']),
		windowMs: pacingSettings.windowMs,
	};
	pacingSettings.windowMs = ms(60_000);
	const sandbox = await startSandbox({
		port: 0,
		rateWindowMs: ms(60_000),
		tokenRateLimitPerMinute: 0,
	});
	const timers = new Set();
	const later = (delay, work) => {
		const timer = setTimeout(() => {
			timers.delete(timer);
			work();
		}, delay);
		timers.add(timer);
	};
	try {
		const write = async (body) => {
			const response = await fetch(`${sandbox.url}${CUSTOMER_MESSAGES_PATH}`, {
				method: 'POST',
				body: JSON.stringify({ text: 'Hello', ...body }),
			});
			return await response.json();
		};
		const chatIds = [];
		for (let index = 0; index < chats; index++) {
			const { chat } = await write({ phone: `+346001${String(index).padStart(5, '0')}` });
			chatIds.push(chat.id);
		}
		const auth = sandboxHttp(sandbox, DEMO_CLIENTS.messengerOnly);
		const answering = createExecuteContext({
			params: {},
			http: auth.httpRequestWithAuthentication,
			credentials: auth.store.data,
		});
		const trigger = createTriggerContext({
			params: { event: 'messageReceived', chats: chatIds.join(','), direction: 'inbound' },
			http: auth.httpRequestWithAuthentication,
			credentials: auth.store.data,
		});

		/** Message ID → { writtenAt, first }; each hand-over's latency, and how often each came. */
		const written = new Map();
		const seen = new Map();
		const latency = { first: [], followUp: [] };
		const repliesLeft = new Map();
		let running = true;
		const customerWrites = async (chatId, first) => {
			if (!running) return;
			const writtenAt = Date.now();
			const { items } = await write({ chatId });
			written.set(items[0].id, { writtenAt, first, chatId });
			if (first) repliesLeft.set(chatId, CONVERSATION.replies.min + Math.floor(random() * 4));
		};
		const answered = (chatId) => {
			const left = repliesLeft.get(chatId) ?? 0;
			repliesLeft.set(chatId, left - 1);
			if (left > 0) later(between(CONVERSATION.replyAfterMs), () => customerWrites(chatId, false));
			else
				later(
					between(CONVERSATION.quietMs) + between({ min: 0, max: CONVERSATION.firstWithinMs }),
					() => customerWrites(chatId, true),
				);
		};
		trigger.context.emit = (data) => {
			const now = Date.now();
			for (const { json } of data[0]) {
				const id = String(json.messageId);
				seen.set(id, (seen.get(id) ?? 0) + 1);
				const message = written.get(id);
				if (!message || seen.get(id) > 1) continue;
				latency[message.first ? 'first' : 'followUp'].push((now - message.writtenAt) / scale);
				later(ms(CONVERSATION.answerAfterMs), async () => {
					if (!running) return;
					await apiRequest.call(answering, 'POST', '/api/v1/messenger/messages/send/media', {
						body: { chatId: message.chatId, type: 'document', url: 'https://example.com/a.pdf' },
					});
					answered(message.chatId);
				});
			}
		};

		const response = await new MessengerLiveTrigger().trigger.call(trigger.context);
		const mark = sandbox.log.length;
		const startedAt = Date.now();
		for (const chatId of chatIds) {
			later(between({ min: 0, max: CONVERSATION.firstWithinMs }), () =>
				customerWrites(chatId, true),
			);
		}
		await new Promise((resolve) => setTimeout(resolve, ms(minutes * 60_000)));
		running = false;
		// What was written by now is read within a quiet chat's gap at most.
		await new Promise((resolve) => setTimeout(resolve, ms(60_000)));
		const elapsedMinutes = (Date.now() - startedAt) / scale / 60_000;
		await response.closeFunction();
		const log = sandbox.log.slice(mark);
		const history = log.filter((entry) => entry.path.includes('/messages/chat/'));
		const counts = [...written.keys()].map((id) => seen.get(id) ?? 0);
		const figures = (values) => ({
			n: values.length,
			p50: quantile(values, 0.5) / 1000,
			p95: quantile(values, 0.95) / 1000,
		});
		return {
			chats,
			first: figures(latency.first),
			followUp: figures(latency.followUp),
			readsPerMinute: history.length / elapsedMinutes,
			requestsPerMinute: log.filter((e) => !e.path.endsWith('/auth/token')).length / elapsedMinutes,
			refused: log.filter((entry) => entry.status === 429).length,
			written: written.size,
			lost: counts.filter((count) => count === 0).length,
			doubled: counts.filter((count) => count > 1).length,
		};
	} finally {
		for (const timer of timers) clearTimeout(timer);
		await sandbox.close();
		Object.assign(LIVE_SCHEDULE, saved.schedule);
		Object.assign(LIVE_LOOP, saved.loop);
		Object.assign(retrySettings, saved.retry);
		pacingSettings.windowMs = saved.windowMs;
		resetPacing();
	}
}
