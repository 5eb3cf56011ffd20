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

/**
 * The records of one campaign as the trigger last read them, by number. Change it, then write it
 * back with `encode()`.
 */
export class CallTable {
	private keys: number[] = [];
	private values: number[] = [];
	/** key → the first slot of that key; `more[slot]`: the next slot of the same key, or -1. */
	private readonly first = new Map<number, number>();
	private more: number[] = [];

	static decode(text: string | undefined): CallTable {
		const table = new CallTable();
		if (!text) return table;
		const bytes = Buffer.from(text, 'base64');
		const count = Math.floor(bytes.length / RECORD_BYTES);
		for (let slot = 0; slot < count; slot++) {
			const at = slot * RECORD_BYTES;
			const high = bytes.readUInt32BE(at);
			const low = bytes.readUInt32BE(at + 4);
			table.add(high * 16 + (low >>> 28), low & (SEEN | HELD | SIGNATURE));
		}
		return table;
	}

	encode(): string {
		const bytes = Buffer.alloc(this.keys.length * RECORD_BYTES);
		for (let slot = 0; slot < this.keys.length; slot++) {
			const key = this.keys[slot];
			bytes.writeUInt32BE(Math.floor(key / 16), slot * RECORD_BYTES);
			bytes.writeUInt32BE(
				((key % 16) * 2 ** 28 + this.values[slot]) >>> 0,
				slot * RECORD_BYTES + 4,
			);
		}
		return bytes.toString('base64');
	}

	get size(): number {
		return this.keys.length;
	}

	/** A new sweep starts: no record has been read in it. */
	startSweep(): void {
		for (let slot = 0; slot < this.values.length; slot++) this.values[slot] &= ~SEEN;
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
		for (let slot = this.first.get(key) ?? -1; slot >= 0; slot = this.more[slot]) {
			const value = this.values[slot];
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
		this.values[slot] = SEEN | (held ? HELD : 0) | (signature & SIGNATURE);
	}

	/** The signatures of the records read in this sweep. */
	*seenSignatures(): Generator<number> {
		for (const value of this.values) if (value & SEEN) yield value & SIGNATURE;
	}

	private claim(slot: number): { slot: number; before: RecordState } {
		const value = this.values[slot];
		this.values[slot] = value | SEEN;
		return { slot, before: { signature: value & SIGNATURE, held: (value & HELD) !== 0 } };
	}

	private add(key: number, value: number): number {
		const slot = this.keys.length;
		this.keys.push(key);
		this.values.push(value);
		this.more.push(-1);
		const head = this.first.get(key);
		if (head === undefined) this.first.set(key, slot);
		else {
			let last = head;
			while (this.more[last] >= 0) last = this.more[last];
			this.more[last] = slot;
		}
		return slot;
	}
}
