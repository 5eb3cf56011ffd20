// tools/callTruth.mjs, what Call Finished's items are held to: which attempts must come once a
// trigger began watching a campaign (what had ended by then, by the record's own time, must not),
// and the items held to it, attempt by attempt and, with skippedAttempts, number by number.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { startSandbox } from '../../../sandbox/server.mjs';
import {
	CALL_OUTCOMES,
	attemptKey,
	endedSinceWatching,
	heldToTruth,
	recordsNow,
	unaccounted,
} from '../../../tools/callTruth.mjs';

const item = (key, skippedAttempts = 0) => {
	const [phoneNumber, attempts] = key.split('#');
	return { phoneNumber, attempts: Number(attempts), skippedAttempts };
};

describe('tools/callTruth.mjs: what Call Finished must report once it watches', () => {
	it('attempts placed since must come; one ended before by its own time must not; the rest may', async (t) => {
		const sandbox = await startSandbox({ port: 0, activeCampaignCount: 0 });
		t.after(() => sandbox.close());
		const campaign = sandbox.startCallCampaign({ numbers: 40, lines: 10 });
		sandbox.stepCalls(2);
		const run = sandbox.state.callRuns.get(campaign.id);
		// Watching begins once the calls so far lie in the past (the sandbox's clock: a second a step).
		await new Promise((resolve) => setTimeout(resolve, run.clockMs - Date.now() + 20));
		const before = recordsNow(sandbox, campaign);
		const from = Date.now();
		sandbox.stepCalls(6);
		const { expected, either } = endedSinceWatching(sandbox, campaign, before, { from });

		const records = sandbox.state.campaignData.get(campaign.id);
		before.forEach((was, i) => {
			const key = attemptKey(was.phoneNumber, was.attempts);
			if (was.status === 'pending') return;
			assert.ok(!expected.has(key), `${key} was placed before watching began`);
			const endedUnanswered = CALL_OUTCOMES.includes(was.status) && was.endedAt < from;
			assert.equal(either.has(key), !endedUnanswered, `${key} (${was.status})`);
			const now = records[i];
			if (now.attempts > was.attempts && CALL_OUTCOMES.includes(now.status)) {
				assert.ok(expected.has(attemptKey(now.phoneNumber, now.attempts)), 'a retry since');
			}
		});
		assert.ok(expected.size > 10);
		assert.ok([...either.keys()].some((key) => !expected.has(key)));

		const wanted = [...expected.keys()].map((key) => item(key));
		assert.deepEqual(heldToTruth(wanted, { expected, either }), { missing: [], extra: [] });
		const [first, ...rest] = wanted;
		assert.deepEqual(heldToTruth(rest, { expected, either }).missing, [
			`${first.phoneNumber}#${first.attempts}`,
		]);
		const forbidden = before.find((was) => was.endedAt !== undefined && was.endedAt < from);
		const late = item(attemptKey(forbidden.phoneNumber, forbidden.attempts));
		assert.equal(heldToTruth([...wanted, late], { expected, either }).extra.length, 1);
	});

	it('skippedAttempts: an item stands for itself and the attempts it says ended unseen', () => {
		const truth = {
			expected: new Map([
				['+341#1', 1],
				['+341#2', 1],
				['+341#3', 1],
				['+342#1', 2],
			]),
			either: new Map([['+343#1', 1]]),
		};
		const items = [item('+341#1'), item('+341#3', 1), item('+342#1'), item('+342#1')];
		assert.deepEqual(unaccounted(items, truth), []);
		assert.deepEqual(unaccounted([...items, item('+343#1')], truth), []);
		assert.deepEqual(unaccounted(items.slice(1), truth), [['+341', 2, 3]]);
		assert.deepEqual(unaccounted([...items, item('+342#2')], truth), [['+342', 3, 2]]);
	});
});
