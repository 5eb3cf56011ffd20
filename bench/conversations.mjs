// Customers in conversation in watched chats, for the Messenger Live Trigger's benchmarks (in
// process: liveConversations.mjs; in a real n8n: liveConversationsN8n.mjs): each customer writes a
// first message, replies some seconds after each answer the workflow sends, a few times, falls
// quiet for a while and starts again. It keeps what was written and when, and what the workflow
// was handed: each message's latency (first messages and follow-ups apart), and the messages lost
// or handed over twice. The bench says how a customer writes, when a message was handed over and
// when an answer reached a chat; time may run `speedup` times faster (the figures stay in real
// time).
import { quantile } from '../tools/stats.mjs';

/** The customers' habits, in real milliseconds. */
export const CONVERSATION = {
	/**
	 * The customers start this long after the trigger was activated: in its first minute the
	 * budget holds the activation's reads (one a new chat) and the loop reads slower, a moment
	 * the benches leave out so that they measure the trigger as it runs (docs/triggers.md gives
	 * that minute's figure apart).
	 */
	afterActivationMs: 60_000,
	/** A first message comes within this long of the start, and again after a quiet spell. */
	firstWithinMs: 30_000,
	/** A reply comes this long after the answer. */
	replyAfterMs: { min: 5_000, max: 20_000 },
	/** Replies before the customer falls quiet. */
	replies: { min: 2, max: 5 },
	/** A quiet spell between two conversations of one customer. */
	quietMs: { min: 30_000, max: 90_000 },
	/** How long the workflow takes to answer once it started (where the bench plays the workflow). */
	answerAfterMs: 1_000,
};

/**
 * The goals the benches hold the trigger to, at the size they are stated for. That size runs
 * longer than the others: in 4 minutes a customer writes about two first messages, half of them
 * in the start's burst (every customer begins within CONVERSATION.firstWithinMs), and the p50 of
 * some 40 swings by seconds from one customers' timing to the next.
 */
export const LIVE_GOALS = {
	chats: 20,
	minutes: 10,
	followUp: { p50: 10, p95: 20 },
	first: { p50: 15 },
};

/** Minutes of conversation for a run at `chats`: longer at the goals' size. */
export function conversationMinutes(chats, minutes) {
	return chats === LIVE_GOALS.chats ? Math.max(minutes, LIVE_GOALS.minutes) : minutes;
}

/**
 * `count` new chats in `sandbox` (in this process), a customer on a phone starting with `prefix`
 * having written "Hello" in each, and `write(chatId)`: that chat's customer writes again (resolves
 * to the message's ID), for customersInConversation.
 * @param {{ customerWrites: (body: object) => any }} sandbox @param {number} count @param {string} prefix
 */
export function customerChats(sandbox, count, prefix) {
	const chatIds = [];
	for (let index = 0; index < count; index++) {
		const phone = `${prefix}${String(index).padStart(4, '0')}`;
		chatIds.push(sandbox.customerWrites({ phone, text: 'Hello' }).chat.id);
	}
	const write = async (chatId) => sandbox.customerWrites({ chatId, text: 'Hello' }).items[0].id;
	return { chatIds, write };
}

/**
 * The customers of `chatIds`. `write(chatId)` makes the customer of that chat write one message
 * and resolves to its ID; `random` (seeded, so that runs compare) draws every wait; `speedup`
 * runs the customers' habits that many times faster.
 * @param {{ chatIds: string[], write: (chatId: string) => Promise<string>, random: () => number, speedup?: number }} options
 */
export function customersInConversation({ chatIds, write, random, speedup = 1 }) {
	const scale = 1 / speedup;
	/** Real milliseconds as run. @param {number} real */
	const ms = (real) => Math.max(1, Math.round(real * scale));
	const between = ({ min, max }) => ms(min + (max - min) * random());
	const timers = new Set();
	/** Runs `work` after `delay` (ms as run), unless close() came first. */
	const later = (delay, work) => {
		const timer = setTimeout(() => {
			timers.delete(timer);
			work();
		}, delay);
		timers.add(timer);
	};

	/** Message ID → { writtenAt, first, chatId }; how often each was handed over; the latencies. */
	const written = new Map();
	const seen = new Map();
	const latency = { first: [], followUp: [] };
	const repliesLeft = new Map();
	/** Chats whose customer wrote and waits for the answer. */
	const waiting = new Set();
	let running = true;

	const customerWrites = async (chatId, first) => {
		if (!running) return;
		const writtenAt = Date.now();
		waiting.add(chatId);
		const id = await write(chatId);
		written.set(id, { writtenAt, first, chatId });
		if (first) {
			const { min, max } = CONVERSATION.replies;
			repliesLeft.set(chatId, min + Math.floor(random() * (max - min + 1)));
		}
	};

	return {
		ms,
		later,
		/** Every customer writes a first message within CONVERSATION.firstWithinMs. */
		start() {
			for (const chatId of chatIds) {
				later(between({ min: 0, max: CONVERSATION.firstWithinMs }), () =>
					customerWrites(chatId, true),
				);
			}
		},
		/**
		 * The message `id` was handed to the workflow at `at` (its start): its latency counts on its
		 * first hand-over. Returns the message when it is one of the customers' on its first
		 * hand-over (the workflow answers it then), else undefined.
		 * @param {string} id @param {number} [at]
		 */
		handedOver(id, at = Date.now()) {
			seen.set(id, (seen.get(id) ?? 0) + 1);
			const message = written.get(id);
			if (!message || seen.get(id) > 1) return undefined;
			latency[message.first ? 'first' : 'followUp'].push((at - message.writtenAt) / scale);
			return message;
		},
		/**
		 * The workflow's answer reached `chatId`: its customer replies some seconds later, or, after
		 * its last reply, falls quiet and starts again with a first message. An answer to a chat
		 * whose customer waits for none changes nothing.
		 * @param {string} chatId
		 */
		answered(chatId) {
			if (!waiting.delete(chatId)) return;
			const left = repliesLeft.get(chatId) ?? 0;
			repliesLeft.set(chatId, left - 1);
			if (left > 0) later(between(CONVERSATION.replyAfterMs), () => customerWrites(chatId, false));
			else
				later(
					between(CONVERSATION.quietMs) + between({ min: 0, max: CONVERSATION.firstWithinMs }),
					() => customerWrites(chatId, true),
				);
		},
		/** The customers stop writing (what they wrote may still be handed over). */
		stop() {
			running = false;
		},
		/** No timer of the customers' runs any more. */
		close() {
			running = false;
			for (const timer of timers) clearTimeout(timer);
			timers.clear();
		},
		/** Every message the customers wrote: its ID, chat, when (ms as run) and whether it was a first one. */
		messages() {
			return [...written].map(([id, message]) => ({ id, ...message }));
		},
		/** How many customers wrote and wait for the answer. */
		waiting() {
			return waiting.size;
		},
		/**
		 * The latencies in real seconds (p50, p95; first messages and follow-ups apart), the
		 * messages written, those never handed over or handed over more than once, and the
		 * messages handed over that the customers did not write (`others`).
		 */
		figures() {
			const counts = [...written.keys()].map((id) => seen.get(id) ?? 0);
			const of = (values) => ({
				n: values.length,
				p50: quantile(values, 0.5) / 1000,
				p95: quantile(values, 0.95) / 1000,
			});
			return {
				first: of(latency.first),
				followUp: of(latency.followUp),
				written: written.size,
				lost: counts.filter((count) => count === 0).length,
				doubled: counts.filter((count) => count > 1).length,
				others: [...seen.keys()].filter((id) => !written.has(id)).length,
			};
		},
	};
}
