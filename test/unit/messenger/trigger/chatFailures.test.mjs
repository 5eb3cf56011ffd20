// When a watched chat's failure is a failed execution and when it is only logged (chatFailures.ts),
// on a clock of the test's: at the start of its streak, then at growing intervals while it lasts;
// an outage met by every chat once a minute at most; the activation's failures in one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { NodeOperationError } from 'n8n-workflow';

import {
	FailureReports,
	failuresTogether,
} from '../../../../nodes/Messenger/trigger/chatFailures.ts';
import { InputError } from '../../../../nodes/shared/errors.ts';

const NODE = { name: 'Live', type: 'test', typeVersion: 1, position: [0, 0], parameters: {} };
const TIMES = { reportEveryMs: 60_000, reportGapMaxMs: 480_000 };
const MINUTE = 60_000;

function reporter() {
	const saved = [];
	const logged = [];
	const context = {
		getNode: () => NODE,
		logger: { warn: (m) => logged.push(m), info: () => {}, error: (m) => logged.push(m) },
		saveFailedExecution: (error) => saved.push(error),
	};
	return { reports: new FailureReports(context, TIMES), saved, logged, context };
}

const own = (chat) => new NodeOperationError(NODE, `The watched chat "${chat}" could not be read`);
const outage = (chat) =>
	Object.assign(own(chat), { failure: { cause: 'temporarily-unavailable' } });

describe('Messenger Live Trigger: failure reports', () => {
	it('a chat that keeps failing: a failed execution at the start, then after 1, 2, 4 … minutes up to the longest gap, logged in between', () => {
		const { reports, saved, logged } = reporter();
		const at = [];
		for (let second = 0; second <= 30 * 60; second += 10) {
			const before = saved.length;
			reports.failed('cht_a', own('cht_a'), second * 1000);
			if (saved.length > before) at.push(second / 60);
		}
		assert.deepEqual(at, [0, 1, 3, 7, 15, 23]);
		assert.equal(logged.length, 181 - at.length);
	});

	it('a chat read again ends its streak: its next failure is named at once', () => {
		const { reports, saved } = reporter();
		reports.failed('cht_a', own('cht_a'), 0);
		reports.failed('cht_a', own('cht_a'), 1000);
		reports.recovered('cht_a');
		reports.failed('cht_a', own('cht_a'), 2000);
		assert.equal(saved.length, 2);
	});

	it("an outage every chat meets is named once a minute at most; a chat's own failure is named at once", () => {
		const { reports, saved } = reporter();
		for (const [index, chat] of ['cht_a', 'cht_b', 'cht_c'].entries()) {
			reports.failed(chat, outage(chat), index * 1000);
		}
		reports.failed('cht_d', own('cht_d'), 4000);
		reports.failed('cht_e', outage('cht_e'), MINUTE);
		assert.deepEqual(
			saved.map((error) => error.message.match(/"(.+)"/)[1]),
			['cht_a', 'cht_d', 'cht_e'],
		);
	});

	it("a chat's own 5xx just after an outage was named: named once the others are read between its failures, then a minute later", () => {
		const { reports, saved } = reporter();
		const named = () => saved.map((error) => error.message.match(/"(.+)"/)[1]);
		// The API down: three chats fail, one failed execution; cht_bad fails with them.
		reports.failed('cht_a', outage('cht_a'), 0);
		reports.failed('cht_b', outage('cht_b'), 1000);
		reports.failed('cht_bad', outage('cht_bad'), 2000);
		reports.failed('cht_a', outage('cht_a'), 3000);
		reports.recovered('cht_a');
		reports.recovered('cht_b');
		// cht_a failed since cht_bad's last failure: still the outage, as far as can be told.
		reports.failed('cht_bad', outage('cht_bad'), 6000);
		assert.deepEqual(named(), ['cht_a'], 'the outage once');
		// The API answers the others, cht_bad goes on failing: its own failure.
		reports.recovered('cht_a');
		reports.failed('cht_bad', outage('cht_bad'), 8000);
		assert.deepEqual(named(), ['cht_a', 'cht_bad']);
		for (let second = 12; second < 68; second += 4) {
			reports.recovered('cht_b');
			reports.failed('cht_bad', outage('cht_bad'), second * 1000);
		}
		reports.failed('cht_bad', outage('cht_bad'), 8000 + MINUTE);
		assert.deepEqual(named(), ['cht_a', 'cht_bad', 'cht_bad'], 'a minute later, once');
	});

	it('a chat read well during an outage, failing on its own just after it, is named at its second failure', () => {
		const { reports, saved } = reporter();
		reports.failed('cht_a', outage('cht_a'), 0);
		reports.recovered('cht_bad');
		reports.recovered('cht_a');
		reports.failed('cht_bad', outage('cht_bad'), 10_000);
		reports.recovered('cht_a');
		reports.failed('cht_bad', outage('cht_bad'), 12_000);
		assert.deepEqual(
			saved.map((error) => error.message.match(/"(.+)"/)[1]),
			['cht_a', 'cht_bad'],
		);
	});

	it('the API failing on and off: a chat read again that fails again within the minute is logged', () => {
		const { reports, saved } = reporter();
		for (let second = 0; second < 60; second += 10) {
			reports.failed('cht_a', outage('cht_a'), second * 1000);
			reports.failed('cht_b', outage('cht_b'), second * 1000 + 1000);
			reports.recovered('cht_a');
			reports.recovered('cht_b');
		}
		assert.equal(saved.length, 1);
		reports.failed('cht_b', outage('cht_b'), MINUTE);
		assert.equal(saved.length, 2, 'an outage a minute later is named');
	});

	it("the activation's failures: one failed execution naming each; the same chats failing right after are logged, another chat is named", () => {
		const { reports, saved, logged, context } = reporter();
		const gone = ['cht_x', 'cht_y', 'cht_z'].map(
			(chat) => new InputError(`The watched chat "${chat}" was not found`, 'Correct the ID'),
		);
		reports.activation(failuresTogether(context, gone), ['cht_x', 'cht_y', 'cht_z'], 0);
		for (const chat of ['cht_x', 'cht_y', 'cht_z']) reports.failed(chat, own(chat), 100);
		assert.equal(saved.length, 1);
		assert.match(saved[0].message, /^3 watched chats could not be read/);
		for (const chat of ['cht_x', 'cht_y', 'cht_z'])
			assert.match(saved[0].message, new RegExp(chat));
		assert.deepEqual(saved[0].failure, { cause: 'configuration-invalid' });
		assert.equal(logged.length, 3);
		// A chat that read well at activation and starts failing just after: named at once.
		reports.failed('cht_q', outage('cht_q'), 30_000);
		assert.equal(saved.length, 2, 'a chat not named at activation is named when it fails');
		assert.match(saved[1].message, /"cht_q"/);
		reports.failed('cht_x', own('cht_x'), MINUTE + 100);
		assert.equal(saved.length, 3, 'named again a minute later');
		assert.equal(failuresTogether(context, []), undefined);
		assert.equal(failuresTogether(context, gone.slice(0, 1)).message, gone[0].message);
	});
});
