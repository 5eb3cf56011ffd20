// Messenger Live Trigger activated and deactivated again and again, in process against the sandbox
// on loopback, as n8n does at each publish, edit or restart: each cycle starts the trigger on 5
// chats (their baselines read), lets its loop read and hand a message over, then awaits
// closeFunction. Measured: the triggers still in memory after a full GC (none may be: a loop, timer or request
// left behind keeps its trigger's context), the heap once warmed up and after the last cycle, and
// the requests sent after a closeFunction had resolved (none may). The pacing's window is
// shortened (and the schedule's times with it) so that the cycles do not wait for the API's minute.
import { MessengerLiveTrigger } from '../nodes/Messenger/MessengerLiveTrigger.node.ts';
import { LIVE_SCHEDULE } from '../nodes/Messenger/trigger/liveSchedule.ts';
import { LIVE_LOOP } from '../nodes/Messenger/trigger/messageLive.ts';
import { pacingSettings, resetPacing } from '../nodes/shared/pacing.ts';
import { DEMO_CLIENTS, startSandbox } from '../sandbox/server.mjs';
import { createTriggerContext, sandboxHttp } from '../tools/context.mjs';
import { customerChats } from './conversations.mjs';

const CHATS = 5;

/**
 * Heap in use after a full collection (the bench runs with --expose-gc), once the time limits of
 * the last requests have run out (each holds its abort signal until then).
 */
async function settledHeap() {
	await new Promise((resolve) => setTimeout(resolve, LIVE_LOOP.readBudgetMs + 200));
	// Twice, a turn apart: what a first collection finalizes (weak references) goes in the second.
	globalThis.gc?.();
	await new Promise((resolve) => setImmediate(resolve));
	globalThis.gc?.();
	return process.memoryUsage().heapUsed;
}

const until = async (check, ms = 5_000) => {
	const end = Date.now() + ms;
	while (!check()) {
		if (Date.now() > end) throw new Error('live cycle: timed out waiting');
		await new Promise((resolve) => setTimeout(resolve, 2));
	}
};

/**
 * Runs `cycles` activations and deactivations of one live trigger; returns the heap growth per
 * cycle after `warmUp` cycles, and the requests sent after a deactivation had resolved.
 */
export async function measureLiveCycles({ cycles = 200, warmUp = 20 } = {}) {
	const saved = {
		windowMs: pacingSettings.windowMs,
		schedule: structuredClone(LIVE_SCHEDULE),
		loop: structuredClone(LIVE_LOOP),
	};
	// The minute shortened to 200 ms, and the schedule's times with it.
	pacingSettings.windowMs = 200;
	Object.assign(LIVE_SCHEDULE, { activeGapMs: 10, quietGapMs: { min: 30, max: 200 } });
	Object.assign(LIVE_LOOP, { maxNapMs: 20, readBudgetMs: 1_000, activationBudgetMs: 1_000 });
	const sandbox = await startSandbox({ port: 0, rateWindowMs: 200, tokenRateLimitPerMinute: 0 });
	try {
		const { chatIds, write } = customerChats(sandbox, CHATS, '+3460020');
		const auth = sandboxHttp(sandbox, DEMO_CLIENTS.messengerOnly);
		const staticData = {};
		let heapAtWarmUp = 0;
		let afterStop = 0;
		let handedOver = 0;
		/** Each cycle's trigger context: a loop or timer left behind would keep its context alive. */
		const contexts = [];
		for (let cycle = 1; cycle <= cycles; cycle++) {
			const trigger = createTriggerContext({
				params: { event: 'messageReceived', chats: chatIds.join(','), direction: 'inbound' },
				http: auth.httpRequestWithAuthentication,
				credentials: auth.store.data,
				staticData,
			});
			contexts.push(new WeakRef(trigger.context));
			const response = await new MessengerLiveTrigger().trigger.call(trigger.context);
			await write(chatIds[cycle % CHATS]);
			await until(() => trigger.emitted.length > 0);
			handedOver += trigger.emitted.length;
			await response.closeFunction();
			const sent = auth.store.requests.length;
			await new Promise((resolve) => setTimeout(resolve, 20));
			// Requests sent after closeFunction resolved (one aborted by it may still reach the API).
			afterStop += auth.store.requests.length - sent;
			// The logs of the sandbox and of the test's credential double (each request's options).
			sandbox.log.length = 0;
			auth.store.requests.length = 0;
			performance.clearResourceTimings();
			if (cycle === warmUp) heapAtWarmUp = await settledHeap();
		}
		const growth = (await settledHeap()) - heapAtWarmUp;
		// The last cycle's context is still this function's variable.
		const retained = contexts.slice(0, -1).filter((ref) => ref.deref() !== undefined).length;
		return {
			cycles,
			handedOver,
			afterStop,
			retained,
			bytesPerCycle: growth / (cycles - warmUp),
			heapMb: heapAtWarmUp / 1e6,
		};
	} finally {
		await sandbox.close();
		pacingSettings.windowMs = saved.windowMs;
		Object.assign(LIVE_SCHEDULE, saved.schedule);
		Object.assign(LIVE_LOOP, saved.loop);
		resetPacing();
	}
}
