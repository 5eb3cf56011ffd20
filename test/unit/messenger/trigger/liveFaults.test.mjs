// Messenger Live Trigger: a fault stays where it is. Whatever one chat or one file does (a 5xx or a
// 403 on every read, a 404, a history too long to read in one read's time, a file whose host fails),
// the other chats keep their turns; the failing chat is read again after a growing delay of its own
// and named in a failed execution at the start of its streak, not at every read; nothing is
// silenced for good, and the activation names every chat it could not read in one failed execution.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';

import { LIVE_SCHEDULE } from '../../../../nodes/Messenger/trigger/liveSchedule.ts';
import { budgetsInUse } from '../../../../nodes/Messenger/trigger/liveShares.ts';
import { LIVE_LOOP } from '../../../../nodes/Messenger/trigger/messageLive.ts';
import { retrySettings } from '../../../../nodes/shared/transport.ts';
import { httpError, scriptedHttp } from '../../../../tools/context.mjs';
import { fakeApi, message } from './chatApi.mjs';
import { activate, pause, until, useLiveTrigger } from './liveTrigger.mjs';

useLiveTrigger();

const HEALTHY = ['cht_a', 'cht_b', 'cht_c', 'cht_d'];

/** The API with `chats` holding a message each, and the times at which each chat's history was asked for. */
function watched(chats) {
	const api = fakeApi();
	for (const chat of chats) api.add(chat, message(chat, 1));
	const asked = new Map();
	const serve = api.http;
	const http = async (type, options) => {
		const chat = /\/messages\/chat\/([^/]+)$/.exec(options.url)?.[1];
		if (chat) asked.set(chat, [...(asked.get(chat) ?? []), Date.now()]);
		return await serve(type, options);
	};
	return { ...api, http, asked };
}

/** Reads: the first of each read's `attempts` requests (a GET that meets a 5xx is tried 3 times in all). */
function readsOf(asked, attempts = 1) {
	return asked.filter((_, index) => index % attempts === 0);
}

describe('Messenger Live Trigger: one chat failing', () => {
	for (const status of [500, 403]) {
		it(`a chat answering ${status} on every read holds back no other; it is read again with a growing delay and named once`, async () => {
			Object.assign(LIVE_SCHEDULE, { backoffMs: { min: 60, max: 480 } });
			const api = watched([...HEALTHY, 'cht_bad']);
			const t = await activate(api, { chats: [...HEALTHY, 'cht_bad'].join(',') });
			api.failing.add('cht_bad', status);
			const start = Date.now();
			const written = [];
			const latencies = [];
			for (const [index, chat] of [...HEALTHY, ...HEALTHY].entries()) {
				const [sent] = api.add(chat, message(chat, 10 + index));
				written.push(sent.id);
				const from = Date.now();
				await until(() => t.ids().includes(sent.id), 1500);
				latencies.push(Date.now() - from);
			}
			await pause(Math.max(0, 1000 - (Date.now() - start)));
			await t.stop();
			assert.deepEqual(t.ids(), written);
			assert.ok(Math.max(...latencies) < 800, `latencies ${latencies.join(', ')} ms`);
			const attempts = status === 500 ? retrySettings.transientAttempts : 1;
			const reads = readsOf(
				api.asked.get('cht_bad').filter((time) => time >= start),
				attempts,
			);
			const gaps = reads.slice(1).map((time, index) => time - reads[index]);
			assert.ok(reads.length <= 7, `${reads.length} reads of the failing chat in a second`);
			assert.ok(gaps.at(-1) > 1.5 * gaps[0], `gaps ${gaps.join(', ')} ms`);
			assert.equal(t.failed.length, 1, t.failed.map((error) => error.message).join('\n'));
			assert.match(t.failed[0].message, /The watched chat "cht_bad" could not be read/);
			const cause = status === 500 ? 'temporarily-unavailable' : 'configuration-invalid';
			assert.equal(t.failed[0].failure?.cause, cause);
			// The reads in between are logged (the last may have been cut short by the deactivation).
			assert.ok(t.warnings.length >= reads.length - 2, `${t.warnings.length} of ${reads.length}`);
			for (const warning of t.warnings) assert.match(warning, /"cht_bad" could not be read/);
		});
	}

	it('a chat that comes back is read at its usual pace again, and its next failure is named at once', async () => {
		Object.assign(LIVE_SCHEDULE, { backoffMs: { min: 40, max: 40 } });
		const api = watched(['cht_a', 'cht_bad']);
		const t = await activate(api, { chats: 'cht_a, cht_bad' });
		api.failing.add('cht_bad', 403);
		await until(() => t.failed.length === 1);
		api.failing.delete('cht_bad');
		const [back] = api.add('cht_bad', message('cht_bad', 5));
		await until(() => t.ids().includes(back.id));
		api.failing.add('cht_bad', 403);
		await until(() => t.failed.length === 2);
	});
});

