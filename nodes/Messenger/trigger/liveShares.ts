import type { RequestBudget } from '../../shared/pacing';

/**
 * What the live loops on one budget share: how many run on it (they split its reads) and when
 * the last of them started a read. Reads keep a budget's even spacing (a minute / its requests
 * per minute) instead of spending a window's worth at once and then waiting for the window to
 * pass, which would leave every chat unread for most of a minute.
 */
export interface BudgetShare {
	loops: number;
	lastReadAt: number;
}

/** The shares of the budgets some live loop runs on now: keyed, counted, released with the last loop. */
const shares = new Map<string, BudgetShare>();

/** A loop starts reading on `budget`: its share, to give back with leaveBudget. */
export function joinBudget(budget: RequestBudget): BudgetShare {
	let share = shares.get(budget.key);
	if (!share) {
		share = { loops: 0, lastReadAt: -Infinity };
		shares.set(budget.key, share);
	}
	share.loops++;
	return share;
}

/** A loop stopped: the last one on a budget releases its share. */
export function leaveBudget(budget: RequestBudget): void {
	const share = shares.get(budget.key);
	if (!share) return;
	share.loops--;
	if (share.loops <= 0) shares.delete(budget.key);
}

/** The loops running on `budget` now (at least 1 for a loop asking about its own). */
export function loopsOn(budget: RequestBudget): number {
	return Math.max(1, shares.get(budget.key)?.loops ?? 1);
}

/** How many budgets some live loop runs on now (0 once every loop stopped). */
export function budgetsInUse(): number {
	return shares.size;
}
