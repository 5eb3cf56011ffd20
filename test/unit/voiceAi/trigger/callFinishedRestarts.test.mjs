// Call Finished across n8n's restarts as n8n does them: the static data is saved only at the end
// of an activation and after a poll that returned items, and loaded at a restart through n8n's
// proxies; and the limits that come with it (docs/triggers.md, Call Finished, Limits).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { VoiceAiTrigger } from '../../../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { at, campaignsApi, keys, record } from '../../../support/callApi.mjs';
import { n8nStaticData } from '../../../support/callHistories.mjs';
import { scriptedPoll } from '../../../support/unit.mjs';

const trigger = new VoiceAiTrigger();

/** Polls of one Call Finished node whose static data n8n saves and reloads (n8nStaticData). */
function n8nWatcher(respond, params = {}) {
	const n8n = n8nStaticData();
	let activating = true;
	return {
		async poll() {
			const { context } = scriptedPoll(respond, {
				params: { event: 'callFinished', ...params },
				staticData: n8n.node(),
			});
			const result = await trigger.poll.call(context);
			const items = result ? result[0].map((i) => i.json) : [];
			if (activating || items.length > 0) n8n.save();
			activating = false;
			return items;
		},
		restart() {
			n8n.restart();
			activating = true;
		},
	};
}

/** A record in one of docs/api.md's shapes: `full`, without attempts, or number and status only. */
const shaped = (shape, phoneNumber, status, attempts, calledAt) => {
	const { attempts: n, calledAt: c, ...bare } = record(phoneNumber, status, attempts, calledAt);
	if (shape === 'minimal') return bare;
	if (shape === 'noAttempts') return { ...bare, calledAt: c };
	return { ...bare, attempts: n, calledAt: c };
};

/**
 * A number that ends, is called again (read by a poll that fires nothing, so n8n saves nothing)
 * and ends again with the same status; n8n restarts (or not) before the last poll. The items of
 * each poll after the activation.
 */
async function retryAcrossRestart(shape, restart) {
	let rows = [shaped(shape, '+1', 'calling', 1, at(1))];
	const w = n8nWatcher(campaignsApi({ c1: { status: 'in_progress', records: () => rows } }));
	await w.poll();
	rows = [shaped(shape, '+1', 'no_answer', 1, at(1))];
	const first = await w.poll();
	rows = [shaped(shape, '+1', 'calling', 2, at(5))];
	const calling = await w.poll();
	if (restart) w.restart();
	rows = [shaped(shape, '+1', 'no_answer', 2, at(5))];
	const second = await w.poll();
	return [first, calling, second].map(keys);
}

describe('Call Finished across restarts that reload only what n8n saved', () => {
	for (const shape of ['full', 'noAttempts']) {
		it(`records ${shape === 'full' ? 'with' : 'without'} attempts, with calledAt: a retry read being called by a poll n8n did not save is reported after a restart`, async () => {
			const runs = [await retryAcrossRestart(shape, false), await retryAcrossRestart(shape, true)];
			for (const [first, calling, second] of runs) {
				assert.equal(first.length, 1);
				assert.deepEqual(calling, []);
				assert.equal(second.length, 1, 'the retry, once');
			}
		});
	}

	it('records without attempts and calledAt (the limit): a retry ending with the status before is told apart only while n8n keeps the read that saw it called', async () => {
		const [kept, lost] = [
			await retryAcrossRestart('minimal', false),
			await retryAcrossRestart('minimal', true),
		];
		assert.deepEqual(kept, [['+1#undefined:no_answer'], [], ['+1#undefined:no_answer']]);
		// The read that saw it called was in a poll that fired nothing: n8n saved nothing of it.
		assert.deepEqual(lost, [['+1#undefined:no_answer'], [], []]);
	});

	it('records without attempts (the limit): two attempts whose calledAt share the 19-bit hash and end with the same status are one, unless a read saw the retry called', async () => {
		// 2025-01-01T01:19:49Z and 01:23:44Z: one hash (callRecords.ts, the signature's 19 bits).
		const [one, two] = ['2025-01-01T01:19:49.000Z', '2025-01-01T01:23:44.000Z'];
		const ended = (calledAt) => ({ phoneNumber: '+1', status: 'no_answer', calledAt });
		const calling = (calledAt) => ({ phoneNumber: '+1', status: 'calling', calledAt });
		for (const seenCalled of [false, true]) {
			let rows = [calling(one)];
			const w = n8nWatcher(campaignsApi({ c1: { status: 'in_progress', records: () => rows } }));
			await w.poll();
			rows = [ended(one)];
			assert.equal((await w.poll()).length, 1);
			if (seenCalled) {
				rows = [calling(two)];
				assert.deepEqual(await w.poll(), []);
			}
			rows = [ended(two)];
			assert.equal((await w.poll()).length, seenCalled ? 1 : 0, `seen called: ${seenCalled}`);
		}
		// Other calledAt: told apart without a read of the call.
		let rows = [calling(one)];
		const w = n8nWatcher(campaignsApi({ c1: { status: 'in_progress', records: () => rows } }));
		await w.poll();
		rows = [ended(one)];
		await w.poll();
		rows = [ended('2025-01-01T01:23:45.000Z')];
		assert.equal((await w.poll()).length, 1);
	});

	it('Final Outcome Only: an attempt held by a poll n8n did not save is reported once when the campaign ends, after a restart', async () => {
		const campaign = { status: 'in_progress', records: () => rows };
		let rows = [record('+1', 'calling'), record('+2', 'calling')];
		const w = n8nWatcher(campaignsApi({ c1: campaign }), { report: 'finalOutcome' });
		await w.poll();
		// +1 ends unanswered: held until the campaign ends (the poll fires nothing, nothing saved).
		rows = [record('+1', 'no_answer'), record('+2', 'calling')];
		assert.deepEqual(await w.poll(), []);
		w.restart();
		rows = [record('+1', 'no_answer'), record('+2', 'busy')];
		campaign.status = 'completed';
		const items = [];
		for (let i = 0; i < 4; i++) items.push(...(await w.poll()));
		assert.deepEqual(keys(items).sort(), ['+1#1:no_answer', '+2#1:busy']);
	});
});
