// shared/poll.ts, the one poll loop of both triggers: a baseline first, the state kept between
// polls and after a failure, a sample for Fetch Test Event, a failed poll thrown with the cause
// n8n's scheduler reads, one poll of a node at a time, and the time a poll may take.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { MessengerTrigger } from '../../../nodes/Messenger/MessengerTrigger.node.ts';
import {
	activatedByPerson,
	isPolling,
	PartialBaseline,
	pollBudgetMs,
	readInTurn,
	readingOrder,
	runPoll,
} from '../../../nodes/shared/poll.ts';
import {
	PollClock,
	PollTimeUp,
	POLL_BUDGET,
	pollClockOf,
	withPollClock,
} from '../../../nodes/shared/pollClock.ts';
import { InputError } from '../../../nodes/shared/errors.ts';
import { attemptLimits } from '../../../nodes/shared/transport.ts';
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

	it('a baseline may name what it could not read: the state is recorded, each failure a failed execution of its own', async () => {
		const { context, staticData, emittedErrors } = createPollContext({ params: {} });
		const gone = new InputError('The watched chat "cht_typo" was not found');
		const h = handlers({ baseline: async () => new PartialBaseline({ seen: 1 }, [gone]) });
		assert.equal(await runPoll(context, 'k', h), null);
		assert.deepEqual(staticData.poll, { key: 'k', state: { seen: 1 } });
		assert.equal(emittedErrors.length, 1);
		assert.match(emittedErrors[0].message, /cht_typo/);
		assert.deepEqual(emittedErrors[0].failure, { cause: 'configuration-invalid' });
		assert.deepEqual(await runPoll(context, 'k', h), [[{ json: { n: 1 } }]]);
	});

	it('who activates: a person (activate, create, manual), or n8n itself (init, leadershipChange, a durable scheduled poll: update, or it does not say)', () => {
		const activatedIn = (mode) => {
			const { context } = createPollContext({ params: {} });
			if (mode === undefined) delete context.getActivationMode;
			else context.getActivationMode = () => mode;
			return activatedByPerson(context);
		};
		for (const mode of ['activate', 'create', 'manual']) assert.equal(activatedIn(mode), true);
		for (const mode of ['init', 'leadershipChange', 'update', undefined, 'future']) {
			assert.equal(activatedIn(mode), false, String(mode));
		}
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

	it('a failing poll throws (n8n records a failed execution), emits nothing and keeps the state', async () => {
		const staticData = { poll: { key: 'k', state: { seen: 3 } } };
		const { context } = createPollContext({ params: {}, staticData });
		const h = handlers({
			poll: async () => {
				throw new Error('socket hang up');
			},
		});
		await assert.rejects(runPoll(context, 'k', h), (error) => {
			assert.ok(error instanceof NodeOperationError);
			assert.match(error.message, /socket hang up/);
			return true;
		});
		assert.deepEqual(staticData.poll.state, { seen: 3 });
	});

	it('a poll that starts while the last one of the node runs returns nothing and changes nothing', async () => {
		const staticData = { poll: { key: 'k', state: { seen: 3 } } };
		const { context } = createPollContext({ params: {}, staticData });
		let release;
		const slow = handlers({
			poll: async (state) => {
				await new Promise((resolve) => (release = resolve));
				return { items: [{ n: state.seen }], state: { seen: state.seen + 1 } };
			},
		});
		const first = runPoll(context, 'k', slow);
		await new Promise((resolve) => setImmediate(resolve));
		assert.equal(isPolling(context), true);
		const quick = handlers();
		assert.equal(await runPoll(context, 'k', quick), null);
		assert.deepEqual(quick.calls, [], 'the overlapping poll read nothing');
		assert.deepEqual(staticData.poll.state, { seen: 3 });
		// Another node of the same workflow is not held up.
		const other = createPollContext({
			params: {},
			node: { ...TEST_NODE, id: 'node-2', name: 'Other' },
			staticData: { poll: { key: 'k', state: { seen: 7 } } },
		});
		assert.deepEqual(await runPoll(other.context, 'k', handlers()), [[{ json: { n: 7 } }]]);
		release();
		assert.deepEqual(await first, [[{ json: { n: 3 } }]]);
		assert.equal(isPolling(context), false);
		assert.deepEqual(await runPoll(context, 'k', handlers()), [[{ json: { n: 4 } }]]);
	});

	it('the guard is released when a poll fails', async () => {
		const { context } = createPollContext({
			params: {},
			staticData: { poll: { key: 'k', state: { seen: 1 } } },
		});
		const failing = handlers({
			poll: async () => {
				throw new Error('down');
			},
		});
		await assert.rejects(runPoll(context, 'k', failing), /down/);
		assert.equal(isPolling(context), false);
		assert.deepEqual(await runPoll(context, 'k', handlers()), [[{ json: { n: 1 } }]]);
	});

	it('a poll runs with a clock of its budget; none outside a poll', async () => {
		const { context } = createPollContext({
			params: {},
			pollBudgetMs: 10_000,
			staticData: { poll: { key: 'k', state: { seen: 1 } } },
		});
		let seen;
		await runPoll(
			context,
			'k',
			handlers({
				poll: async (state) => {
					seen = pollClockOf(context);
					return { items: [], state };
				},
			}),
		);
		assert.equal(seen.budgetMs, 10_000);
		// A tenth of a budget this short is kept free at its end.
		assert.ok(seen.remainingMs() <= 9_000, `${seen.remainingMs()} ms left`);
		assert.equal(pollClockOf(context), undefined);
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

	it('a later failed poll throws the same error, with the state kept', async () => {
		const staticData = { poll: { key: 'k', state: 1 } };
		const { context } = createPollContext({ params: {}, staticData });
		const thrown = new NodeApiError(TEST_NODE, { message: 'down' }, { httpCode: '503' });
		const failing = async () => {
			throw thrown;
		};
		await assert.rejects(
			runPoll(context, 'k', { baseline: failing, poll: failing, sample: failing }),
			(error) => error === thrown,
		);
		assert.equal(staticData.poll.state, 1);
	});
});

describe('why a poll failed, in the words of n8n 2.41 scheduler (error.failure)', () => {
	const staticData = () => ({ poll: { key: 'newCampaign', state: { newest: null } } });
	const failingWith = async (status, body, headers) => {
		const { context } = scriptedPoll(
			() => {
				throw httpError(status, body, headers);
			},
			// A short poll: a failure that would be retried after its time is reported at once.
			{ params: { event: 'newCampaign' }, staticData: staticData(), pollBudgetMs: 2_000 },
		);
		return await new VoiceAiTrigger().poll.call(context).catch((caught) => caught);
	};
	const cases = [
		[429, { 'retry-after': '7' }, { cause: 'rate-limited', retryAfterMs: 7000 }],
		[503, {}, { cause: 'temporarily-unavailable' }],
		[401, {}, { cause: 'credential-invalid' }],
		[403, {}, { cause: 'configuration-invalid' }],
	];
	for (const [status, headers, failure] of cases) {
		it(`HTTP ${status}: ${failure.cause}`, async () => {
			const error = await failingWith(status, { message: 'no' }, headers);
			assert.ok(error instanceof NodeApiError, `got ${error?.constructor?.name}`);
			assert.deepEqual(error.failure, failure);
		});
	}

	it('an answer the trigger cannot read is a node defect; bad settings are configuration', async () => {
		const { context } = scriptedPoll(() => ({ items: [{ id: 'c1' }] }), {
			params: { event: 'newCampaign' },
			staticData: staticData(),
		});
		const error = await new VoiceAiTrigger().poll.call(context).catch((caught) => caught);
		assert.match(error.message, /status|createdAt/);
		assert.deepEqual(error.failure, { cause: 'node-defect' });
		const bad = scriptedPoll(() => ({}), {
			params: { event: 'broadcastStatusChanged', messageIds: 'a/b', statuses: [] },
		});
		const setting = await new MessengerTrigger().poll.call(bad.context).catch((caught) => caught);
		assert.deepEqual(setting.failure, { cause: 'configuration-invalid' });
	});

	it('a poll whose time ran out before anything was read: temporarily-unavailable', async () => {
		const { context } = createPollContext({
			params: {},
			staticData: { poll: { key: 'k', state: 1 } },
		});
		const error = await runPoll(context, 'k', {
			...handlers(),
			poll: async () => {
				throw pollClockOf(context).answerTimeUp({ method: 'GET', path: '/api/v1/x' });
			},
		}).catch((caught) => caught);
		assert.ok(error instanceof NodeOperationError);
		assert.match(
			error.message,
			/The poll stopped at the end of its time budget \(\d+(\.\d)? s\) while waiting for the API to answer/,
		);
		assert.match(error.description, /GET \/api\/v1\/x/);
		assert.deepEqual(error.failure, { cause: 'temporarily-unavailable' });
		assert.ok(!(error instanceof PollTimeUp));
	});
});

describe('the time a poll may take', () => {
	const budgetOf = (pollTimes, offered) =>
		pollBudgetMs(createPollContext({ params: { pollTimes }, pollBudgetMs: offered }).context);
	const every = (mode, extra = {}) => ({ item: [{ mode, ...extra }] });

	it('ours: a share of the shortest interval, at most POLL_BUDGET.maxMs', () => {
		assert.equal(budgetOf(every('everyMinute')), POLL_BUDGET.maxMs);
		assert.equal(budgetOf(every('everyHour')), POLL_BUDGET.maxMs);
		assert.equal(budgetOf(every('everyX', { value: 5, unit: 'minutes' })), POLL_BUDGET.maxMs);
		assert.equal(
			budgetOf(every('custom', { cronExpression: '*/20 * * * * *' })),
			20_000 * POLL_BUDGET.intervalShare,
		);
		assert.equal(budgetOf(every('custom', { cronExpression: '0 * * * *' })), POLL_BUDGET.maxMs);
		assert.equal(
			budgetOf({
				item: [{ mode: 'everyHour' }, { mode: 'custom', cronExpression: '*/10 * * * * *' }],
			}),
			10_000 * POLL_BUDGET.intervalShare,
		);
		assert.equal(budgetOf(undefined), POLL_BUDGET.maxMs);
	});

	it('a budget n8n offers to the millisecond (3,001 ms) still gives each request a whole-millisecond time limit', async () => {
		const clock = new PollClock(3_001, () => 1_000);
		assert.ok(Number.isInteger(clock.remainingMs()), `${clock.remainingMs()} ms left`);
		// AbortSignal.timeout refuses a fraction: every request of such a poll failed with a RangeError.
		const limits = attemptLimits(clock);
		assert.equal(limits.timeout, clock.remainingMs());
		assert.ok(limits.abortSignal instanceof AbortSignal);
	});

	it("n8n's budget where it is shorter (the durable scheduler's 45 s timeout less its margin)", () => {
		assert.equal(budgetOf(every('everyMinute'), 30_000), 30_000);
		assert.equal(budgetOf(every('everyMinute'), 300_000), POLL_BUDGET.maxMs);
		assert.equal(budgetOf(every('everyMinute'), 0), POLL_BUDGET.maxMs);
	});
});

describe("reading in turn within the poll's time", () => {
	const timeUp = () => new PollTimeUp('time up', { cause: 'temporarily-unavailable' });

	it('readingOrder starts where the last poll stopped, and from the start for an unknown key', () => {
		assert.deepEqual(
			readingOrder(['a', 'b', 'c', 'd'], 'c', (x) => x),
			['c', 'd', 'a', 'b'],
		);
		assert.deepEqual(
			readingOrder(['a', 'b'], 'gone', (x) => x),
			['a', 'b'],
		);
		assert.deepEqual(
			readingOrder(['a', 'b'], undefined, (x) => x),
			['a', 'b'],
		);
	});

	it('stops when a read is cut off after others were read, and returns what is left', async () => {
		const { context } = createPollContext({ params: {} });
		const read = [];
		const left = await readInTurn(context, ['a', 'b', 'c'], async (x) => {
			if (x === 'b') throw timeUp();
			read.push(x);
		});
		assert.deepEqual(read, ['a']);
		assert.deepEqual(left, ['b', 'c']);
	});

	it('a poll that read nothing in its time fails, unless it read something before', async () => {
		const { context } = createPollContext({ params: {} });
		const cut = async () => {
			throw timeUp();
		};
		await assert.rejects(readInTurn(context, ['a'], cut), PollTimeUp);
		assert.deepEqual(await readInTurn(context, ['a', 'b'], cut, { readBefore: true }), ['a', 'b']);
	});

	it('no read is started once the time is up', async () => {
		const { context } = createPollContext({ params: {} });
		let now = 0;
		const read = [];
		const left = await withPollClock(context, new PollClock(10_000, () => now), async () =>
			readInTurn(context, ['a', 'b', 'c'], async (x) => {
				read.push(x);
				now += 9_000;
			}),
		);
		assert.deepEqual(read, ['a']);
		assert.deepEqual(left, ['b', 'c']);
	});

	it('other failures fail the poll, or go to isolate while the rest is read', async () => {
		const { context } = createPollContext({ params: {} });
		const failing = async (x) => {
			if (x === 'b') throw new Error('down');
		};
		await assert.rejects(readInTurn(context, ['a', 'b', 'c'], failing), /down/);
		const isolated = [];
		const left = await readInTurn(context, ['a', 'b', 'c'], failing, {
			isolate: (x, error) => isolated.push([x, error.message]),
		});
		assert.deepEqual(left, []);
		assert.deepEqual(isolated, [['b', 'down']]);
	});
});
