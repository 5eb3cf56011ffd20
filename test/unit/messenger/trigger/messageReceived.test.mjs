// Messenger Trigger, Message Received: the state transitions of a poll over the watched chats,
// against a scripted chat-history API (pages newest first, as docs/api.md says).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { MessengerTrigger } from '../../../../nodes/Messenger/MessengerTrigger.node.ts';
import { createPollContext, scriptedHttp } from '../../../../tools/context.mjs';
import { at, fakeApi, message } from './chatApi.mjs';

function trigger(api, params, staticData = {}) {
	const node = new MessengerTrigger();
	const last = { emittedErrors: [] };
	const poll = async (mode = 'trigger') => {
		const { context, warnings, emittedErrors } = createPollContext({
			params: { event: 'messageReceived', direction: 'inbound', messageTypes: [], ...params },
			http: api.http,
			credentials: { baseUrl: 'https://api.example.com', requestsPerMinute: 0 },
			staticData,
			mode,
		});
		last.emittedErrors = emittedErrors;
		const result = await node.poll.call(context);
		return { items: result ? result[0].map((i) => i.json) : [], warnings, emittedErrors };
	};
	return { poll, staticData, state: () => staticData.poll?.state, last };
}

const idsOf = (items) => items.map((item) => item.messageId);

