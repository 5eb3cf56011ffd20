// Messenger Trigger, Broadcast Message Status Changed, against the sandbox over real HTTP: the
// broadcasts are sent straight to the API, the trigger polls their status as in n8n.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { MessengerTrigger } from '../../../nodes/Messenger/MessengerTrigger.node.ts';
import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { apiCall } from '../../support/sandboxApi.mjs';
import { apiError, MESSENGER_API, sandboxSuite, watcher } from '../../support/integration.mjs';

const watch = (sandbox, params, options) => watcher(MessengerTrigger, sandbox, params, options);

/** Sends one WhatsApp broadcast to `recipients`; resolves to the new messages' IDs. */
async function sendBroadcast(sandbox, recipients) {
	const path = `${MESSENGER_API}/broadcast/messages`;
	const body = { channel: 'whatsapp', text: 'Your order shipped', recipients };
	const answer = await apiCall(sandbox, DEMO_CLIENTS.full, 'POST', path, body);
	return answer.items.map((m) => m.id);
}

describe('Messenger Trigger: Broadcast Message Status Changed', () => {
	// Each watcher is its own credential, as separate triggers would be: lift the token limit.
	const env = sandboxSuite({ rateLimitPerMinute: 0, tokenRateLimitPerMinute: 0 });

	it('records a baseline, reports each change once with the status before, and stops at final statuses', async () => {
		const { sandbox } = env;
		const ids = await sendBroadcast(sandbox, [
			{ phone: '+34600000101' },
			{ phone: '+34600000102' },
			{ phone: '+34600000000' },
		]);
		const w = watch(sandbox, {
			event: 'broadcastStatusChanged',
			messageIds: ids.join(', '),
			statuses: [],
		});
		assert.deepEqual((await w.poll()).items, []);
		assert.deepEqual(Object.values(w.staticData.poll.state.watching), [
			'queued',
			'queued',
			'queued',
		]);

		const seen = [];
		for (let step = 0; step < 6; step++) {
			sandbox.advance();
			const { items } = await w.poll();
			for (const item of items) {
				const message = sandbox.state.broadcastMessages.find((m) => m.id === item.messageId);
				assert.equal(item.status, message.status);
				assert.deepEqual(item.message.id, item.messageId);
				seen.push(`${item.messageId}:${item.previousStatus}>${item.status}`);
			}
		}
		const [a, , failing] = ids;
		assert.deepEqual(
			seen.filter((s) => s.startsWith(a)),
			[`${a}:queued>sent`, `${a}:sent>delivered`, `${a}:delivered>read`],
		);
		assert.ok(seen.includes(`${failing}:queued>failed`), seen.join('\n'));
		assert.deepEqual(w.staticData.poll.state.watching, {}, 'final messages are no longer watched');
		assert.deepEqual([...w.staticData.poll.state.finished].sort(), [...ids].sort());
		const mark = sandbox.log.length;
		assert.deepEqual((await w.poll()).items, []);
		assert.equal(
			sandbox.log.slice(mark).filter((e) => e.path.includes('/broadcast/')).length,
			0,
			'no requests for finished messages',
		);
	});

	it('filters by target status and accepts an array of ids from an expression', async () => {
		const { sandbox } = env;
		const ids = await sendBroadcast(sandbox, [
			{ phone: '+34600000201' },
			{ phone: '+34600000202' },
		]);
		const w = watch(sandbox, {
			event: 'broadcastStatusChanged',
			messageIds: ids,
			statuses: ['delivered'],
		});
		await w.poll();
		sandbox.advance();
		assert.deepEqual((await w.poll()).items, [], 'queued → sent is filtered out');
		sandbox.advance();
		assert.deepEqual(
			(await w.poll()).items.map((i) => [i.messageId, i.status]),
			ids.map((id) => [id, 'delivered']),
		);
	});

	it('a failed poll throws with its cause and keeps the state; the change comes with the next poll, once', async () => {
		const { sandbox } = env;
		const ids = await sendBroadcast(sandbox, [{ phone: '+34600000301' }]);
		let failing = false;
		const w = watch(
			sandbox,
			{ event: 'broadcastStatusChanged', messageIds: ids[0], statuses: [] },
			{
				wrapHttp: (http) => async (type, options) => {
					if (failing) throw apiError(503, 'Service Unavailable');
					return await http(type, options);
				},
			},
		);
		await w.poll();
		sandbox.advance();
		failing = true;
		const snapshot = JSON.stringify(w.staticData);
		await assert.rejects(w.poll(), (error) => {
			assert.deepEqual(error.failure, { cause: 'temporarily-unavailable' });
			return true;
		});
		assert.equal(JSON.stringify(w.staticData), snapshot);
		failing = false;
		assert.deepEqual(
			(await w.poll()).items.map((i) => [i.previousStatus, i.status]),
			[['queued', 'sent']],
		);
		assert.deepEqual((await w.poll()).items, []);
	});

	it('an unknown id fails activation; one added later is a failed execution once and dropped; ids added later start without an event', async () => {
		const { sandbox } = env;
		const [id] = await sendBroadcast(sandbox, [{ phone: '+34600000401' }]);
		const params = {
			event: 'broadcastStatusChanged',
			messageIds: `${id}, bcm_unknown`,
			statuses: [],
		};
		const wrong = watch(sandbox, { ...params });
		await assert.rejects(wrong.poll(), /The watched broadcast message "bcm_unknown" was not found/);
		params.messageIds = id;
		const w = watch(sandbox, params);
		await w.poll();
		params.messageIds = `${id}, bcm_unknown`;
		const unknown = await w.poll();
		assert.equal(unknown.emittedErrors.length, 1);
		assert.deepEqual(unknown.emittedErrors[0].failure, { cause: 'configuration-invalid' });
		assert.deepEqual(w.staticData.poll.state.finished, ['bcm_unknown']);
		assert.equal((await w.poll()).emittedErrors.length, 0, 'reported once');
		const [later] = await sendBroadcast(sandbox, [{ phone: '+34600000402' }]);
		params.messageIds = `${id}, ${later}`;
		sandbox.advance();
		const { items, warnings } = await w.poll();
		assert.deepEqual(
			items.map((i) => i.messageId),
			[id],
			'the added id is recorded, not reported',
		);
		assert.equal(w.staticData.poll.state.watching[later], 'sent');
		assert.deepEqual(
			w.staticData.poll.state.finished,
			[],
			'ids no longer in the parameter leave the state',
		);
		assert.deepEqual(warnings, []);
	});

	it('Fetch Test Event returns the real current status and leaves the state alone', async () => {
		const { sandbox } = env;
		const [id] = await sendBroadcast(sandbox, [{ phone: '+34600000501' }]);
		const w = watch(sandbox, { event: 'broadcastStatusChanged', messageIds: id, statuses: [] });
		await w.poll();
		const snapshot = JSON.stringify(w.staticData);
		sandbox.advance();
		const { items } = await w.poll('manual');
		assert.deepEqual(
			[items[0].messageId, items[0].previousStatus, items[0].status],
			[id, 'queued', 'sent'],
		);
		assert.equal(JSON.stringify(w.staticData), snapshot);
	});

	it('bad ids fail before any request, naming the field', async () => {
		const { sandbox } = env;
		const mark = sandbox.log.length;
		for (const messageIds of [
			'',
			'ok_1, ../auth/token',
			Array.from({ length: 51 }, (_, i) => `bcm_${i}`),
		]) {
			const w = watch(sandbox, { event: 'broadcastStatusChanged', messageIds, statuses: [] });
			await assert.rejects(w.poll(), /Broadcast Message ID/);
		}
		assert.equal(sandbox.log.length, mark);
	});
});
