// Call Finished's state of a campaign's records (callState.ts): its size, what survives being
// written and read back, exact keys (numbers that a hash of them would mix up), and which slot a
// record read takes (numbers listed twice, a record read twice in a sweep when pages shift, a
// new sweep).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { readCall } from '../../../../nodes/VoiceAi/trigger/callRecords.ts';
import { CallTable, digitsKey } from '../../../../nodes/VoiceAi/trigger/callState.ts';

const phone = (i) => `+3460${String(i).padStart(7, '0')}`;
/** A random Spanish mobile number, as the sandbox makes them: `+346` and 8 digits. */
const randomPhone = () => `+346${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
const signature = (status, attempts = 1) =>
	readCall({ phoneNumber: '+1', status, attempts, calledAt: `2025-01-01T00:0${attempts}:00Z` })
		.signature;

/** A table after one sweep that read `records` ([number, signature, held?]), written and read back. */
function written(records) {
	const table = new CallTable();
	table.startSweep();
	for (const [number, sig, held = false, lastEnded = 0] of records) {
		table.set(table.find(number, sig).slot, { signature: sig, held, lastEnded });
	}
	return CallTable.decode(table.encode());
}

const state = (sig, held = false, lastEnded = 0) => ({ signature: sig, held, lastEnded });

describe('Call Finished: the state of a campaign', () => {
	it('takes under 8 characters a record at 100,000 numbers of one country, under 12 spread over every country, and reads back what was written', () => {
		const answered = signature('answered', 3);
		const numbers = [...new Set(Array.from({ length: 100_000 }, randomPhone))];
		const records = numbers.map((n, i) => [n, answered, i % 7 === 0, 3]);
		const text = written(records).encode();
		const perRecord = JSON.stringify({ table: text }).length / records.length;
		assert.ok(perRecord < 8, `${perRecord.toFixed(2)} characters a record`);
		const back = CallTable.decode(text);
		assert.equal(back.size, records.length);
		back.startSweep();
		for (const [number, sig, held] of records.slice(0, 500)) {
			assert.deepEqual(back.find(number, sig).before, state(sig, held, 3));
		}
		// The worst case: numbers anywhere in E.164's range, far from each other.
		const anywhere = Array.from(
			{ length: 100_000 },
			() =>
				`+${1 + Math.floor(Math.random() * 9)}${String(Math.floor(Math.random() * 1e14)).padStart(14, '0')}`,
		);
		const spread = written(anywhere.map((n) => [n, answered])).encode();
		const spreadPerRecord = JSON.stringify({ table: spread }).length / anywhere.length;
		assert.ok(spreadPerRecord < 12, `${spreadPerRecord.toFixed(2)} characters a record`);
	});

	it('keys are exact: numbers that a 36-bit hash mixed up are two numbers; spelling is not', () => {
		assert.notEqual(digitsKey('+4915100775246'), digitsKey('+4915101034780'));
		assert.equal(digitsKey('+49 151 0077-5246'), digitsKey('+4915100775246'));
		assert.notEqual(digitsKey('0034600'), digitsKey('34600'), 'leading zeros count');
		assert.equal(digitsKey('+49151007752461234'), undefined, 'more than 15 digits');
		const [a, b] = [signature('calling', 1), signature('no_answer', 1)];
		const table = written([
			['+4915100775246', a],
			['+4915101034780', a],
		]);
		table.startSweep();
		assert.deepEqual(table.find('+4915101034780', b).before, state(a));
		assert.deepEqual(table.find('+4915100775246', b).before, state(a), 'its own record');
		assert.equal(table.size, 2);
	});

	it('a number not written in digits is kept whole and found again', () => {
		const a = signature('answered', 1);
		const table = written([
			['ext. 12', a],
			['ext. 13', signature('busy', 1)],
			['+34600000001', a],
		]);
		table.startSweep();
		assert.deepEqual(
			table.find('ext. 13', signature('busy', 2)).before,
			state(signature('busy', 1)),
		);
		assert.deepEqual(table.find('ext. 12', a).before, state(a));
		assert.equal(table.find('ext. 14', a).before, undefined);
		assert.equal(CallTable.decode(table.encode()).size, 4);
	});

	it('a text of another format (an older release) reads as no records', () => {
		assert.equal(CallTable.decode(Buffer.alloc(16, 1).toString('base64')).size, 0);
		assert.equal(CallTable.decode('').size, 0);
	});

	it('a record unchanged or moved on takes its own slot; a new number, a new slot', () => {
		const table = written([
			['+1', signature('no_answer', 1)],
			['+2', signature('calling', 1)],
		]);
		table.startSweep();
		const one = table.find('+1', signature('no_answer', 1));
		assert.deepEqual(one.before, state(signature('no_answer', 1)));
		const two = table.find('+2', signature('busy', 1));
		assert.deepEqual(two.before, state(signature('calling', 1)));
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
		table.set(retry.slot, state(signature('busy', 2)));
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
		table.set(table.find('+1', c).slot, state(c)); // the number's second listing, new in this sweep
		for (let i = 3; i < 40; i++) table.set(table.find(`+${i}`, b).slot, state(b));
		const back = CallTable.decode(table.encode());
		assert.equal(back.size, 40);
		back.startSweep();
		const retried = signature('busy', 2);
		assert.equal(
			back.find('+1', retried).before?.signature,
			a,
			'the first listing takes the first record',
		);
		assert.equal(back.find('+1', retried).before?.signature, c, 'the second, the second');
		for (let i = 2; i < 40; i++) assert.equal(back.find(`+${i}`, b).before?.signature, b);
		assert.equal(back.size, 40, 'every number found where it was written');
	});

	it('a record read twice in one sweep (pages that shift) is the same record, not a new listing, whatever other slot its number has', () => {
		const [calling, ended] = [signature('calling', 1), signature('no_answer', 1)];
		const table = written([
			['+1', ended],
			['+1', calling],
			['+2', calling, false, 0],
		]);
		table.startSweep();
		assert.equal(table.find('+1', ended).again, undefined);
		const again = table.find('+1', ended);
		assert.equal(again.again, true, 'not the unseen listing still calling');
		assert.deepEqual(again.before, state(ended));
		// A record stored while being called keeps its own signature: read twice, still one record.
		table.set(table.find('+2', calling).slot, state(calling, false, 0));
		assert.equal(table.find('+2', calling).again, true);
		assert.equal(table.size, 3);
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
