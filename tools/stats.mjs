// Small statistics for the benchmarks.

/** The median of some numbers (benchmarks: the middle of repeated runs). @param {number[]} values */
export function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = sorted.length >> 1;
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The `share` quantile of some numbers (nearest rank: 0.5 the median's lower middle, 0.95 the p95). */
export function quantile(values, share) {
	if (!values.length) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))];
}
