/**
 * When the Messenger Live Trigger reads each watched chat (docs/messenger.md states these numbers;
 * tests shorten them). A chat in conversation (its history changed lately: the customer wrote or
 * the workflow answered) is read every few seconds; a quiet one less often, so that the quiet
 * chats of one trigger together take at most `quietShare` of the budget.
 */
export const LIVE_SCHEDULE = {
	/** A chat in conversation is read this often. */
	activeGapMs: 3_000,
	/** A chat is in conversation this long after its history last changed. */
	activeForMs: 180_000,
	/** A quiet chat is read at least this often, and at most this often. */
	quietGapMs: { min: 10_000, max: 60_000 },
	/** Share of the budget the quiet chats of one trigger may take together. */
	quietShare: 0.75,
};

/** Milliseconds between two reads of a quiet chat, for `chats` watched within `perMinute` requests. */
export function quietGapMs(chats: number, perMinute: number): number {
	const spread = (chats * 60_000) / (Math.max(1, perMinute) * LIVE_SCHEDULE.quietShare);
	return Math.round(
		Math.min(LIVE_SCHEDULE.quietGapMs.max, Math.max(LIVE_SCHEDULE.quietGapMs.min, spread)),
	);
}

/**
 * When each watched chat is due. The loop reads the chat due earliest (in the order the chats are
 * listed when times tie), so that when the budget cannot keep up every chat waits its turn
 * instead of the busy ones starving the quiet.
 */
export class ChatSchedule {
	private readonly due = new Map<string, number>();
	private readonly changedAt = new Map<string, number>();

	/** Every chat is due at `now`: the first reads catch up with what came while n8n was not reading. */
	constructor(
		keys: string[],
		now: number,
		private readonly quietMs: number,
	) {
		for (const key of keys) this.due.set(key, now);
	}

	/** The chat due earliest, and when. */
	next(): { key: string; at: number } | undefined {
		let next: { key: string; at: number } | undefined;
		for (const [key, at] of this.due) if (!next || at < next.at) next = { key, at };
		return next;
	}

	/** Whether a chat is in conversation at `now`. */
	inConversation(key: string, now: number): boolean {
		const changed = this.changedAt.get(key);
		return changed !== undefined && now - changed < LIVE_SCHEDULE.activeForMs;
	}

	/** A chat was read at `now` (`changed`: its history had something new): when it is due again. */
	read(key: string, changed: boolean, now: number): void {
		if (changed) this.changedAt.set(key, now);
		const gap = this.inConversation(key, now) ? LIVE_SCHEDULE.activeGapMs : this.quietMs;
		this.due.set(key, now + gap);
	}

	/** A chat is not read before `at` (it could not be read; it is asked again then). */
	postpone(key: string, at: number): void {
		this.due.set(key, Math.max(this.due.get(key) ?? at, at));
	}

	/** No chat is read before `at` (the API is slow, down or refusing: every read would fail alike). */
	holdAll(at: number): void {
		for (const key of this.due.keys()) this.postpone(key, at);
	}
}
