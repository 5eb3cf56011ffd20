/**
 * What Call Finished keeps of a campaign's records between polls, read into a table only for the
 * polls that read the campaign. Per record: its number's exact key and 32 bits of state:
 * - bit 31 `seen`: the record was read in the sweep under way;
 * - bit 30 `held`: an ended attempt not reported yet (Final Outcome Only: reported when the
 *   campaign has ended);
 * - bits 26 to 29 `lastEnded`: the last attempt of the record known to have ended (modulo 16),
 *   which skippedAttempts counts from;
 * - bits 0 to 25: the attempt's signature (callRecords.ts: status, attempts, calledAt).
 * Keys are exact, not hashed: two numbers never share one (digitsKey). A number listed twice has
 * a record per listing.
 *
 * Stored as one text (base64): the records sorted by key, their states (4 bytes each), then each
 * key as its distance from the one before (Rice-coded, so a campaign's numbers close to each other
 * take few bits); a number that is not written in digits is kept whole beside them.
 */

import { BitReader, BitWriter } from './bits';
import { sameAttempt, signedAttempt } from './callRecords';

/** Bits of state a record keeps beside its number's key (docs/triggers.md). */
export const STATE_BITS = 32;

/** The stored text's format: a text of another format is read as no records. */
const FORMAT = 3;

const SEEN = 2 ** 31;
const HELD = 1 << 30;
const LAST_SHIFT = 26;
const LAST = 0xf << LAST_SHIFT;
const SIGNATURE = (1 << 26) - 1;
/**
 * Whether a record stored as `stored` can have become `signature`: its attempts (modulo 16) go
 * forward, or stay while the attempt had not ended (its calledAt may move when it ends); a record
 * that said its attempts never says none again. Pending (0 attempts, or records without the
 * field) moves on to anything.
 */
function canMoveOn(stored: number, signature: number): boolean {
	const was = signedAttempt(stored);
	const [from, to] = [was.attempts, signedAttempt(signature).attempts];
	if (to === 0) return from === 0;
	if (from === 0) return true;
	const ahead = (((to - from) % 16) + 16) % 16;
	return ahead > 0 ? ahead <= 8 : !was.pastCalling;
}

/** Keys of numbers written in digits are below this; others are OTHER_KEYS + their place in `others`. */
const OTHER_KEYS = 2 ** 51;

/**
 * A number's key, exact: its digits (spaces, dashes, dots and brackets left out; a leading `+`
 * too, so `+34…` and `34…` are one number) as 10^length + their value, for up to 15 digits
 * (E.164's longest). Undefined for any other text, which the table keeps whole.
 */
export function digitsKey(phoneNumber: string): number | undefined {
	const digits = phoneNumber.replace(/[\s\-.()]/g, '').replace(/^\+/, '');
	if (!/^\d{1,15}$/.test(digits)) return undefined;
	return 10 ** digits.length + Number(digits);
}

/** A record's state as the table holds it. */
export interface RecordState {
	signature: number;
	held: boolean;
	/** The last attempt known to have ended (modulo 16). */
	lastEnded: number;
}

/** How a record read now was matched to the state before. */
export interface FoundRecord {
	slot: number;
	/** The state before; undefined: a record not read before. */
	before?: RecordState;
	/** The same record already read in this sweep (pages shifted while they were read). */
	again?: boolean;
}

const stateOf = (value: number): RecordState => ({
	signature: value & SIGNATURE,
	held: (value & HELD) !== 0,
	lastEnded: (value & LAST) >>> LAST_SHIFT,
});

/** Longest run of ones a gap is written with; a longer gap is written whole after it. */
const MAX_UNARY = 24;
const KEY_BITS = 52;
/** The stored text's head: its format, the Rice parameter, the count; then 4 bytes of state a record, then the keys. */
const HEAD_BYTES = 6;

/**
 * The records of one campaign as the trigger last read them, by number: sorted by key, each
 * number's listings in their order. Change it, then write it back with `encode()`.
 */
export class CallTable {
	private keys: number[] = [];
	private values: number[] = [];
	/** Numbers not written in digits, whole: their key is OTHER_KEYS + their place here. */
	private others: string[] = [];
	/** Records added since it was read: slot `keys.length + i`. */
	private readonly addedKeys: number[] = [];
	private readonly addedValues: number[] = [];
	private readonly added = new Map<number, number[]>();
	private otherKeys: Map<string, number> | undefined;

