// The bit stream Call Finished's state keeps its numbers' keys in (callState.ts).

/** Bits written most significant first into bytes; values of up to 53 bits. */
export class BitWriter {
	private bytes = new Uint8Array(1024);
	private length = 0;
	/** Bits not written out yet (fewer than 8), in the low `pending` bits. */
	private buffer = 0;
	private pending = 0;

	write(value: number, bits: number): void {
		for (let left = bits; left > 0;) {
			const take = Math.min(left, 24);
			left -= take;
			const part = left > 0 ? Math.floor(value / 2 ** left) % 2 ** take : value % 2 ** take;
			this.buffer = (this.buffer << take) | part;
			this.pending += take;
			while (this.pending >= 8) {
				this.pending -= 8;
				this.push((this.buffer >>> this.pending) & 0xff);
			}
			this.buffer &= (1 << this.pending) - 1;
		}
	}

	toBuffer(): Buffer {
		if (this.pending > 0) this.push((this.buffer << (8 - this.pending)) & 0xff);
		this.pending = 0;
		return Buffer.from(this.bytes.buffer, 0, this.length);
	}

	private push(byte: number): void {
		if (this.length === this.bytes.length) {
			const grown = new Uint8Array(this.bytes.length * 2);
			grown.set(this.bytes);
			this.bytes = grown;
		}
		this.bytes[this.length++] = byte;
	}
}

/** Bits read back most significant first, as BitWriter wrote them. */
export class BitReader {
	private at = 0;
	/** Bits read in but not taken yet, in the low `pending` bits. */
	private buffer = 0;
	private pending = 0;
	constructor(private readonly bytes: Buffer) {}

	/** A run of ones and the zero after it (at most `most` ones, then no zero): how many. */
	ones(most: number): number {
		let count = 0;
		while (count < most) {
			if (this.pending === 0) {
				this.buffer = this.bytes[this.at++] ?? 0;
				this.pending = 8;
			}
			this.pending--;
			if (((this.buffer >>> this.pending) & 1) === 0) return count;
			count++;
		}
		return count;
	}

	read(bits: number): number {
		let value = 0;
		for (let left = bits; left > 0;) {
			const take = Math.min(left, 24);
			left -= take;
			while (this.pending < take) {
				this.buffer = ((this.buffer << 8) | (this.bytes[this.at++] ?? 0)) & 0x7fffffff;
				this.pending += 8;
			}
			this.pending -= take;
			value = value * 2 ** take + ((this.buffer >>> this.pending) & ((1 << take) - 1));
		}
		return value;
	}
}