describe('Message Received polls', () => {
	it('baseline emits nothing; then each new message once, oldest first, with its fields', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 1), message('cht_a', 2));
		const t = trigger(api, { chats: 'cht_a' });
		assert.deepEqual((await t.poll()).items, []);
		assert.deepEqual(t.state().chats.cht_a.at, at(2));
		const [m3] = api.add('cht_a', message('cht_a', 4));
		const [m4] = api.add(
			'cht_a',
			message('cht_a', 3, { type: 'image', content: { url: 'https://x/y.jpg', caption: 'look' } }),
		);
		const { items } = await t.poll();
		assert.deepEqual(idsOf(items), [m4.id, m3.id]);
		assert.deepEqual(items[0], {
			messageId: m4.id,
			chatId: 'cht_a',
			phone: null,
			direction: 'inbound',
			type: 'image',
			text: 'look',
			createdAt: m4.createdAt,
			message: m4,
		});
		assert.equal(items[1].text, m3.content);
		assert.deepEqual((await t.poll()).items, []);
	});

	it('more than a page of new messages: pages are followed to the last seen one, nothing twice', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 0));
		const t = trigger(api, { chats: 'cht_a' });
		await t.poll();
		const burst = api.add(
			'cht_a',
			...Array.from({ length: 250 }, (_, i) => message('cht_a', 10 + i)),
		);
		const before = api.historyCalls('cht_a');
		const { items } = await t.poll();
		assert.deepEqual(
			idsOf(items),
			burst.map((m) => m.id),
		);
		assert.equal(api.historyCalls('cht_a') - before, 3, 'pages of 100: 3 requests for 250');
		const quiet = api.historyCalls('cht_a');
		assert.deepEqual((await t.poll()).items, []);
		assert.equal(api.historyCalls('cht_a') - quiet, 1, 'nothing new: one request');
	});

	it('messages sharing one createdAt, some read by a poll and others arriving after it', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 0));
		const t = trigger(api, { chats: 'cht_a' });
		await t.poll();
		const first = api.add(
			'cht_a',
			message('cht_a', 5, { id: 'msg_m' }),
			message('cht_a', 5, { id: 'msg_q' }),
		);
		assert.deepEqual(
			idsOf((await t.poll()).items),
			first.map((m) => m.id),
		);
		// Same time, IDs sorting before and after those already seen.
		const late = api.add(
			'cht_a',
			message('cht_a', 5, { id: 'msg_a' }),
			message('cht_a', 5, { id: 'msg_z' }),
		);
		assert.deepEqual(
			idsOf((await t.poll()).items),
			late.map((m) => m.id),
		);
		assert.deepEqual(t.state().chats.cht_a, {
			at: at(5),
			ids: ['msg_a', 'msg_m', 'msg_q', 'msg_z'],
		});
		assert.deepEqual((await t.poll()).items, []);
	});

	it('a chat the API refuses (403) keeps its state while the others move on, as a failed execution of its own; the next poll reports it', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 0));
		api.add('cht_b', message('cht_b', 0));
		const t = trigger(api, { chats: 'cht_a; cht_b' });
		await t.poll();
		const [a1] = api.add('cht_a', message('cht_a', 1));
		const [b1] = api.add('cht_b', message('cht_b', 1));
		api.failing.add('cht_b', 403);
		const stateOfB = JSON.stringify(t.state().chats.cht_b);
		const failed = await t.poll();
		assert.deepEqual(idsOf(failed.items), [a1.id]);
		assert.equal(failed.emittedErrors.length, 1);
		assert.match(failed.emittedErrors[0].description, /HTTP 403/);
		assert.deepEqual(failed.emittedErrors[0].failure, { cause: 'configuration-invalid' });
		assert.equal(JSON.stringify(t.state().chats.cht_b), stateOfB);
		api.failing.delete('cht_b');
		assert.deepEqual(idsOf((await t.poll()).items), [b1.id]);
	});

	it("one chat answering 503 is an outage, not that chat's fault: the poll fails once with its cause and nothing moves", async () => {
		const api = fakeApi();
		for (const id of ['cht_a', 'cht_b', 'cht_c']) api.add(id, message(id, 0));
		const t = trigger(api, { chats: 'cht_a; cht_b; cht_c' });
		await t.poll();
		const fresh = ['cht_a', 'cht_b', 'cht_c'].flatMap((id) => api.add(id, message(id, 1)));
		api.failing.add('cht_b');
		const snapshot = JSON.stringify(t.staticData);
		await assert.rejects(t.poll(), (error) => {
			assert.match(error.message, /HTTP 503/);
			assert.deepEqual(error.failure, { cause: 'temporarily-unavailable' });
			return true;
		});
		assert.equal(t.last.emittedErrors.length, 0, 'no failed execution per chat');
		assert.equal(JSON.stringify(t.staticData), snapshot);
		api.failing.delete('cht_b');
		assert.deepEqual(idsOf((await t.poll()).items).sort(), fresh.map((m) => m.id).sort());
	});

	it('every chat failing fails the poll with its cause: state untouched, then nothing lost', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 0));
		const t = trigger(api, { chats: 'cht_a' });
		await t.poll();
		const [a1] = api.add('cht_a', message('cht_a', 1));
		api.failing.add('cht_a');
		const snapshot = JSON.stringify(t.staticData);
		await assert.rejects(t.poll(), (error) => {
			assert.match(error.message, /HTTP 503/);
			assert.deepEqual(error.failure, { cause: 'temporarily-unavailable' });
			return true;
		});
		assert.equal(JSON.stringify(t.staticData), snapshot);
		api.failing.delete('cht_a');
		assert.deepEqual(idsOf((await t.poll()).items), [a1.id]);
	});

	it('an unknown chat ID fails activation; one gone later is a failed execution, asked for again after a growing delay, its cursor kept', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 0));
		api.add('cht_gone', message('cht_gone', 0));
		const wrong = trigger(api, { chats: 'cht_a\ncht_typo' });
		await assert.rejects(wrong.poll(), /The watched chat "cht_typo" was not found/);
		assert.equal(wrong.state(), undefined);
		const t = trigger(api, { chats: 'cht_a\ncht_gone' });
		await t.poll();
		api.chats.delete('cht_gone');
		const [a1] = api.add('cht_a', message('cht_a', 1));
		const gone = await t.poll();
		assert.deepEqual(idsOf(gone.items), [a1.id]);
		assert.equal(gone.emittedErrors.length, 1);
		assert.match(gone.emittedErrors[0].message, /The watched chat "cht_gone" was not found/);
		assert.deepEqual(gone.emittedErrors[0].failure, { cause: 'configuration-invalid' });
		const { missing } = t.state().chats.cht_gone;
		assert.equal(missing.times, 1);
		const calls = api.historyCalls('cht_gone');
		assert.equal((await t.poll()).emittedErrors.length, 0);
		assert.equal(api.historyCalls('cht_gone'), calls, 'not asked for again before its delay');
		// The delay passed and it is still unknown: named again, the next delay twice as long.
		const retries = [];
		for (const times of [1, 2]) {
			const { missing: was } = t.state().chats.cht_gone;
			const due = Date.parse(was.retryAt);
			t.state().chats.cht_gone.missing.retryAt = new Date(Date.now() - 1).toISOString();
			assert.equal((await t.poll()).emittedErrors.length, 1);
			retries.push(Date.parse(t.state().chats.cht_gone.missing.retryAt) - Date.now());
			assert.equal(t.state().chats.cht_gone.missing.times, times + 1);
			assert.ok(due > Date.now(), 'the delay had not passed by itself');
		}
		assert.ok(retries[1] > retries[0] * 1.5, `delays ${retries.join(', ')} ms`);
		// The 404 passed: what was written meanwhile is reported once, the older history not.
		const [back] = api.add('cht_gone', message('cht_gone', 5));
		api.chats.get('cht_gone').unshift(message('cht_gone', -10));
		t.state().chats.cht_gone.missing.retryAt = new Date(Date.now() - 1).toISOString();
		const found = await t.poll();
		assert.deepEqual(idsOf(found.items), [back.id]);
		assert.equal(t.state().chats.cht_gone.missing, undefined);
		assert.deepEqual(idsOf((await t.poll()).items), []);
	});

	it('a chat stored as missing for good by an earlier version is read again, from a new baseline', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 0), message('cht_a', 1));
		const t = trigger(api, { chats: 'cht_a' });
		await t.poll();
		t.state().chats.cht_a = { at: '', ids: [], missing: true };
		assert.deepEqual(idsOf((await t.poll()).items), [], 'its history is not reported');
		const [a2] = api.add('cht_a', message('cht_a', 2));
		assert.deepEqual(idsOf((await t.poll()).items), [a2.id]);
	});

	it('a phone without a chat is checked at each poll; its chat reports messages since it was watched', async () => {
		const api = fakeApi();
		const t = trigger(api, { chats: '+34600111222' });
		const watchedFrom = new Date().toISOString();
		await t.poll();
		assert.equal(t.state().chats['+34600111222'].chatId, undefined);
		// By the API's clock (its Date header), the earliest it can have been: within the second before.
		assert.ok(Date.parse(t.state().chats['+34600111222'].at) > Date.parse(watchedFrom) - 1000);
		await t.poll();
		const checks = api.calls.filter((c) => c.url.endsWith('/check-existing'));
		assert.equal(checks.length, 2);
		// The chat appears: an old message (before the watch) and a new one.
		api.add('cht_new', message('cht_new', -3600));
		const [fresh] = api.add('cht_new', {
			...message('cht_new', 0),
			createdAt: new Date(Date.now() + 1000).toISOString(),
		});
		api.phones.set('+34600111222', 'cht_new');
		const { items } = await t.poll();
		assert.deepEqual(idsOf(items), [fresh.id]);
		assert.equal(items[0].phone, '+34600111222');
		assert.equal(t.state().chats['+34600111222'].chatId, 'cht_new');
		await t.poll();
		assert.equal(
			api.calls.filter((c) => c.url.endsWith('/check-existing')).length,
			3,
			'a matched phone is not checked again',
		);
	});

	it('a phone whose chat is gone is checked again, keeping its place: nothing lost, nothing twice', async () => {
		const api = fakeApi();
		api.add('cht_old', message('cht_old', 0));
		api.phones.set('+34600333444', 'cht_old');
		const t = trigger(api, { chats: '+34600333444' });
		await t.poll();
		const [seen] = api.add('cht_old', message('cht_old', 1));
		assert.deepEqual(idsOf((await t.poll()).items), [seen.id]);
		api.chats.delete('cht_old');
		api.phones.delete('+34600333444');
		const { emittedErrors } = await t.poll();
		assert.match(emittedErrors[0].message, /The chat "cht_old" of \+34600333444 was not found/);
		assert.match(emittedErrors[0].description, /matched to its chat again at the next poll/);
		assert.deepEqual(t.state().chats['+34600333444'], { at: at(1), ids: [seen.id] });
		api.add('cht_next', { ...seen, chatId: 'cht_next' });
		const [next] = api.add('cht_next', message('cht_next', 2));
		api.phones.set('+34600333444', 'cht_next');
		assert.deepEqual(idsOf((await t.poll()).items), [next.id]);
	});

	it('editing the list: an added chat gets its own baseline, a removed one leaves the state', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 0));
		api.add('cht_b', message('cht_b', 0), message('cht_b', 1));
		const params = { chats: 'cht_a' };
		const t = trigger(api, params);
		await t.poll();
		params.chats = 'cht_b';
		assert.deepEqual((await t.poll()).items, [], 'the history of the added chat is not reported');
		assert.deepEqual(Object.keys(t.state().chats), ['cht_b']);
		const [b2] = api.add('cht_b', message('cht_b', 2));
		assert.deepEqual(idsOf((await t.poll()).items), [b2.id]);
	});

	it('a restart from the state saved with the last emitted items reports what came meanwhile, once', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 0));
		const t = trigger(api, { chats: 'cht_a', direction: 'inbound' });
		await t.poll();
		api.add('cht_a', message('cht_a', 1));
		await t.poll();
		// n8n writes static data when a poll emits items: this copy is what a restart finds.
		const saved = JSON.parse(JSON.stringify(t.staticData));
		api.add('cht_a', message('cht_a', 2, { direction: 'outbound' }));
		assert.deepEqual(
			(await t.poll()).items,
			[],
			'an outbound message moves the cursor, emits nothing',
		);
		const [down] = api.add('cht_a', message('cht_a', 3));
		const restarted = trigger(api, { chats: 'cht_a' }, saved);
		assert.deepEqual(idsOf((await restarted.poll()).items), [down.id]);
		assert.deepEqual((await restarted.poll()).items, []);
	});

	it('Direction and Message Types choose what is emitted; the cursor moves past the rest', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 0));
		const params = { chats: 'cht_a', direction: 'both', messageTypes: ['image', 'location'] };
		const t = trigger(api, params);
		await t.poll();
		const [, image, , location] = api.add(
			'cht_a',
			message('cht_a', 1),
			message('cht_a', 2, { type: 'image', content: { url: 'https://x/a.jpg' } }),
			message('cht_a', 3, {
				type: 'image',
				direction: 'outbound',
				content: { url: 'https://x/b.jpg' },
			}),
			message('cht_a', 4, { type: 'location', content: { latitude: 1, longitude: 2 } }),
		);
		const { items } = await t.poll();
		assert.deepEqual(
			items.map((i) => [i.type, i.direction, i.text]),
			[
				['image', 'inbound', null],
				['image', 'outbound', null],
				['location', 'inbound', null],
			],
		);
		assert.deepEqual([items[0].messageId, items[2].messageId], [image.id, location.id]);
		params.direction = 'outbound';
		params.messageTypes = [];
		api.add('cht_a', message('cht_a', 5));
		assert.deepEqual((await t.poll()).items, []);
		params.direction = 'sideways';
		await assert.rejects(t.poll(), /Direction "sideways" is not one of inbound, outbound, both/);
	});

	it('Fetch Test Event returns the latest wanted message of the watched chats and moves nothing', async () => {
		const api = fakeApi();
		api.add('cht_a', message('cht_a', 1), message('cht_a', 9, { direction: 'outbound' }));
		const [latest] = api.add('cht_b', message('cht_b', 5));
		const t = trigger(api, { chats: 'cht_a, cht_b' });
		await t.poll();
		const snapshot = JSON.stringify(t.staticData);
		const { items } = await t.poll('manual');
		assert.deepEqual(idsOf(items), [latest.id]);
		assert.equal(items[0].text, latest.content);
		assert.equal(JSON.stringify(t.staticData), snapshot);
	});

	it('a bare array in any order is read as the whole history', async () => {
		const api = fakeApi();
		const list = [message('cht_a', 3), message('cht_a', 1)];
		const { http } = scriptedHttp(async () => list);
		const t = trigger({ ...api, http }, { chats: 'cht_a' });
		await t.poll();
		const [newer] = [message('cht_a', 4)];
		list.splice(1, 0, newer);
		assert.deepEqual(idsOf((await t.poll()).items), [newer.id]);
	});
});
