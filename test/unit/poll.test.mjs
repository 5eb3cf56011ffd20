import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { runPoll } from '../../nodes/shared/poll.ts';
import { balanceTransition } from '../../nodes/VoiceAi/trigger/balance.ts';
import { createPollContext } from '../../tools/context.mjs';

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

describe('balanceTransition', () => {
	it('fires once on the way down and re-arms on the way up', () => {
		const steps = [30, 25, 19, 5, 19, 20, 21, 3];
		let state = { armed: true };
		const fired = [];
		for (const value of steps) {
			const result = balanceTransition(state, value, 20);
			if (result.fire) fired.push(value);
			state = result.state;
		}
		assert.deepEqual(fired, [19, 3]);
	});
});
