// Small statistics for the benchmarks.

/** The median of some numbers (benchmarks: the middle of repeated runs). @param {number[]} values */
export function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = sorted.length >> 1;
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
