// Records in the state's arrays: O(1) lookup by id, insertion that keeps the index, timestamps.

/**
 * The sandbox's clock (ms): the machine's, `clockAheadMs` ahead (negative: behind), as an API
 * whose clock is set apart from n8n's. Its answers' Date header and the times it stamps keep it.
 * @param {{ options?: { clockAheadMs?: number } }} [api]
 */
export const apiNow = (api) => Date.now() + (api?.options?.clockAheadMs ?? 0);

/** @param {{ options?: { clockAheadMs?: number } }} [api] */
export const nowIso = (api) => new Date(apiNow(api)).toISOString();

/** @type {WeakMap<object[], { byId: Map<string, number>, length: number }>} */
const indexes = new WeakMap();

/**
 * Id lookup that stays O(1) for 10,000 records and still sees records tests push or replace.
 * @template {{ id: string }} T
 * @param {T[]} items @param {string} id
 * @returns {T | undefined}
 */
export function findById(items, id) {
	const index = indexes.get(items);
	if (index) {
		const position = index.byId.get(id);
		if (position !== undefined && items[position]?.id === id) return items[position];
		if (index.length === items.length && position === undefined) {
			// Same length and not indexed: a plain scan catches in-place replacements.
			const found = items.findIndex((item) => item.id === id);
			if (found === -1) return undefined;
		}
	}
	const byId = new Map();
	for (let i = 0; i < items.length; i++) byId.set(items[i].id, i);
	indexes.set(items, { byId, length: items.length });
	const position = byId.get(id);
	return position === undefined ? undefined : items[position];
}

/**
 * @template {{ id: string }} T
 * @param {T[]} items @param {T} item
 */
export function insert(items, item) {
	const index = indexes.get(items);
	items.push(item);
	if (index && index.length === items.length - 1) {
		index.byId.set(item.id, items.length - 1);
		index.length = items.length;
	}
	return item;
}