	static decode(text: string | undefined): CallTable {
		const table = new CallTable();
		if (!text) return table;
		const [binary, others] = text.split('|');
		const bytes = Buffer.from(binary, 'base64');
		if (bytes.length < HEAD_BYTES || bytes[0] !== FORMAT) return table;
		const rice = bytes[1];
		const count = bytes.readUInt32BE(2);
		const reader = new BitReader(bytes.subarray(HEAD_BYTES + count * 4));
		const keys = new Array<number>(count);
		const values = new Array<number>(count);
		let key = 0;
		for (let i = 0; i < count; i++) {
			const ones = reader.ones(MAX_UNARY);
			key += ones === MAX_UNARY ? reader.read(KEY_BITS) : ones * 2 ** rice + reader.read(rice);
			keys[i] = key;
			values[i] = bytes.readUInt32BE(HEAD_BYTES + i * 4);
		}
		table.keys = keys;
		table.values = values;
		if (others) table.others = JSON.parse(Buffer.from(others, 'base64').toString()) as string[];
		return table;
	}

	/** The records sorted by key, as text. */
	encode(): string {
		const [keys, values] = this.sorted();
		const count = keys.length;
		const mean = count > 1 ? (keys[count - 1] - keys[0]) / (count - 1) : 1;
		const rice = Math.max(0, Math.min(KEY_BITS, Math.floor(Math.log2(Math.max(1, mean)))));
		const fixed = Buffer.alloc(HEAD_BYTES + count * 4);
		fixed[0] = FORMAT;
		fixed[1] = rice;
		fixed.writeUInt32BE(count, 2);
		const writer = new BitWriter();
		let previous = 0;
		for (let i = 0; i < count; i++) {
			const gap = keys[i] - previous;
			const ones = Math.floor(gap / 2 ** rice);
			if (ones < MAX_UNARY) {
				writer.write(2 ** (ones + 1) - 2, ones + 1);
				writer.write(gap % 2 ** rice, rice);
			} else {
				writer.write(2 ** MAX_UNARY - 1, MAX_UNARY);
				writer.write(gap, KEY_BITS);
			}
			fixed.writeUInt32BE(values[i] >>> 0, HEAD_BYTES + i * 4);
			previous = keys[i];
		}
		const binary = Buffer.concat([fixed, writer.toBuffer()]).toString('base64');
		if (this.others.length === 0) return binary;
		return `${binary}|${Buffer.from(JSON.stringify(this.others)).toString('base64')}`;
	}

	/** The keys and values of every record, sorted by key (a number's listings in their order). */
	private sorted(): [number[], number[]] {
		if (this.addedKeys.length === 0) return [this.keys, this.values];
		const keys: number[] = [];
		const values: number[] = [];
		const added = Array.from({ length: this.addedKeys.length }, (_, i) => i).sort(
			(a, b) => this.addedKeys[a] - this.addedKeys[b] || a - b,
		);
		let j = 0;
		for (let i = 0; i < this.keys.length; i++) {
			for (; j < added.length && this.addedKeys[added[j]] < this.keys[i]; j++) {
				keys.push(this.addedKeys[added[j]]);
				values.push(this.addedValues[added[j]]);
			}
			keys.push(this.keys[i]);
			values.push(this.values[i]);
		}
		for (; j < added.length; j++) {
			keys.push(this.addedKeys[added[j]]);
			values.push(this.addedValues[added[j]]);
		}
		return [keys, values];
	}

	get size(): number {
		return this.keys.length + this.addedKeys.length;
	}

	/** A new sweep starts: no record has been read in it. */
	startSweep(): void {
		for (let slot = 0; slot < this.values.length; slot++) this.values[slot] %= SEEN;
		for (let i = 0; i < this.addedValues.length; i++) this.addedValues[i] %= SEEN;
	}

	/**
	 * The slot of a record of `phoneNumber` read now with `signature`, and how it matched. Of the
	 * slots of its number, in this order:
	 * 1. one not read in this sweep with that signature: unchanged;
	 * 2. one read in this sweep with that signature: the same record read again (`again`), as
	 *    when a record moves to another page while the pages are read; nothing changes (two
	 *    listings of a number alike in every field are one record until they differ);
	 * 3. one that can have become this one (canMoveOn; the likelier of several): not read in this
	 *    sweep, it has moved on; read in this sweep, the record changed after it was read and was
	 *    met again on a later page. With this very attempt (the same attempts and calledAt) in
	 *    another status first, then one not read in this sweep;
	 * 4. a new slot: a record not read before, or a listing of a number listed twice (no slot of
	 *    it can have become this record).
	 * The slot is marked as read in this sweep.
	 */
	find(phoneNumber: string, signature: number): FoundRecord {
		const key = this.keyOf(phoneNumber);
		let seenSame = -1;
		let seen = -1;
		let unseen = -1;
		for (const slot of this.slotsOf(key)) {
			const value = this.valueAt(slot);
			const stored = value & SIGNATURE;
			if (value >= SEEN) {
				if (stored === signature) seenSame = seenSame < 0 ? slot : seenSame;
				else if (canMoveOn(stored, signature)) seen = this.likelier(seen, slot, signature);
				continue;
			}
			if (stored === signature) return this.claim(slot);
			if (canMoveOn(stored, signature)) unseen = this.likelier(unseen, slot, signature);
		}
		if (seenSame >= 0) {
			return { slot: seenSame, before: stateOf(this.valueAt(seenSame)), again: true };
		}
		const ofThisAttempt = (slot: number) =>
			slot >= 0 && sameAttempt(this.valueAt(slot) & SIGNATURE, signature);
		if (ofThisAttempt(unseen) || (unseen >= 0 && !ofThisAttempt(seen))) return this.claim(unseen);
		// Read in this sweep and changed since: the record met again on a later page.
		if (seen >= 0) return { slot: seen, before: stateOf(this.valueAt(seen)) };
		return { slot: this.add(key, SEEN) };
	}