describe('Messenger Live Trigger: the API down for every chat', () => {
	it('the reads thin out while it lasts and come back with it; one failed execution', async () => {
		Object.assign(LIVE_SCHEDULE, {
			backoffMs: { min: 40, max: 2000 },
			outageHoldMs: { min: 40, max: 320 },
		});
		const api = watched(HEALTHY);
		const t = await activate(api, { chats: HEALTHY.join(',') });
		for (const chat of HEALTHY) api.failing.add(chat, 503);
		const start = Date.now();
		await pause(1500);
		const reads = readsOf(
			[...api.asked.values()]
				.flat()
				.filter((time) => time >= start)
				.sort((a, b) => a - b),
			retrySettings.transientAttempts,
		);
		for (const chat of HEALTHY) api.failing.delete(chat);
		const [back] = api.add('cht_c', message('cht_c', 5));
		await until(() => t.ids().includes(back.id), 2000);
		await t.stop();
		assert.ok(reads.length <= 12, `${reads.length} reads in 1.5 s`);
		assert.equal(t.failed.length, 1);
		assert.equal(t.failed[0].failure?.cause, 'temporarily-unavailable');
	});
});

describe('Messenger Live Trigger: a chat the API does not know', () => {
	it('found gone after activation: the others go on, it keeps its cursor and is read again with a growing delay until it is back', async () => {
		Object.assign(LIVE_SCHEDULE, { backoffMs: { min: 40, max: 320 } });
		const api = watched(['cht_a', 'cht_gone']);
		const t = await activate(api, { chats: 'cht_a, cht_gone' });
		const kept = t.staticData.live.state.chats.cht_gone;
		const history = api.chats.get('cht_gone');
		api.chats.delete('cht_gone');
		await until(() => t.failed.length === 1);
		const [a2] = api.add('cht_a', message('cht_a', 2));
		await until(() => t.ids().includes(a2.id));
		assert.match(t.failed[0].message, /The watched chat "cht_gone" was not found/);
		assert.deepEqual(t.staticData.live.state.chats.cht_gone, kept, 'nothing stored as missing');
		await pause(700);
		const reads = readsOf(api.asked.get('cht_gone'));
		assert.ok(reads.length >= 4, `read ${reads.length} times`);
		const gaps = reads.slice(2).map((time, index) => time - reads[index + 1]);
		assert.ok(gaps.at(-1) > 2 * gaps[0], `gaps ${gaps.join(', ')} ms`);
		// The 404 passes: what was written meanwhile comes, once.
		api.chats.set('cht_gone', history);
		const [meanwhile] = api.add('cht_gone', message('cht_gone', 3));
		await until(() => t.ids().includes(meanwhile.id), 2000);
		await t.stop();
		assert.deepEqual(t.ids(), [a2.id, meanwhile.id]);
		assert.equal(t.failed.length, 1);
	});

	it('at start-up, every chat it cannot read is named in one failed execution; they are read again, and at the next activation', async () => {
		Object.assign(LIVE_SCHEDULE, { backoffMs: { min: 40, max: 80 } });
		const api = watched(['cht_a']);
		const staticData = {};
		const chats = 'cht_a, cht_x, cht_y, cht_z';
		const t = await activate(api, { chats }, { activation: 'init', staticData });
		assert.equal(t.failed.length, 1);
		for (const chat of ['cht_x', 'cht_y', 'cht_z']) {
			assert.match(t.failed[0].message, new RegExp(`"${chat}" was not found`));
		}
		await until(() => ['cht_x', 'cht_y', 'cht_z'].every((chat) => api.asked.get(chat).length >= 3));
		assert.equal(t.failed.length, 1, 'not named again right after');
		await t.stop();
		// Deactivated and activated by a person, the chats now there: read again, and watched.
		api.add('cht_x', message('cht_x', 1));
		const again = await activate(api, { chats: 'cht_a, cht_x' }, { staticData });
		// Written now: the chat is watched from the first activation on.
		const [x2] = api.add('cht_x', message('cht_x', 0, { createdAt: new Date().toISOString() }));
		await until(() => again.ids().includes(x2.id));
		assert.deepEqual(again.failed, []);
	});

	it('at start-up, a chat answering 503 or 403 is its own failure: the others are watched, all named in one failed execution, each read again after its own back-off and watched from the start', async () => {
		Object.assign(LIVE_SCHEDULE, { backoffMs: { min: 300, max: 600 } });
		const api = watched(['cht_a', 'cht_5', 'cht_4']);
		api.failing.add('cht_5', 503);
		api.failing.add('cht_4', 403);
		const t = await activate(api, { chats: 'cht_a, cht_5, cht_4, cht_x' }, { activation: 'init' });
		const began = Date.now();
		assert.equal(t.failed.length, 1, t.failed.map((error) => error.message).join('\n'));
		assert.match(t.failed[0].message, /^3 watched chats could not be read/);
		for (const named of [
			'"cht_5" could not be read',
			'"cht_4" could not be read',
			'"cht_x" was not found',
		]) {
			assert.ok(t.failed[0].message.includes(named), `${named}: ${t.failed[0].message}`);
		}
		const [a2] = api.add('cht_a', message('cht_a', 0, { createdAt: new Date().toISOString() }));
		await until(() => t.ids().includes(a2.id));
		// Written after watching began, while its chat failed: it comes once the chat is read.
		const [late] = api.add('cht_5', message('cht_5', 0, { createdAt: new Date().toISOString() }));
		assert.equal(api.asked.get('cht_5').filter((time) => time >= began).length, 0);
		api.failing.delete('cht_5');
		await until(() => t.ids().includes(late.id));
		const first = api.asked.get('cht_5').find((time) => time >= began);
		assert.ok(first - began >= 250, `read again ${first - began} ms after the activation`);
		await t.stop();
		assert.deepEqual(t.ids(), [a2.id, late.id]);
	});

	it('at start-up with every read failing for a cause every read meets (the API down): the activation fails, for n8n to try again', async () => {
		const api = watched(['cht_a', 'cht_b']);
		api.failing.add('cht_a', 503);
		api.failing.add('cht_b', 500);
		await assert.rejects(
			activate(api, { chats: 'cht_a, cht_b' }, { activation: 'init' }),
			/HTTP 50[03]/,
		);
	});

	it("a person's activation is refused when a chat's read fails, naming it", async () => {
		const api = watched(['cht_a', 'cht_5']);
		api.failing.add('cht_5', 503);
		await assert.rejects(
			activate(api, { chats: 'cht_a, cht_5' }, { activation: 'activate' }),
			/503/,
		);
	});

	it('a chat stored as missing for good by an earlier version is read again, from a new baseline', async () => {
		const api = watched(['cht_a']);
		const staticData = {
			live: {
				key: 'messageReceived',
				state: { chats: { cht_a: { at: '', ids: [], missing: true } } },
			},
		};
		const t = await activate(api, { chats: 'cht_a' }, { staticData });
		await until(() => api.asked.get('cht_a')?.length >= 2);
		const [a2] = api.add('cht_a', message('cht_a', 2));
		await until(() => t.ids().length > 0);
		await pause(50);
		assert.deepEqual(t.ids(), [a2.id], 'its history is not reported');
	});
});

