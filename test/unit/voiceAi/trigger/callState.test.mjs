// Call Finished's state of a campaign's records (callState.ts): its size, what survives being
// written and read back, and which slot a record read takes (numbers listed twice, a record
// read twice in a sweep when pages shift, a new sweep).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { readCall } from '../../../../nodes/VoiceAi/trigger/callRecords.ts';
import { CallTable, RECORD_BYTES } from '../../../../nodes/VoiceAi/trigger/callState.ts';

const phone = (i) => `+3460${String(i).padStart(7, '0')}`;
const signature = (status, attempts = 1) =>
	readCall({ phoneNumber: '+1', status, attempts, calledAt: `2025-01-01T00:0${attempts}:00Z` })
		.signature;

/** A table after one sweep that read `records` ([number, signature, held?]), written and read back. */
function written(records) {
	const table = new CallTable();
	table.startSweep();
	for (const [number, sig, held] of records) table.set(table.find(number, sig).slot, sig, held);
	return CallTable.decode(table.encode());
}

describe('Call Finished: the state of a campaign', () => {
	it('takes 10.7 characters a record at 100,000 numbers, and reads back what was written', () => {
		const answered = signature('answered', 3);
		const records = Array.from({ length: 100_000 }, (_, i) => [phone(i), answered, i % 7 === 0]);
		const text = written(records).encode();
		assert.equal(RECORD_BYTES, 8);
		assert.equal(
			text.length,
			Math.ceil((records.length * 8) / 3) * 4,
			'base64 of 8 bytes a record',
		);
		assert.ok(JSON.stringify({ table: text }).length / records.length < 10.7);

		const back = CallTable.decode(text);
		assert.equal(back.size, 100_000);
		back.startSweep();
		for (const [number, sig, held] of records.slice(0, 50)) {
			assert.deepEqual(back.find(number, sig).before, { signature: sig, held });
		}
	});

	it('a record unchanged or moved on takes its own slot; a new number, a new slot', () => {
		const table = written([
			['+1', signature('no_answer', 1)],
			['+2', signature('calling', 1)],
		]);
		table.startSweep();
		const one = table.find('+1', signature('no_answer', 1));
		assert.deepEqual(one.before, { signature: signature('no_answer', 1), held: false });
		const two = table.find('+2', signature('busy', 1));
		assert.deepEqual(two.before, { signature: signature('calling', 1), held: false });
		const three = table.find('+3', signature('pending', 0));
		assert.equal(three.before, undefined);
		assert.equal(table.size, 3);
	});

	it('a number listed twice: each listing keeps its own record, sweep after sweep', () => {
		const a1 = signature('answered', 1);
		const b1 = signature('no_answer', 1);
		const table = written([
			['+1', a1],
			['+1', b1],
		]);
		assert.equal(table.size, 2);
		for (let sweep = 0; sweep < 3; sweep++) {
			table.startSweep();
			assert.equal(table.find('+1', a1).before?.signature, a1, `sweep ${sweep}: first`);
			assert.equal(table.find('+1', b1).before?.signature, b1, `sweep ${sweep}: second`);
		}
		// The second listing's retry: it moves on in its own slot, the first stays as it was.
		table.startSweep();
		table.find('+1', a1);
		const retry = table.find('+1', signature('busy', 2));
		assert.equal(retry.before?.signature, b1);
		table.set(retry.slot, signature('busy', 2));
		table.startSweep();
		assert.equal(table.find('+1', a1).before?.signature, a1);
		assert.equal(table.find('+1', signature('busy', 2)).before?.signature, signature('busy', 2));
		assert.equal(table.size, 2);
	});

	it('written back, records are sorted by number with its listings in their order, the new ones after', () => {
		const [a, b, c] = [signature('answered', 1), signature('busy', 1), signature('failed', 1)];
		const table = written([
			['+1', a],
			['+2', b],
		]);
		table.startSweep();
		table.find('+1', a);
		table.set(table.find('+1', c).slot, c); // the number's second listing, new in this sweep
		for (let i = 3; i < 40; i++) table.set(table.find(`+${i}`, b).slot, b);
		const back = CallTable.decode(table.encode());
		assert.equal(back.size, 40);
		back.startSweep();
		assert.equal(
			back.find('+1', b).before?.signature,
			a,
			'the first listing takes the first record',
		);
		assert.equal(back.find('+1', b).before?.signature, c, 'the second, the second');
		for (let i = 2; i < 40; i++) assert.equal(back.find(`+${i}`, b).before?.signature, b);
		assert.equal(back.size, 40, 'every number found where it was written');
	});

	it('a record read twice in one sweep (pages that shift) is the same record, not a new listing', () => {
		const table = written([['+1', signature('answered', 1)]]);
		table.startSweep();
		table.find('+1', signature('answered', 1));
		const again = table.find('+1', signature('answered', 1));
		assert.equal(again.before?.signature, signature('answered', 1));
		assert.equal(table.size, 1);
	});

	it('a new sweep forgets which records were read; seenSignatures gives those read in it', () => {
		const table = written([
			['+1', signature('calling', 2)],
			['+2', signature('answered', 1)],
		]);
		assert.deepEqual([...table.seenSignatures()].length, 2, 'written in the sweep that read them');
		table.startSweep();
		assert.deepEqual([...table.seenSignatures()], []);
		table.find('+1', signature('calling', 2));
		assert.deepEqual([...table.seenSignatures()], [signature('calling', 2)]);
	});
});
