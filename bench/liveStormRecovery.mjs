// Messenger Live Trigger after a storm of 429s, in process against the sandbox on loopback: 20
// chats whose customers each write every 20–40 s (whatever the workflow does), a workflow that
// answers each message through the same credential, then for two minutes the API answers every
// request 429 (Retry-After: 1), then nothing is refused any more. Measured: the latency from
// message to the trigger's emit, p50 of the messages written in each minute after the storm's end
// against the p50 before the storm. Time runs `speedup` times faster on every side (the sandbox's
// window, the pacing's, the trigger's schedule, the customers), figures in real time.
import { MessengerLiveTrigger } from '../nodes/Messenger/MessengerLiveTrigger.node.ts';
import { apiRequest } from '../nodes/shared/transport.ts';
import { mulberry32 } from '../sandbox/data/random.mjs';
import { quantile } from '../tools/stats.mjs';
import { startLiveBench } from './liveConversations.mjs';

/** The run's phases, in real minutes. */
export const STORM_RUN = {
	/** After activation, before the customers start (the activation's reads hold the budget). */
	warmUp: 1,
	/** Customers writing, nothing refused: the normal latency. */
	normal: 3,
	/** Every API request answered 429. */
	storm: 2,
	/** Minutes measured after the storm, one p50 each. */
	after: 4,
	/**
	 * A customer writes every this many real seconds: 40 messages a minute from 20 chats, whose 40
	 * answers and the trigger's 60 reads fill the API's 100 a minute (`saturated`), or 20 a minute,
	 * which leaves 20 a minute for what the storm held back (`headroom`).
	 */
	writeEverySeconds: { saturated: { min: 20, max: 40 }, headroom: { min: 40, max: 80 } },
};

/**
 * Runs the storm against one live trigger at default settings, `speedup` times faster, customers
 * writing as `load` says (STORM_RUN.writeEverySeconds); returns the normal p50 (real seconds), the
 * p50 of each minute after the storm, their ratios to it, the same for the time from a message to
 * the workflow's answer sent, the chat reads a minute before the storm, the chat reads and answers
 * in each minute after it, and the messages lost or doubled.
 */
export async function measureLiveStormRecovery({
	chats = 20,
	speedup = 6,
	seed = 7,
	load = 'saturated',
} = {}) {
	const random = mulberry32(seed);
	const bench = await startLiveBench({ chats, speedup, prefix: '+3460020' });
	const { scale, ms, sandbox, chatIds, write, answering, trigger } = bench;
	const pause = (real) => new Promise((resolve) => setTimeout(resolve, ms(real)));
	let response;
	let running = true;
	try {
		/** Message ID → when written (ms as run); how often each was handed over; latencies. */
		const written = new Map();
		const seen = new Map();
		const handed = [];
		const answered = [];
		const answer = async (chatId, writtenAt) => {
			await pause(1_000);
			if (!running) return;
			const sent = await apiRequest
				.call(answering, 'POST', '/api/v1/messenger/messages/send/media', {
					body: { chatId, type: 'document', url: 'https://example.com/a.pdf' },
				})
				.then(
					() => true,
					() => false,
				);
			if (sent) answered.push({ writtenAt, latency: (Date.now() - writtenAt) / scale });
		};
		trigger.context.emit = (data) => {
			const now = Date.now();
			for (const { json } of data[0]) {
				const id = String(json.messageId);
				seen.set(id, (seen.get(id) ?? 0) + 1);
				const writtenAt = written.get(id);
				if (writtenAt === undefined || seen.get(id) > 1) continue;
				handed.push({ writtenAt, latency: (now - writtenAt) / scale });
				// The workflow answers a second later through the same credential (into the storm too).
				void answer(json.chatId, writtenAt);
			}
		};
		const { min, max } = STORM_RUN.writeEverySeconds[load];
		const customer = async (chatId) => {
			for (;;) {
				await pause((min + (max - min) * random()) * 1000);
				if (!running) return;
				const writtenAt = Date.now();
				written.set(await write(chatId), writtenAt);
			}
		};

		response = await new MessengerLiveTrigger().trigger.call(trigger.context);
		await pause(STORM_RUN.warmUp * 60_000);
		const normalFrom = Date.now();
		for (const chatId of chatIds) void customer(chatId);
		await pause(STORM_RUN.normal * 60_000);
		const stormFrom = Date.now();
		sandbox.setFaults({ rateLimitRate: 1 });
		await pause(STORM_RUN.storm * 60_000);
		sandbox.setFaults({});
		const stormEnd = Date.now();
		await pause(STORM_RUN.after * 60_000);
		running = false;
		// What was written by now is read within a quiet chat's gap at most.
		await pause(60_000);
		await response.closeFunction();

		const p50 = (from, to, of = handed) =>
			quantile(
				of.filter((h) => h.writtenAt >= from && h.writtenAt < to).map((h) => h.latency),
				0.5,
			) / 1000;
		const minuteOf = (index) => [
			stormEnd + ms(index * 60_000),
			stormEnd + ms((index + 1) * 60_000),
		];
		// The first half minute of writing is left out: every customer's first message comes at once.
		const normal = p50(normalFrom + ms(30_000), stormFrom);
		const minutes = Array.from({ length: STORM_RUN.after }, (_, index) => p50(...minuteOf(index)));
		const normalAnswer = p50(normalFrom + ms(30_000), stormFrom, answered);
		const answerMinutes = minutes.map((_, index) => p50(...minuteOf(index), answered));
		/** Requests of a kind in each minute after the storm. */
		const perMinute = (what) =>
			minutes.map((_, index) => {
				const [from, to] = minuteOf(index);
				return sandbox.log.filter(
					(entry) => what(entry) && Date.parse(entry.at) >= from && Date.parse(entry.at) < to,
				).length;
			});
		const isRead = (entry) => entry.path.includes('/messages/chat/');
		const readsBefore = sandbox.log.filter(
			(entry) =>
				isRead(entry) && Date.parse(entry.at) >= normalFrom && Date.parse(entry.at) < stormFrom,
		).length;
		const counts = [...written.keys()].map((id) => seen.get(id) ?? 0);
		return {
			normal,
			minutes,
			ratios: minutes.map((value) => value / normal),
			normalAnswer,
			answerMinutes,
			answerRatios: answerMinutes.map((value) => value / normalAnswer),
			readsBefore: readsBefore / STORM_RUN.normal,
			reads: perMinute(isRead),
			answers: perMinute((entry) => entry.path.endsWith('/send/media')),
			refused: sandbox.log.filter((entry) => entry.status === 429).length,
			written: written.size,
			lost: counts.filter((count) => count === 0).length,
			doubled: counts.filter((count) => count > 1).length,
		};
	} finally {
		running = false;
		if (response) await response.closeFunction();
		await bench.restore();
	}
}

// `node --import tsx bench/liveStormRecovery.mjs [saturated|headroom]`: these rows alone.
if (import.meta.url === `file://${process.argv[1]}`) {
	console.log(await measureLiveStormRecovery({ load: process.argv[2] ?? 'saturated' }));
}
