// Messenger Live Trigger: Message Received as a long-running trigger, driven as n8n drives one
// (trigger() at activation, emit with the static data saved then, closeFunction at deactivation),
// against the in-memory chat API, with the schedule's times shortened.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { MessengerLiveTrigger } from '../../../../nodes/Messenger/MessengerLiveTrigger.node.ts';
import { LIVE_SCHEDULE } from '../../../../nodes/Messenger/trigger/liveSchedule.ts';
import { LIVE_LOOP } from '../../../../nodes/Messenger/trigger/messageLive.ts';
import {
	pacingSettings,
	resetPacing,
	settleRequestSlot,
	waitForRequestSlot,
} from '../../../../nodes/shared/pacing.ts';
import { retrySettings } from '../../../../nodes/shared/transport.ts';
import { createTriggerContext, httpError } from '../../../../tools/context.mjs';
import { fakeApi, message } from './chatApi.mjs';
import { activate, PARAMS, pause, UNPACED, until, useLiveTrigger } from './liveTrigger.mjs';

useLiveTrigger();

describe('Messenger Live Trigger', () => {
	it('records a baseline at activation and hands each new message over once, the cursor saved with its emit', async () => {
		const api = fakeApi();
		const [old] = api.add('cht_a', message('cht_a', 1));
		api.add('cht_b', message('cht_b', 1));
		const t = await activate(api, { chats: 'cht_a, cht_b' });
		assert.deepEqual(t.staticData.live.state.chats.cht_a.ids, [old.id]);
		const [first] = api.add('cht_a', message('cht_a', 5));
		await until(() => t.emitted.length === 1);
		const [second, third] = api.add('cht_b', message('cht_b', 6), message('cht_b', 7));
		await until(() => t.emitted.length === 2);
		await pause(100);
		await t.stop();
		assert.deepEqual(t.ids(), [first.id, second.id, third.id]);
		// n8n saves the static data when emit is called: the cursor had passed what it reports.
		assert.deepEqual(t.emitted[0].saved.live.state.chats.cht_a.ids, [first.id]);
		assert.deepEqual(t.emitted[1].saved.live.state.chats.cht_b.ids, [third.id]);
		assert.match(t.emitted[1].deduplicationKey, new RegExp(`${second.id},${third.id}$`));
	});

	it('after closeFunction resolves: no request, no emit, no timer', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 1));
		const t = await activate(api, { chats: 'cht_a' });
		await until(() => api.historyCalls('cht_a') >= 3);
		await t.stop();
		const calls = api.calls.length;
		api.add('cht_a', message('cht_a', 9));
		await pause(150);
		assert.equal(api.calls.length, calls);
		assert.equal(t.emitted.length, 0);
	});

	it('deactivated while a read waits for a slow API: the read is cut short, closeFunction does not wait for it', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 1));
		let hanging = false;
		const slowHttp = async (type, options) => {
			if (api.historyCalls('cht_a') >= 1) {
				// The loop's read (after activation's): answers only after 10 s, as a stalled API would.
				hanging = true;
				await new Promise((resolve, reject) => {
					const timer = setTimeout(resolve, 10_000);
					options.abortSignal?.addEventListener('abort', () => {
						clearTimeout(timer);
						reject(Object.assign(new Error('The operation was aborted'), { code: 'ABORT_ERR' }));
					});
				});
			}
			return await api.http(type, options);
		};
		const t = await activate({ ...api, http: slowHttp }, { chats: 'cht_a' });
		await until(() => hanging);
		const started = Date.now();
		await t.stop();
		const took = Date.now() - started;
		assert.ok(took < 2_000, `closeFunction took ${took} ms (the read under way had 10 s to go)`);
		assert.equal(t.emitted.length, 0);
	});

	// n8n awaits closeFunction at deactivation, update and shutdown: whatever the loop waits for
	// (a turn of the credential's pacing, a retry's back-off, a server's pause, an answer), it
	// returns at once, and nothing goes out after it.
	const waits = {
		async 'a turn of a credential other executions used up'(api, http) {
			// A 15 s window (a turn waits up to a read's 20 s): the activation's read and another
			// execution's fill the credential's 2 a window, and the loop's read waits for a place.
			pacingSettings.windowMs = 15_000;
			// A client of its own: no read of an earlier test's loop holds its live budget's spacing.
			const credentials = { ...UNPACED, clientId: 'used-up', requestsPerMinute: 2 };
			const t = await activate({ ...api, http }, { chats: 'cht_a' }, { credentials });
			settleRequestSlot(await waitForRequestSlot('https://api.example.com|used-up', 2));
			return t;
		},
		async 'a retry after a 503 with Retry-After: 10'(api, http) {
			// 10 s fit in a read's time (a 30 s one does not: the read fails, the loop naps).
			api.answer = () => httpError(503, { message: 'Unavailable' }, { 'retry-after': '10' });
			return await activate({ ...api, http }, { chats: 'cht_a' });
		},
		async 'the server’s pause after a 429 with Retry-After: 10'(api, http) {
			// A minute's window: the pacing holds the whole pause (it cuts a pause to its window).
			pacingSettings.windowMs = 60_000;
			api.answer = () => httpError(429, { message: 'Too Many Requests' }, { 'retry-after': '10' });
			const credentials = { ...UNPACED, requestsPerMinute: 100 };
			return await activate({ ...api, http }, { chats: 'cht_a' }, { credentials });
		},
		async 'an answer from a host that ignores the abort signal'(api, http) {
			api.answer = () => pause(10_000).then(() => httpError(503, { message: 'Late' }));
			return await activate({ ...api, http }, { chats: 'cht_a' });
		},
	};
	for (const [wait, start] of Object.entries(waits)) {
		it(`deactivated while the loop waits for ${wait}: closeFunction returns within a second, nothing goes out after it`, async () => {
			LIVE_LOOP.backoffMs = { min: 60_000, max: 60_000 };
			const api = fakeApi();
			api.add('cht_a', message('cht_a', 1));
			let sent = 0;
			const http = async (type, options) => {
				sent++;
				// The activation's read is answered; the loop's meet the test's answer, if it has one.
				if (!api.answer || sent === 1) return await api.http(type, options);
				throw await api.answer();
			};
			const t = await start(api, http);
			await pause(1000);
			const before = sent;
			const started = Date.now();
			await t.stop();
			const took = Date.now() - started;
			assert.ok(took < 1000, `closeFunction took ${took} ms`);
			await pause(200);
			assert.equal(sent, before, 'a request after closeFunction');
			assert.equal(t.emitted.length, 0);
		});
	}

	it('a restart (deactivate, activate with the saved state) repeats nothing and loses nothing', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 1));
		const staticData = {};
		const first = await activate(api, { chats: 'cht_a' }, { staticData });
		const [before] = api.add('cht_a', message('cht_a', 2));
		await until(() => first.emitted.length === 1);
		await first.stop();
		const [meanwhile] = api.add('cht_a', message('cht_a', 3));
		const again = await activate(api, { chats: 'cht_a' }, { staticData, activation: 'init' });
		await until(() => again.emitted.length === 1);
		await pause(80);
		await again.stop();
		assert.deepEqual(first.ids(), [before.id]);
		assert.deepEqual(again.ids(), [meanwhile.id]);
	});

	it('a burst of 429s holds the reads back, fails one execution with its cause and loses nothing', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 1));
		const t = await activate(api, { chats: 'cht_a' });
		let refused = 0;
		const serve = api.http;
		api.limit = true;
		const limited = async (type, options) => {
			if (api.limit) {
				refused++;
				throw httpError(429, { message: 'Too Many Requests' }, { 'retry-after': '0' });
			}
			return await serve(type, options);
		};
		// The double's request helper is the API's: swap it for the limited one.
		t.context.helpers.httpRequestWithAuthentication = limited;
		const [written] = api.add('cht_a', message('cht_a', 4));
		// Each 429 also cuts the budget's rate (pacing.ts): the reads come ever more slowly.
		await until(() => refused >= 6, 6000);
		api.limit = false;
		await until(() => t.emitted.length === 1, 6000);
		await pause(60);
		await t.stop();
		assert.deepEqual(t.ids(), [written.id]);
		assert.equal(t.failed.length, 1);
		assert.equal(t.failed[0].failure?.cause, 'rate-limited');
	});

	it('a chat in conversation is read more often than a quiet one', async () => {
		Object.assign(LIVE_SCHEDULE, { quietGapMs: { min: 100, max: 200 }, activeSpanMs: 1_000 });
		pacingSettings.windowMs = 300;
		const api = fakeApi();
		api.add('cht_busy', message('cht_busy', 1));
		api.add('cht_quiet', message('cht_quiet', 1));
		const t = await activate(api, { chats: 'cht_busy, cht_quiet' });
		api.add('cht_busy', message('cht_busy', 2));
		await until(() => t.emitted.length === 1);
		const busy = api.historyCalls('cht_busy');
		const quiet = api.historyCalls('cht_quiet');
		await pause(300);
		await t.stop();
		assert.ok(
			api.historyCalls('cht_busy') - busy > 3 * (api.historyCalls('cht_quiet') - quiet),
			`busy ${api.historyCalls('cht_busy') - busy}, quiet ${api.historyCalls('cht_quiet') - quiet}`,
		);
	});

	it('a chat the activation had no time to read counts its messages from the activation on, not from its first read', async () => {
		LIVE_LOOP.activationBudgetMs = 30;
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 1));
		api.add('cht_b', message('cht_b', 1));
		// A slow API: the activation's time ends after the first chat.
		const slowHttp = async (type, options) => {
			await pause(60);
			return await api.http(type, options);
		};
		const t = await activate({ ...api, http: slowHttp }, { chats: 'cht_a, cht_b' });
		assert.equal(api.historyCalls('cht_b'), 0);
		assert.deepEqual(t.staticData.live.state.chats.cht_b.ids, []);
		// Written after activation, before the loop first reads the chat.
		const [meanwhile] = api.add(
			'cht_b',
			message('cht_b', 0, { createdAt: new Date(Date.now() + 1).toISOString() }),
		);
		await until(() => t.emitted.length === 1);
		await t.stop();
		assert.deepEqual(t.ids(), [meanwhile.id]);
	});

	it('keeps to the credential’s Live Trigger Requests per Minute, shared by every live trigger on it', async () => {
		pacingSettings.windowMs = 400;
		const api = fakeApi();
		for (const chat of ['cht_a', 'cht_b', 'cht_c']) api.add(chat, message(chat, 1));
		const sent = [];
		const serve = api.http;
		const timed = async (type, options) => {
			sent.push(Date.now());
			return await serve(type, options);
		};
		const credentials = {
			baseUrl: 'https://api.example.com',
			requestsPerMinute: 100,
			liveRequestsPerMinute: 4,
		};
		const one = await activate({ ...api, http: timed }, { chats: 'cht_a, cht_b' }, { credentials });
		const two = await activate({ ...api, http: timed }, { chats: 'cht_c' }, { credentials });
		const from = sent.length;
		await pause(1400);
		await one.stop();
		await two.stop();
		const loop = sent.slice(from);
		assert.ok(loop.length >= 8, `only ${loop.length} reads`);
		for (const [index, at] of loop.entries()) {
			const inWindow = loop.filter((other) => other > at - 400 && other <= at).length;
			assert.ok(inWindow <= 4, `${inWindow} requests in one window at read ${index}`);
		}
	});

	it('Fetch Test Event emits the latest message and moves nothing', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 1));
		const [latest] = api.add('cht_b', message('cht_b', 3));
		const staticData = {};
		const double = createTriggerContext({
			params: { ...PARAMS, chats: 'cht_a, cht_b' },
			http: api.http,
			credentials: UNPACED,
			staticData,
			mode: 'manual',
		});
		const response = await new MessengerLiveTrigger().trigger.call(double.context);
		assert.equal(api.calls.length, 0, 'trigger() itself reads nothing in manual mode');
		const got = [];
		double.context.emit = (data) => got.push(data);
		await response.manualTriggerFunction();
		assert.equal(got[0][0][0].json.messageId, latest.id);
		assert.deepEqual(staticData, {});
		assert.equal(response.closeFunction, undefined);
	});

	it('refuses bad settings before any request, naming the field', async () => {
		const api = fakeApi();
		await assert.rejects(activate(api, { chats: '' }), {
			name: 'NodeOperationError',
			message: /Chats/,
		});
		await assert.rejects(
			activate(api, { chats: 'cht_a', options: { waitForPause: -1 } }),
			/Wait for a Pause/,
		);
		assert.equal(api.calls.length, 0);
	});

	it('Wait for a Pause holds a chat’s messages and hands them over together once it is quiet', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 1));
		const t = await activate(api, {
			chats: 'cht_a',
			options: { groupByChat: true, waitForPause: 0.2 },
		});
		const written = [
			...api.add('cht_a', message('cht_a', 2)),
			...api.add('cht_a', message('cht_a', 3)),
		];
		await until(() => t.emitted.length === 1);
		await t.stop();
		assert.deepEqual(
			t.emitted[0].items[0].json.messageIds,
			written.map((m) => m.id),
		);
		assert.equal(t.emitted[0].saved.live.state.held, undefined);
	});
});
