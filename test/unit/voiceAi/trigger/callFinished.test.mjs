// Voice AI Trigger, Call Finished: reading a record whatever its spelling, the settings checked
// before any request, a poll against a scripted API (pages that shift while read, a budget), and
// the description's options derived from their constants.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { readCall } from '../../../../nodes/VoiceAi/trigger/callRecords.ts';
import {
	CAMPAIGN_LIST_REQUESTS,
	DEFAULT_DATA_REQUESTS_PER_POLL,
} from '../../../../nodes/VoiceAi/trigger/callFinishedDescription.ts';
import { VoiceAiTrigger } from '../../../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { CALL_OUTCOMES } from '../../../../tools/callTruth.mjs';
import { scriptedPoll } from '../../../support/unit.mjs';

const trigger = new VoiceAiTrigger();
const CAMPAIGN = { id: 'c1', name: 'Spring', agentName: 'Lucia', status: 'in_progress' };
const CAMPAIGN_AT = { ...CAMPAIGN, createdAt: '2025-01-01T00:00:00Z' };
const call = (phoneNumber, status, attempts = 1) => ({
	phoneNumber,
	status,
	attempts,
	calledAt: `2025-01-01T00:0${attempts}:00Z`,
});

/**
 * A scripted API with one running campaign whose data `pages()` gives at each read: an array of
 * pages (each an array of records), served as { items, totalPages }.
 */
function campaignApi(pages) {
	return ({ url, qs }) => {
		if (url.endsWith('/api/v1/voice/campaigns')) {
			const items = qs.status === 'pending' ? [] : [CAMPAIGN_AT];
			return { items, total: items.length, page: 1, totalPages: 1 };
		}
		if (url.endsWith('/data')) {
			const all = pages();
			return { items: all[Number(qs.page) - 1] ?? [], totalPages: all.length };
		}
		throw new Error(`unexpected ${url}`);
	};
}

async function pollWith(respond, params, staticData = {}) {
	const { context, calls } = scriptedPoll(respond, {
		params: { event: 'callFinished', ...params },
		staticData,
	});
	const result = await trigger.poll.call(context);
	return { items: result ? result[0].map((i) => i.json) : [], calls, staticData };
}

describe('Call Finished: records', () => {
	it('reads docs/api.md spelling and others; a retry or a new call time is a new attempt', () => {
		const a = readCall(call('+34600000001', 'no_answer', 1));
		const snake = readCall({
			phone: '+34600000001',
			status: 'no_answer',
			attempts: 1,
			called_at: '2025-01-01T00:01:00Z',
		});
		assert.equal(snake.phoneNumber, a.phoneNumber);
		assert.equal(snake.signature, a.signature);
		assert.notEqual(readCall(call('+34600000001', 'no_answer', 2)).signature, a.signature);
		const bare = (status) => readCall({ phoneNumber: '+34600000001', status }).signature;
		assert.equal(bare('busy'), bare('busy'));
		assert.notEqual(bare('busy'), bare('no_answer'));
		assert.notEqual(
			bare('voicemail'),
			bare('hung_up'),
			'unknown statuses told apart by their text',
		);
		assert.ok(a.signature >= 0 && a.signature < 2 ** 26, 'a signature fits in 26 bits');
		assert.equal(a.attempts, 1);
		const timed = readCall({ ...call('+1', 'answered'), durationSeconds: 90 });
		assert.equal(timed.calledAt, Date.parse('2025-01-01T00:01:00Z'));
		assert.equal(timed.durationMs, 90_000);
		assert.equal(readCall({ phoneNumber: '+1', status: 'busy' }).calledAt, undefined);
		for (const status of CALL_OUTCOMES) assert.equal(readCall(call('+1', status)).ended, true);
		for (const status of ['pending', 'calling'])
			assert.equal(readCall(call('+1', status)).ended, false);
	});

	it('a record without a number or a status fails, naming the field and listing what came', () => {
		assert.throws(
			() => readCall({ msisdn: '+34600000001', status: 'busy' }),
			(error) =>
				/has no text "phoneNumber" field/.test(error.message) &&
				/also read as phone, phone_number, number/.test(error.description) &&
				/msisdn \(string\)/.test(error.description),
		);
		assert.throws(() => readCall({ phoneNumber: '+34600000001' }), /no text "status" field/);
	});
});

