/**
 * What Call Finished keeps of a campaign's records between polls: 8 bytes a record, stored as one
 * base64 text (10.7 characters a record), and read into a table only for the polls that read the
 * campaign. Per record, 64 bits: a 36-bit key (a hash of its number), then 28 bits of state:
 * - bit 27 `seen`: the record was read in the sweep under way (a number listed twice has a
 *   record per listing, told apart by their order: the first not yet seen in a sweep takes it);
 * - bit 26 `held`: an ended attempt not reported yet (Final Outcome Only: reported when the
 *   campaign has ended);
 * - bits 0 to 25: the attempt's signature (callRecords.ts: status, attempts, calledAt).
 * Two numbers whose keys are the same are kept as one number listed twice.
 */

/** Bytes a record takes in the stored text (before base64). */
export const RECORD_BYTES = 8;

const SEEN = 1 << 27;
const HELD = 1 << 26;
const SIGNATURE = HELD - 1;

/** FNV-1a, 32 bits, from `offset`: a number's key, and the signature's hashes (callRecords.ts). */
export function fnv1a(text: string, offset = 0x811c9dc5): number {
	let hash = offset;
	for (let i = 0; i < text.length; i++) {
		hash ^= text.charCodeAt(i);
		hash = Math.imul(hash, 0x01000193) >>> 0;
	}
	return hash;
}

/** A number's key: 36 bits of hash (two of 100,000 numbers share one in about 1 campaign in 14). */
export const numberKey = (phoneNumber: string): number =>
	fnv1a(phoneNumber) * 16 + (fnv1a(phoneNumber, 0x050c5d1f) & 0xf);

/** A record's state as the table holds it. */
export interface RecordState {
	signature: number;
	held: boolean;
}

/** Indexes 0..count-1 ordered by `keyAt`, a key's indexes in their order. */
function sortedIndexes(count: number, keyAt: (index: number) => number): number[] {
	return Array.from({ length: count }, (_, i) => i).sort((a, b) => keyAt(a) - keyAt(b) || a - b);
}

/**
 * The records of one campaign as the trigger last read them, by number. Those it was read with
 * are sorted by key (as they are stored), so that reading it back builds no index; those added
 * since go to a small index of their own. Change it, then write it back with `encode()`.
 */
export class CallTable {
	private keys = new Float64Array(0);
	private values = new Uint32Array(0);
	/** Records added since it was read: slot `keys.length + i`. */
	private readonly addedKeys: number[] = [];
	private readonly addedValues: number[] = [];
	private readonly added = new Map<number, number[]>();

	static decode(text: string | undefined): CallTable {
		const table = new CallTable();
		if (!text) return table;
		const bytes = Buffer.from(text, 'base64');
		const count = Math.floor(bytes.length / RECORD_BYTES);
		const keys = new Float64Array(count);
		const values = new Uint32Array(count);
		let sorted = true;
		for (let slot = 0; slot < count; slot++) {
			const at = slot * RECORD_BYTES;
			const low = bytes.readUInt32BE(at + 4);
			keys[slot] = bytes.readUInt32BE(at) * 16 + (low >>> 28);
			values[slot] = low & (SEEN | HELD | SIGNATURE);
			if (slot > 0 && keys[slot] < keys[slot - 1]) sorted = false;
		}
		if (sorted) {
			table.keys = keys;
			table.values = values;
		} else {
			for (let slot = 0; slot < count; slot++) table.add(keys[slot], values[slot]);
		}
		return table;
	}

	/** The records, sorted by key (a number's listings in their order), as base64. */
	encode(): string {
		const stored = this.keys.length;
		const added = sortedIndexes(this.addedKeys.length, (i) => this.addedKeys[i]);
		const bytes = Buffer.alloc(this.size * RECORD_BYTES);
		let next = 0;
		const write = (key: number, value: number) => {
			bytes.writeUInt32BE(Math.floor(key / 16), next * RECORD_BYTES);
			bytes.writeUInt32BE(((key % 16) * 2 ** 28 + value) >>> 0, next * RECORD_BYTES + 4);
			next++;
		};
		let j = 0;
		for (let i = 0; i < stored; i++) {
			for (; j < added.length && this.addedKeys[added[j]] < this.keys[i]; j++) {
				write(this.addedKeys[added[j]], this.addedValues[added[j]]);
			}
			write(this.keys[i], this.values[i]);
		}
		for (; j < added.length; j++) write(this.addedKeys[added[j]], this.addedValues[added[j]]);
		return bytes.toString('base64');
	}

	get size(): number {
		return this.keys.length + this.addedKeys.length;
	}

	/** A new sweep starts: no record has been read in it. */
	startSweep(): void {
		for (let slot = 0; slot < this.values.length; slot++) this.values[slot] &= ~SEEN;
		for (let i = 0; i < this.addedValues.length; i++) this.addedValues[i] &= ~SEEN;
	}

	/**
	 * The slot of a record read now with `signature`, and its state before (undefined: a record
	 * not read before). Of the slots of its number: one not seen in this sweep with that signature
	 * (unchanged), else one not seen (it has moved on: its own, or a listing of the number whose
	 * record was not read yet), else one seen with that signature (the same record read twice in a
	 * sweep, when pages shift), else a new slot (the number's next listing). The slot is marked seen.
	 */
	find(phoneNumber: string, signature: number): { slot: number; before?: RecordState } {
		const key = numberKey(phoneNumber);
		let unseen = -1;
		let seenSame = -1;
		for (const slot of this.slotsOf(key)) {
			const value = this.valueAt(slot);
			const seen = (value & SEEN) !== 0;
			const same = (value & SIGNATURE) === signature;
			if (!seen && same) return this.claim(slot);
			if (!seen && unseen < 0) unseen = slot;
			if (seen && same && seenSame < 0) seenSame = slot;
		}
		if (unseen >= 0) return this.claim(unseen);
		if (seenSame >= 0) return this.claim(seenSame);
		return { slot: this.add(key, SEEN) };
	}

	/** Records `signature` (and whether its ended attempt is held back) in `slot`. */
	set(slot: number, signature: number, held = false): void {
		this.setValue(slot, SEEN | (held ? HELD : 0) | (signature & SIGNATURE));
	}

	/** The signatures of the records read in this sweep. */
	*seenSignatures(): Generator<number> {
		for (const value of this.values) if (value & SEEN) yield value & SIGNATURE;
		for (const value of this.addedValues) if (value & SEEN) yield value & SIGNATURE;
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

	private claim(slot: number): { slot: number; before: RecordState } {
		const value = this.valueAt(slot);
		this.setValue(slot, value | SEEN);
		return { slot, before: { signature: value & SIGNATURE, held: (value & HELD) !== 0 } };
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