	/**
	 * Of two slots of a number listed twice that a record can have moved on from, the likelier:
	 * the one with this very attempt, else the closest before it (the most attempts; ended rather
	 * than being called), else the first (a number's listings keep their order).
	 */
	private likelier(current: number, slot: number, signature: number): number {
		if (current < 0) return slot;
		const a = this.valueAt(current) & SIGNATURE;
		const b = this.valueAt(slot) & SIGNATURE;
		if (sameAttempt(a, signature) !== sameAttempt(b, signature)) {
			return sameAttempt(a, signature) ? current : slot;
		}
		const progress = (sig: number) => {
			const { attempts, pastCalling } = signedAttempt(sig);
			return attempts * 2 + (pastCalling ? 1 : 0);
		};
		return progress(b) > progress(a) ? slot : current;
	}

	/** Records the state of `slot`, read in this sweep. */
	set(slot: number, state: RecordState): void {
		const value =
			SEEN +
			((state.held ? HELD : 0) |
				((state.lastEnded & 0xf) << LAST_SHIFT) |
				(state.signature & SIGNATURE));
		this.setValue(slot, value);
	}

	/** How many records the table keeps of `phoneNumber` (more than one: listed twice). */
	listings(phoneNumber: string): number {
		let count = 0;
		const slots = this.slotsOf(this.keyOf(phoneNumber));
		while (!slots.next().done) count++;
		return count;
	}

	/**
	 * Whether a record of `phoneNumber` still shows `signature`; with `hold`, that record is marked
	 * held (Final Outcome Only: an attempt found to have ended after watching began, calledAt.ts).
	 */
	stillShows(phoneNumber: string, signature: number, hold = false): boolean {
		for (const slot of this.slotsOf(this.keyOf(phoneNumber))) {
			const value = this.valueAt(slot);
			if ((value & SIGNATURE) !== signature) continue;
			// Added, not or-ed: the seen bit (2^31) does not fit bit operations.
			if (hold && (value & HELD) === 0) this.setValue(slot, value + HELD);
			return true;
		}
		return false;
	}

	/** Whether a record is held (Final Outcome Only: reported at a read after its campaign ended). */
	hasHeld(): boolean {
		const held = (value: number) => (value & HELD) !== 0;
		return this.values.some(held) || this.addedValues.some(held);
	}

	/** The signatures of the records read in this sweep. */
	*seenSignatures(): Generator<number> {
		for (const value of this.values) if (value >= SEEN) yield value & SIGNATURE;
		for (const value of this.addedValues) if (value >= SEEN) yield value & SIGNATURE;
	}

	private keyOf(phoneNumber: string): number {
		const digits = digitsKey(phoneNumber);
		if (digits !== undefined) return digits;
		this.otherKeys ??= new Map(this.others.map((text, i) => [text, i]));
		let place = this.otherKeys.get(phoneNumber);
		if (place === undefined) {
			place = this.others.length;
			this.others.push(phoneNumber);
			this.otherKeys.set(phoneNumber, place);
		}
		return OTHER_KEYS + place;
	}

	/** The slots of a key, in their order: the stored ones (by binary search), then those added. */
	private *slotsOf(key: number): Generator<number> {
		let low = 0;
		let high = this.keys.length;
		while (low < high) {
			const middle = (low + high) >>> 1;
			if (this.keys[middle] < key) low = middle + 1;
			else high = middle;
		}
		for (let slot = low; slot < this.keys.length && this.keys[slot] === key; slot++) yield slot;
		for (const i of this.added.get(key) ?? []) yield this.keys.length + i;
	}

	private valueAt(slot: number): number {
		const stored = this.keys.length;
		return slot < stored ? this.values[slot] : this.addedValues[slot - stored];
	}

	private setValue(slot: number, value: number): void {
		const stored = this.keys.length;
		if (slot < stored) this.values[slot] = value;
		else this.addedValues[slot - stored] = value;
	}

	private claim(slot: number): FoundRecord {
		const value = this.valueAt(slot);
		this.setValue(slot, value >= SEEN ? value : value + SEEN);
		return { slot, before: stateOf(value) };
	}

	private add(key: number, value: number): number {
		const index = this.addedKeys.length;
		this.addedKeys.push(key);
		this.addedValues.push(value);
		const slots = this.added.get(key);
		if (slots) slots.push(index);
		else this.added.set(key, [index]);
		return this.keys.length + index;
	}
}
