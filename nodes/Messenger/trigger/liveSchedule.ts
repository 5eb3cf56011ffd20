import { pacingSettings } from '../../shared/pacing';

/**
 * When the Messenger Live Trigger reads each watched chat (docs/triggers.md states these numbers;
 * tests shorten them). A chat whose history just changed (the customer wrote or the workflow
 * answered) is read every few seconds; the longer it stays the same, the less often it is read
 * (a share of the time since it changed), down to a quiet chat's pace, so that the quiet chats of
 * one trigger together take at most `quietShare` of the budget.
 */
export const LIVE_SCHEDULE = {
	/** A chat that just changed is read this often. */
	activeGapMs: 3_000,
	/** Past that, a chat is read again after this share of the time since it last changed. */
	sinceChangeShare: 0.25,
	/**
	 * No chat is read more often than this share of the time it takes to read every chat once
	 * within the budget: with many chats the busy ones do not take the quiet ones' turns.
	 */
	busyFloorShare: 0.5,
	/** A quiet chat is read at least this often, and at most this often. */
	quietGapMs: { min: 10_000, max: 60_000 },
	/** Share of the budget the quiet chats of one trigger may take together. */
	quietShare: 1,
};

/**
 * Milliseconds between two reads of a quiet chat, for `chats` watched within `perMinute` requests
 * (a minute: the API's window, which benchmarks shorten).
 */
export function quietGapMs(chats: number, perMinute: number): number {
	const minute = pacingSettings.windowMs;
	const spread = (chats * minute) / (Math.max(1, perMinute) * LIVE_SCHEDULE.quietShare);
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
	/**
	 * `quietMs`: a quiet chat's gap; `roundMs`: the time it takes to read every chat once within
	 * the budget.
	 */
	constructor(
		keys: string[],
		now: number,
		private readonly quietMs: number,
		private readonly roundMs = 0,
	) {
		for (const key of keys) this.due.set(key, now);
	}

	/** The chat due earliest, and when. */
	next(): { key: string; at: number } | undefined {
		let next: { key: string; at: number } | undefined;
		for (const [key, at] of this.due) if (!next || at < next.at) next = { key, at };
		return next;
	}

	/** How long after a read at `now` a chat is read again: soon after it changed, then ever less often. */
	gapMs(key: string, now: number): number {
		const changed = this.changedAt.get(key);
		if (changed === undefined) return this.quietMs;
		const share = (now - changed) * LIVE_SCHEDULE.sinceChangeShare;
		const floor = Math.max(LIVE_SCHEDULE.activeGapMs, this.roundMs * LIVE_SCHEDULE.busyFloorShare);
		return Math.min(this.quietMs, Math.max(floor, share));
	}

	/** A chat was read at `now` (`changed`: its history had something new): when it is due again. */
	read(key: string, now: number, changed = false): void {
		if (changed) this.changedAt.set(key, now);
		this.due.set(key, now + this.gapMs(key, now));
	}
}
