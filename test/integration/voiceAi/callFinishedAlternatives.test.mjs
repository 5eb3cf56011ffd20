// Call Finished where the API answers otherwise (sandbox/alternatives.mjs): campaign data as a
// bare array or in another envelope, pages of the API's own size or all at once, the last changed
// record first (pages shift while they are read), fields spelled `phone`/`called_at`, or no
// `attempts`/`calledAt`. Each number's attempts fire once, in order; a record the trigger cannot
// read fails the first poll and Fetch Test Event, naming the field.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { VoiceAiTrigger } from '../../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { endedAttempts } from '../../../tools/callTruth.mjs';
import {
	ALTERNATIVES_SETTINGS,
	flagsLabel,
	watcher,
	withSandbox,
} from '../../support/integration.mjs';

const FLAGS = [
	{ callRecordShape: 'snake' },
	{ callRecordShape: 'minimal' },
	{ listEnvelope: 'bare' },
	{ listEnvelope: 'next-link' },
	{ listEnvelope: 'data-meta', fixedPageSize: 25 },
	{ callDataPaging: 'all' },
	{ callDataOrder: 'last-change' },
	{ callDataOrder: 'last-change', listEnvelope: 'bare', callRecordShape: 'snake' },
	{ calledAtStamps: 'end' },
	{ calledAtStamps: 'end', callDataOrder: 'last-change' },
];

const watch = (sandbox, params = {}) =>
	watcher(
		VoiceAiTrigger,
		sandbox,
		{ event: 'callFinished', ...params },
		{ credentials: { requestsPerMinute: 0 } },
	);

/** Each number's outcomes in the order they fired (or happened). */
function byNumber(pairs) {
	const numbers = {};
	for (const [phone, status] of pairs) (numbers[phone] ??= []).push(status);
	return numbers;
}

describe('Voice AI Trigger, Call Finished, where the API answers otherwise', () => {
	for (const flags of FLAGS) {
		it(`${flagsLabel(flags)}: every attempt once, in order`, async () => {
			await withSandbox(
				{ ...ALTERNATIVES_SETTINGS, activeCampaignCount: 0, ...flags },
				async (sandbox) => {
					// Two data reads a poll: a sweep of every page spans several polls, all of them
					// between two steps (an attempt is seen if its page is read before its retry).
					const w = watch(sandbox, { dataRequestsPerPoll: 2 });
					const pollsPerStep = Math.ceil(Math.ceil(250 / (flags.fixedPageSize || 100)) / 2);
					await w.poll();
					const campaign = sandbox.startCallCampaign({ numbers: 250, lines: 20 });
					const items = [];
					while (campaign.status !== 'completed') {
						sandbox.stepCalls();
						for (let i = 0; i < pollsPerStep; i++) items.push(...(await w.poll()).items);
					}
					for (let i = 0; i < pollsPerStep; i++) items.push(...(await w.poll()).items);
					const truth = [...endedAttempts(sandbox, campaign)].map(([key, status]) => [
						key.split('#')[0],
						status,
					]);
					const fired = items.map((item) => [item.phoneNumber ?? item.phone, item.status]);
					assert.deepEqual(byNumber(fired), byNumber(truth));
					assert.ok(items.every((item) => item.campaignId === campaign.id));
				},
			);
		});
	}

	it('records the trigger cannot read: the first poll and Fetch Test Event fail, naming the field', async () => {
		await withSandbox({ ...ALTERNATIVES_SETTINGS, callRecordShape: 'unknown' }, async (sandbox) => {
			sandbox.startCallCampaign({ numbers: 20, lines: 5 });
			sandbox.stepCalls(2);
			for (const mode of ['manual', 'trigger']) {
				const w = watch(sandbox);
				await assert.rejects(w.poll(mode), (error) => {
					assert.match(error.message, /has no text "phoneNumber" field/);
					assert.match(error.description, /msisdn/);
					return true;
				});
				assert.deepEqual(w.staticData, {});
			}
		});
	});
});
