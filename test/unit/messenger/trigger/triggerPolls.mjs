// Messenger Trigger's own code polled as n8n polls it, for the trigger's tests: one trigger polled
// step by step against an API of the test's (messengerOutages, unknownWatchedIds), and a generated
// world's whole run of polls, restarts and quiet end (chatHistories, broadcastHistories).
import assert from 'node:assert/strict';

import fc from 'fast-check';

import { MessengerTrigger } from '../../../../nodes/Messenger/MessengerTrigger.node.ts';
import { createPollContext, httpError, scriptedHttp } from '../../../../tools/context.mjs';

export const API_URL = 'https://api.example.com';
const INTERVAL_MS = 60_000;

/** The context says n8n activated the workflow in `mode` (undefined: an n8n whose context does not say). */
function activatedIn(context, mode) {
	if (mode === undefined) delete context.getActivationMode;
	else context.getActivationMode = () => mode;
}

/**
 * A trigger polled on demand against `api.http`; `poll()` resolves to the items emitted and the
 * failed executions. With `{ mode }`, n8n activated it in that mode (see activatedIn); without,
 * the context's own.
 */
export function trigger(api, params, options = {}) {
	const node = new MessengerTrigger();
	const staticData = {};
	const poll = async () => {
		const { context, emittedErrors } = createPollContext({
			params: { direction: 'inbound', messageTypes: [], statuses: [], ...params },
			http: api.http,
			credentials: { baseUrl: API_URL, requestsPerMinute: 0 },
			staticData,
		});
		if ('mode' in options) activatedIn(context, options.mode);
		const result = await node.poll.call(context);
		return { items: result ? result[0] : [], emittedErrors };
	};
	return { poll, staticData };
}

/**
 * A generated world's tapes shared by the histories: the answers cut off by the poll's time and
 * the outages (both counted among answers, up to `lastAnswer`; answered with one of `statuses`),
 * and where n8n restarts.
 */
export const tapeArbitraries = (lastAnswer, statuses = [503, 429]) => ({
	slowAt: fc.uniqueArray(fc.integer({ min: 1, max: lastAnswer }), { maxLength: 3 }),
	outages: fc.array(
		fc.record({
			at: fc.integer({ min: 1, max: lastAnswer }),
			length: fc.integer({ min: 1, max: 7 }),
			status: fc.constantFrom(...statuses),
		}),
		{ maxLength: 2 },
	),
	restartAfter: fc.uniqueArray(fc.integer({ min: 0, max: 12 }), { maxLength: 2 }),
});

/**
 * What the tapes make of the world's `n`th answer: an outage fails it (503, 429); an answer cut
 * off by the poll's time (`slow()`, asked once the outages have had their say) gets no answer
 * within what was left of it, so the clock moves on by the request's timeout and the request
 * times out; any other answer takes its duration on the clock (100 ms once the polls are quiet,
 * when there are neither outages nor cut-offs).
 */
export function answerOnTape(world, api, n, { options, advance, slow }) {
	const status = !api.quiet && world.outages.find((o) => n >= o.at && n < o.at + o.length)?.status;
	if (status) throw httpError(status, { message: 'Unavailable' });
	const cutOff = slow();
	if (!api.quiet && cutOff) {
		advance(options.timeout ?? 0);
		throw Object.assign(new Error('timeout exceeded'), { code: 'ECONNABORTED' });
	}
	advance(api.quiet ? 100 : world.answers[n % world.answers.length].ms);
}

/**
 * Runs a world through the trigger's own code as n8n polls it: polls while the world moves on
 * (`moveOn()` after each, the clock moved on by the interval; n8n restarting where the world says,
 * from the state it kept), then `api.quiet` polls until `settled(staticData)`. n8n keeps the static
 * data of a poll that emitted items, and of the first (activation); a failed poll must change
 * nothing. Around each poll: `startPoll()` before it; after one that succeeded,
 * `recordPoll(state, before, lineage)` checks its state and adds to the lineage of the kept state,
 * and `emittedOf(item)` says what each item emitted. Resolves to what was emitted, the failed
 * executions, what the polls threw, the lineage, and whether a person's activation was refused.
 */
export async function pollWorld(world, api, hooks) {
	const { params, store, refusable, tick, moveOn, settled } = hooks;
	const { http } = scriptedHttp((options) => api.respond(options));
	let staticData = {};
	let lineage = {};
	let saved = { staticData: {}, lineage: {} };
	let node = new MessengerTrigger();
	const emitted = [];
	const failures = [];
	const thrown = [];

	const poll = async () => {
		hooks.startPoll();
		const before = staticData.poll?.state;
		const { context, emittedErrors } = createPollContext({
			params,
			http,
			credentials: { baseUrl: API_URL, requestsPerMinute: 0 },
			staticData,
			pollBudgetMs: world.budgetMs,
			store,
		});
		activatedIn(context, world.activation);
		let result;
		try {
			result = await node.poll.call(context);
		} catch (error) {
			thrown.push(error);
			assert.equal(staticData.poll?.state, before, 'a failed poll changes nothing');
			return;
		} finally {
			failures.push(...emittedErrors);
		}
		hooks.recordPoll(staticData.poll.state, before, lineage);
		for (const item of result ? result[0] : []) emitted.push(...hooks.emittedOf(item));
		if (result || !before) saved = structuredClone({ staticData, lineage });
	};

	const restart = () => {
		node = new MessengerTrigger();
		({ staticData, lineage } = structuredClone(saved));
	};

	let polls = 0;
	while ((!api.done() || polls === 0) && polls < 40) {
		if (world.restartAfter.includes(polls)) restart();
		await poll();
		polls++;
		if (refusable && !staticData.poll) continue;
		tick(INTERVAL_MS);
		moveOn();
	}
	api.quiet = true;
	hooks.quietEnd?.();
	for (let quiet = 0; quiet < 12 && (quiet === 0 || !settled(staticData)); quiet++) {
		tick(INTERVAL_MS);
		await poll();
	}
	const refusedAtActivation = refusable && !staticData.poll;
	if (!refusedAtActivation) {
		assert.ok(settled(staticData), `not settled: ${JSON.stringify(staticData)}`);
	}
	return { emitted, failures, thrown, lineage, refusedAtActivation };
}
