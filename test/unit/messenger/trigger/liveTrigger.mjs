// The Messenger Live Trigger activated as n8n activates it (trigger(), emit with the static data
// saved then, closeFunction at deactivation), with the schedule's and the loop's times shortened:
// the setup of the live suites (messageLive, liveFaults), and a restart as n8n makes one: the static
// data saved at the last save point, handed back in n8n's proxies.
import { ObservableObject } from 'n8n-workflow';

import { afterEach, beforeEach } from 'node:test';

import { MessengerLiveTrigger } from '../../../../nodes/Messenger/MessengerLiveTrigger.node.ts';
import { LIVE_SCHEDULE } from '../../../../nodes/Messenger/trigger/liveSchedule.ts';
import { LIVE_LOOP } from '../../../../nodes/Messenger/trigger/messageLive.ts';
import { pacingSettings, resetPacing } from '../../../../nodes/shared/pacing.ts';
import { retrySettings } from '../../../../nodes/shared/transport.ts';
import { createTriggerContext } from '../../../../tools/context.mjs';

const saved = {
	schedule: structuredClone(LIVE_SCHEDULE),
	loop: structuredClone(LIVE_LOOP),
	windowMs: pacingSettings.windowMs,
	retry: { ...retrySettings },
};
/** The triggers a test activated: each is deactivated after it, whatever the test did. */
const active = [];
export const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export const UNPACED = { baseUrl: 'https://api.example.com', requestsPerMinute: 0 };
export const PARAMS = { event: 'messageReceived', direction: 'inbound', messageTypes: [] };

/** Waits until `check()` holds (the loop runs on real, shortened time). */
export async function until(check, ms = 3000) {
	const end = Date.now() + ms;
	while (!check()) {
		if (Date.now() > end) throw new Error('timed out waiting');
		await pause(5);
	}
}

/** Activates the trigger as n8n does: `stop()` is n8n's deactivation. */
export async function activate(api, params, options = {}) {
	const double = createTriggerContext({
		params: { ...PARAMS, ...params },
		http: api.http,
		credentials: UNPACED,
		...options,
	});
	const response = await new MessengerLiveTrigger().trigger.call(double.context);
	if (response.closeFunction) active.push(response);
	const ids = () => double.emitted.flatMap((emit) => emit.items.map((item) => item.json.messageId));
	return { ...double, response, ids, stop: async () => await response.closeFunction() };
}

/** The suite's hooks: short times before each test, everything deactivated and restored after. */
export function useLiveTrigger() {
	beforeEach(() => {
		// The default budget (60 a minute) in a window of a second: the loop is not held back by it.
		pacingSettings.windowMs = 1000;
		Object.assign(retrySettings, { baseDelayMs: 5, maxDelayMs: 20, retryAfterJitterMs: 5 });
		Object.assign(LIVE_SCHEDULE, {
			activeGapMs: 10,
			quietGapMs: { min: 30, max: 60 },
			backoffMs: { min: 40, max: 80 },
			outageHoldMs: { min: 40, max: 80 },
		});
		Object.assign(LIVE_LOOP, { reportEveryMs: 10_000, maxNapMs: 20 });
	});

	afterEach(async () => {
		for (const response of active.splice(0)) await response.closeFunction();
		Object.assign(retrySettings, saved.retry);
		Object.assign(LIVE_SCHEDULE, structuredClone(saved.schedule));
		Object.assign(LIVE_LOOP, structuredClone(saved.loop));
		pacingSettings.windowMs = saved.windowMs;
		resetPacing();
	});
}

/**
 * The static data n8n hands a trigger after a restart: what it saved last (at the end of the
 * activation, `activation`, or at the last emit), wrapped in its proxies.
 */
export function restartedData(trigger, activation) {
	const last = trigger.emitted.at(-1)?.saved ?? activation;
	return ObservableObject.create(JSON.parse(JSON.stringify(last)));
}
