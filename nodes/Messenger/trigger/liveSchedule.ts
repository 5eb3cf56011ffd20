import { pacingSettings } from '../../shared/pacing';

/**
 * When the Messenger Live Trigger reads each watched chat (docs/triggers.md states these numbers;
 * tests shorten them). A chat whose history changed lately (the customer wrote or the workflow
 * answered) is in conversation: the next message is likeliest there. The budget is shared so that
 * it is spent evenly: a chat in conversation is read `quietRatio` times as often as a quiet one,
 * and together they take the trigger's requests a minute, no more; with few chats the gaps stop
 * at their bounds and part of the budget is left unspent.
 */
export const LIVE_SCHEDULE = {
	/** A chat in conversation is read at most this often. */
	activeGapMs: 3_000,
	/** A chat whose history changed within this long is in conversation. */
	activeSpanMs: 45_000,
	/** A quiet chat's gap, over a chat in conversation's, while the budget is what limits them. */
	quietRatio: 1.25,
	/** A quiet chat is read at most this often, and at least this often while the budget allows. */
	quietGapMs: { min: 10_000, max: 60_000 },
	/** A chat whose reads fail is read again after this long, doubling with each failure in a row. */
	backoffMs: { min: 2_000, max: 300_000 },
	/**
	 * An outage: `outageChats` chats in a row (or every chat, when fewer are watched) failed for a
	 * cause that every read would meet (a 5xx, a 429, the network). No chat is read for this long,
	 * doubling while it lasts, so that a down API is not asked once a chat's back-off ends.
	 */
	outageHoldMs: { min: 2_000, max: 60_000 },
	outageChats: 3,
};

/** `min`, doubled for each of `times` after the first, at most `max`. */
function doubling({ min, max }: { min: number; max: number }, times: number): number {
	return Math.min(max, min * 2 ** Math.min(times - 1, 30));
}

/**
 * When each watched chat is due. The loop reads the chat due earliest (in the order the chats are
 * listed when times tie), so that when the budget cannot keep up every chat waits its turn
 * instead of the busy ones starving the quiet.
 */
export class ChatSchedule {
	private readonly due = new Map<string, number>();
	private readonly changedAt = new Map<string, number>();
	private readonly readAt = new Map<string, number>();
	/** Failed reads in a row, by chat: such a chat waits out its back-off and has no share of the budget. */
	private readonly failures = new Map<string, number>();
	/** The chats that failed in a row for a cause every read would meet, and the hold that puts on every read. */
	private readonly outage = { chats: new Set<string>(), holds: 0, until: -Infinity };

	/**
	 * Every chat is due at `now`: the first reads catch up with what came while n8n was not
	 * reading. `perMinute`: the reads a minute this trigger's chats share (a function: other live
	 * triggers on the same budget may start or stop).
	 */
	constructor(
		keys: string[],
		now: number,
		private readonly perMinute: () => number,
	) {
		for (const key of keys) this.due.set(key, now);
	}

	/**
	 * The chat to read next, and when: the one due earliest among those that may be read at `now`,
	 * else the one that may be read first. While the budget is what sets the gaps, a chat may be
	 * read before it is due (never sooner than its bound after its last read): a read the budget
	 * leaves room for is not left unspent while every chat waits for its time.
	 */
	next(now: number): { key: string; at: number } | undefined {
		let ready: { key: string; at: number } | undefined;
		let soonest: { key: string; at: number } | undefined;
		for (const [key, due] of this.due) {
			const bound = (this.readAt.get(key) ?? -Infinity) + this.boundMs(key, now);
			const may = this.failures.has(key) ? due : Math.min(due, bound);
			if (may <= now) {
				if (!ready || due < ready.at) ready = { key, at: due };
			} else if (!soonest || may < soonest.at) soonest = { key, at: may };
		}
		const found = ready ? { key: ready.key, at: Math.min(ready.at, now) } : soonest;
		return found && found.at < this.outage.until ? { ...found, at: this.outage.until } : found;
	}

	/** The shortest gap of a chat at `now`: its bound, in conversation or quiet. */
	private boundMs(key: string, now: number): number {
		return this.active(key, now) ? LIVE_SCHEDULE.activeGapMs : LIVE_SCHEDULE.quietGapMs.min;
	}

	/** Whether the chat is in conversation at `now`. */
	private active(key: string, now: number): boolean {
		const changed = this.changedAt.get(key);
		return changed !== undefined && now - changed < LIVE_SCHEDULE.activeSpanMs;
	}

	/**
	 * How long after a read at `now` a chat is read again. The gap of a chat in conversation is
	 * the one at which every chat's reads (a quiet chat's `quietRatio` times further apart) fill
	 * the budget: `(in conversation + quiet / quietRatio) × minute / perMinute`.
	 */
	gapMs(key: string, now: number): number {
		const { activeGapMs, quietRatio, quietGapMs } = LIVE_SCHEDULE;
		let active = 0;
		for (const chat of this.due.keys()) {
			if (!this.failures.has(chat) && this.active(chat, now)) active++;
		}
		const quiet = this.due.size - this.failures.size - active;
		const minute = pacingSettings.windowMs;
		const unit = ((active + quiet / quietRatio) * minute) / Math.max(1, this.perMinute());
		if (this.active(key, now)) return Math.round(Math.max(activeGapMs, unit));
		return Math.round(Math.min(quietGapMs.max, Math.max(quietGapMs.min, unit * quietRatio)));
	}

	/** A chat was read at `now` (`changed`: its history had something new): when it is due again. */
	read(key: string, now: number, changed = false): void {
		this.failures.delete(key);
		Object.assign(this.outage, { holds: 0, until: -Infinity });
		this.outage.chats.clear();
		if (changed) this.changedAt.set(key, now);
		this.readAt.set(key, now);
		this.due.set(key, now + this.gapMs(key, now));
	}

	/**
	 * A read of the chat failed at `now`: it is read again after its own back-off (LIVE_SCHEDULE
	 * backoffMs, doubling while it keeps failing); the other chats keep their turns.
	 */
	failed(key: string, now: number, everyRead = false): void {
		const streak = (this.failures.get(key) ?? 0) + 1;
		this.failures.set(key, streak);
		this.readAt.set(key, now);
		this.due.set(key, now + doubling(LIVE_SCHEDULE.backoffMs, streak));
		// A chat's own failure (a 403, a 404) says nothing of the API; `everyRead`: a 5xx, a 429, the network.
		if (!everyRead) return this.outage.chats.clear();
		this.outage.chats.add(key);
		if (this.outage.chats.size < Math.min(LIVE_SCHEDULE.outageChats, this.due.size)) return;
		this.outage.holds++;
		this.outage.until = now + doubling(LIVE_SCHEDULE.outageHoldMs, this.outage.holds);
	}

	/**
	 * The chats read are now `keys` (a chat listed twice is read by one of its entries:
	 * chatOfPhone.ts readersOfChats): one new to the schedule is due at `now`; one no longer among
	 * them is forgotten, and its share of the budget goes to the others.
	 */
	readOnly(keys: string[], now: number): void {
		const kept = new Set(keys);
		for (const key of [...this.due.keys()].filter((key) => !kept.has(key))) {
			for (const times of [this.due, this.changedAt, this.readAt, this.failures]) times.delete(key);
			this.outage.chats.delete(key);
		}
		for (const key of keys) if (!this.due.has(key)) this.due.set(key, now);
	}

	/** Failed reads of the chat in a row (0: its last read succeeded). */
	failuresOf(key: string): number {
		return this.failures.get(key) ?? 0;
	}
}