describe('Call Finished: a poll', () => {
	it('bad settings fail every poll before any request, naming the field', async () => {
		for (const [params, field] of [
			[{ dataRequestsPerPoll: 0 }, /Data Requests per Poll must be a number from 1 to 100/],
			[{ outcomes: ['voicemail'] }, /Outcomes "voicemail" is not one of/],
			[{ report: 'sometimes' }, /Report "sometimes" is not one of/],
		]) {
			const { context, calls } = scriptedPoll(() => ({}), {
				params: { event: 'callFinished', ...params },
				staticData: { poll: { key: 'x', state: {} } },
			});
			await assert.rejects(trigger.poll.call(context), field);
			assert.equal(calls.length, 0);
		}
	});

	it('pages that shift while read: a record met twice fires nothing more; one missed is caught by the next sweep', async () => {
		let data = [[call('+1', 'calling'), call('+2', 'calling')], [call('+3', 'calling')]];
		const respond = campaignApi(() => data);
		const { staticData } = await pollWith(respond, {});
		// +1 ends; then +3 ends and moves to page 1 (the API sorts by last change): the sweep meets
		// +2 twice and misses +3.
		let reads = 0;
		const shifting = campaignApi(() => {
			reads++;
			return reads === 1
				? [[call('+1', 'answered'), call('+2', 'calling')], [call('+3', 'calling')]]
				: [[call('+3', 'busy'), call('+1', 'answered')], [call('+2', 'calling')]];
		});
		const first = await pollWith(shifting, {}, staticData);
		assert.deepEqual(
			first.items.map((i) => [i.phoneNumber, i.status]),
			[['+1', 'answered']],
		);
		data = [[call('+3', 'busy'), call('+1', 'answered')], [call('+2', 'calling')]];
		const second = await pollWith(
			campaignApi(() => data),
			{},
			staticData,
		);
		assert.deepEqual(
			second.items.map((i) => [i.phoneNumber, i.status]),
			[['+3', 'busy']],
		);
		assert.deepEqual(second.items[0].campaign, CAMPAIGN);
		assert.equal(second.items[0].campaignId, 'c1');
	});

	it('reads at most Data Requests per Poll pages, and goes on at the next poll where it stopped', async () => {
		const pages = Array.from({ length: 5 }, (_, p) => [call(`+${p}`, 'calling')]);
		const { staticData } = await pollWith(
			campaignApi(() => pages),
			{ dataRequestsPerPoll: 2 },
		);
		const read = [];
		for (let i = 0; i < 3; i++) {
			const { calls } = await pollWith(
				campaignApi(() => pages),
				{ dataRequestsPerPoll: 2 },
				staticData,
			);
			read.push(calls.filter((c) => c.url.endsWith('/data')).map((c) => Number(c.qs.page)));
			assert.equal(calls.length - read.at(-1).length, CAMPAIGN_LIST_REQUESTS);
		}
		// One sweep of a campaign a poll at most: the third ends the sweep and leaves a request unused.
		assert.deepEqual(read, [[1, 2], [3, 4], [5]]);
	});
});

describe('Call Finished: description', () => {
	it('offers the event, its options from their constants, and a notice of the cost', () => {
		const { properties } = trigger.description;
		const event = properties.find((p) => p.name === 'event');
		assert.ok(event.options.some((o) => o.value === 'callFinished' && o.name === 'Call Finished'));
		const outcomes = properties.find((p) => p.name === 'outcomes');
		assert.deepEqual(
			outcomes.options.map((o) => o.value),
			CALL_OUTCOMES,
		);
		const report = properties.find((p) => p.name === 'report');
		assert.deepEqual(
			report.options.map((o) => o.name),
			['Every Attempt', 'Final Outcome Only'],
		);
		assert.equal(report.default, 'everyAttempt');
		const budget = properties.find((p) => p.name === 'dataRequestsPerPoll');
		assert.equal(budget.default, DEFAULT_DATA_REQUESTS_PER_POLL);
		const notice = properties.find((p) => p.name === 'callFinishedNotice');
		assert.match(notice.displayName, new RegExp(`makes ${CAMPAIGN_LIST_REQUESTS} requests`));
		const scope = properties.find((p) => p.name === 'campaignScope');
		assert.ok(scope.displayOptions.show.event.includes('callFinished'));
	});
});
