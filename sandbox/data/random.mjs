// Seeded random numbers and ids: the same seed always draws the same values.

/**
 * mulberry32: tiny, fast and good enough for test data.
 * @param {number} seed
 * @returns {() => number} uniform in [0, 1)
 */
export function mulberry32(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/**
 * FNV-1a, to derive independent PRNG streams from strings such as `${seed}:${id}`.
 * @param {string} text
 */
export function hashString(text) {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	return h >>> 0;
}

/** @param {number} seed */
export function createRandom(seed) {
	const next = mulberry32(seed);
	const random = {
		next,
		/** @param {number} min @param {number} max inclusive */
		int: (min, max) => min + Math.floor(next() * (max - min + 1)),
		/** @template T @param {readonly T[]} items @returns {T} */
		pick: (items) => items[Math.floor(next() * items.length)],
		/** @param {number} probability */
		chance: (probability) => next() < probability,
		/** @param {number} length */
		digits: (length) => {
			let out = '';
			for (let i = 0; i < length; i++) out += Math.floor(next() * 10);
			return out;
		},
		/** @param {number} length */
		hex: (length) => {
			let out = '';
			while (out.length < length)
				out += Math.floor(next() * 4294967296)
					.toString(16)
					.padStart(8, '0');
			return out.slice(0, length);
		},
		/** @template T @param {T[]} items in place */
		shuffle: (items) => {
			for (let i = items.length - 1; i > 0; i--) {
				const j = Math.floor(next() * (i + 1));
				[items[i], items[j]] = [items[j], items[i]];
			}
			return items;
		},
	};
	return random;
}

/** @typedef {ReturnType<typeof createRandom>} Random */

/**
 * Opaque ids like `agt_3f9a0c1d2e4b5a69`, unique within one sandbox.
 * @param {Random} random
 */
export function createIdFactory(random) {
	const used = new Set();
	/** @param {string} prefix */
	return (prefix) => {
		let id;
		do id = `${prefix}_${random.hex(16)}`;
		while (used.has(id));
		used.add(id);
		return id;
	};
}

/** @param {number} ms */
export const iso = (ms) => new Date(ms).toISOString();