describe('Messenger Live Trigger: what one read cannot finish', () => {
	it('a history served oldest first, too long for one read: each read goes on where the last stopped, and its new message comes', async () => {
		Object.assign(LIVE_LOOP, { readBudgetMs: 150 });
		const api = fakeApi();
		const old = Array.from({ length: 3000 }, (_, index) => message('cht_long', index));
		api.add('cht_long', ...old);
		api.add('cht_a', message('cht_a', 1));
		const serve = api.http;
		const slow = async (type, options) => {
			if (options.url.includes('cht_long')) await pause(20);
			return await serve(type, { ...options, qs: { ...options.qs, sort: 'asc' } });
		};
		const t = await activate({ ...api, http: slow }, { chats: 'cht_long, cht_a' });
		const from = api.historyCalls('cht_long');
		const [fresh] = api.add('cht_long', message('cht_long', 5000));
		await until(() => t.ids().includes(fresh.id), 5000);
		const [a2] = api.add('cht_a', message('cht_a', 2));
		await until(() => t.ids().includes(a2.id), 2000);
		await t.stop();
		assert.deepEqual(t.ids(), [fresh.id, a2.id]);
		const pages = api.historyCalls('cht_long') - from;
		assert.ok(pages < 60, `${pages} pages read for 30`);
		assert.deepEqual(t.failed, []);
	});

	it("a file whose host fails comes with mediaError, and the chat's next message after it", async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 1));
		const files = scriptedHttp(async (options) => {
			if (options.url.endsWith('/broken')) throw httpError(503, { message: 'Unavailable' });
			return { body: Readable.from([Buffer.from('jpeg')]), headers: {}, statusCode: 200 };
		});
		const http = async (type, options) =>
			String(options.url).includes('/media/')
				? await files.http(type, options)
				: await api.http(type, options);
		const t = await activate(
			{ ...api, http },
			{ chats: 'cht_a', options: { downloadMedia: true } },
		);
		const [photo] = api.add(
			'cht_a',
			message('cht_a', 2, {
				type: 'image',
				content: { url: 'https://files.example.com/media/broken' },
			}),
		);
		await until(() => t.ids().includes(photo.id), 2000);
		const [text] = api.add('cht_a', message('cht_a', 3));
		await until(() => t.ids().includes(text.id), 2000);
		await t.stop();
		const [item] = t.emitted[0].items;
		assert.match(
			item.json.mediaError.message,
			/could not be downloaded: the server answered HTTP 503/,
		);
		assert.equal(item.binary, undefined);
		assert.deepEqual(t.ids(), [photo.id, text.id]);
		assert.deepEqual(t.failed, []);
	});
});

describe('Messenger Live Trigger: nothing outlives the last loop', () => {
	it('the share of a budget is released when the last live trigger on it stops', async () => {
		const api = watched(['cht_a', 'cht_b']);
		const one = await activate(api, { chats: 'cht_a' });
		const two = await activate(api, { chats: 'cht_b' });
		assert.equal(budgetsInUse(), 1);
		await one.stop();
		assert.equal(budgetsInUse(), 1);
		await two.stop();
		assert.equal(budgetsInUse(), 0);
	});
});
