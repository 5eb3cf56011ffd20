// shared/poll.ts, the one poll loop of both triggers: a baseline first, the state kept between
// polls and after a failure, a sample for Fetch Test Event, and a failed first poll shown as the
// API's error.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { MessengerTrigger } from '../../../nodes/Messenger/MessengerTrigger.node.ts';
import { runPoll } from '../../../nodes/shared/poll.ts';
import { VoiceAiTrigger } from '../../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { TEST_NODE, createPollContext, httpError } from '../../../tools/context.mjs';
import { NodeApiError, NodeOperationError } from '../../../tools/nodeShared.mjs';
import { scriptedPoll } from '../../support/unit.mjs';

function handlers(overrides = {}) {
	const calls = [];
	return {
		calls,
		baseline: async () => (calls.push('baseline'), { seen: 1 }),
		poll: async (state) => (
			calls.push('poll'),
			{ items: [{ n: state.seen }], state: { seen: state.seen + 1 } }
		),
		sample: async (state) => (calls.push('sample'), [{ sample: true, state: state ?? null }]),
		...overrides,
	};
}

describe('runPoll', () => {
	it('baseline first (nothing emitted), then polls with the stored state', async () => {
		const { context, staticData } = createPollContext({ params: {} });
		const h = handlers();
		assert.equal(await runPoll(context, 'k', h), null);
		assert.deepEqual(staticData.poll, { key: 'k', state: { seen: 1 } });
		assert.deepEqual(await runPoll(context, 'k', h), [[{ json: { n: 1 } }]]);
		assert.deepEqual(staticData.poll.state, { seen: 2 });
		assert.deepEqual(h.calls, ['baseline', 'poll']);
	});

	it('another key (other event or settings) starts from a new baseline', async () => {
		const { context, staticData } = createPollContext({
			params: {},
			staticData: { poll: { key: 'old', state: { seen: 9 } } },
		});
		assert.equal(await runPoll(context, 'new', handlers()), null);
		assert.deepEqual(staticData.poll, { key: 'new', state: { seen: 1 } });
	});

	it('manual mode returns the sample and leaves the state alone', async () => {
		const staticData = { poll: { key: 'k', state: { seen: 3 } } };
		const { context } = createPollContext({ params: {}, staticData, mode: 'manual' });
		assert.deepEqual(await runPoll(context, 'k', handlers()), [
			[{ json: { sample: true, state: { seen: 3 } } }],
		]);
		assert.deepEqual(staticData, { poll: { key: 'k', state: { seen: 3 } } });
	});

	it('a failing poll is logged, emits nothing and keeps the state', async () => {
		const staticData = { poll: { key: 'k', state: { seen: 3 } } };
		const { context, warnings } = createPollContext({ params: {}, staticData });
		const h = handlers({
			poll: async () => {
				throw new Error('socket hang up');
			},
		});
		assert.equal(await runPoll(context, 'k', h), null);
		assert.deepEqual(staticData.poll.state, { seen: 3 });
		assert.match(warnings[0], /poll failed, state kept for the next poll: socket hang up/);
	});

	it('a failing baseline or manual poll throws, so activation and Fetch Test Event show it', async () => {
		const failing = {
			baseline: async () => {
				throw new Error('no role');
			},
			sample: async () => {
				throw new Error('no role');
			},
		};
		const first = createPollContext({ params: {} });
		await assert.rejects(runPoll(first.context, 'k', handlers(failing)), /no role/);
		assert.equal(first.staticData.poll, undefined);
		const manual = createPollContext({ params: {}, mode: 'manual' });
		await assert.rejects(runPoll(manual.context, 'k', handlers(failing)), /no role/);
	});
});

describe('a failed first poll keeps what the API said', () => {
	it('throws the NodeApiError with its HTTP status, not a NodeOperationError around it', async () => {
		const { context } = scriptedPoll(
			() => {
				throw httpError(403, { message: 'Missing role: voicebot' });
			},
			{ params: { event: 'newCampaign' } },
		);
		const error = await new VoiceAiTrigger().poll.call(context).catch((caught) => caught);
		assert.ok(error instanceof NodeApiError, `got ${error?.constructor?.name}`);
		assert.equal(error.httpCode, '403');
		assert.equal(error.context.itemIndex, undefined);
	});

	it('bad trigger settings fail every poll, naming the field, without a request', async () => {
		const staticData = {
			poll: { key: 'broadcastStatusChanged', state: { watching: {}, finished: [] } },
		};
		const { context, calls } = scriptedPoll(() => ({}), {
			params: { event: 'broadcastStatusChanged', messageIds: 'bcm_1, a/b', statuses: [] },
			staticData,
		});
		await assert.rejects(new MessengerTrigger().poll.call(context), (error) => {
			assert.ok(error instanceof NodeOperationError);
			assert.match(error.message, /Broadcast Message ID 2 "a\/b" is not a valid ID/);
			return true;
		});
		assert.equal(calls.length, 0);
	});

	it('a later failed poll is logged with the state kept', async () => {
		const staticData = { poll: { key: 'k', state: 1 } };
		const { context, warnings } = createPollContext({ params: {}, staticData });
		const failing = async () => {
			throw new NodeApiError(TEST_NODE, { message: 'down' }, { httpCode: '503' });
		};
		assert.equal(
			await runPoll(context, 'k', { baseline: failing, poll: failing, sample: failing }),
			null,
		);
		assert.equal(staticData.poll.state, 1);
		assert.equal(warnings.length, 1);
	});
});
