import type { DeliverySettings } from './messageDelivery';
import type { MessageFilter, WatchEntry } from './messageSettings';

/** The live loop's times (docs/triggers.md states them; tests shorten them). */
export const LIVE_LOOP = {
	/** The time the reads at activation may take (new chats' baselines); past it, the loop reads the rest. */
	activationBudgetMs: 40_000,
	/** The time one read of a chat (its history, a phone's chat, its files) may take. */
	readBudgetMs: 20_000,
	/** A chat that keeps failing is a failed execution again after this long, doubling (chatFailures.ts); in between, logged. */
	reportEveryMs: 60_000,
	/** ... and at least once in this long while it fails. */
	reportGapMaxMs: 3_600_000,
	/** The longest nap: the loop looks at the time again at least this often. */
	maxNapMs: 5_000,
};

/** The settings a live trigger runs with, checked before any request. */
export interface LiveSettings {
	entries: WatchEntry[];
	filter: MessageFilter;
	delivery: DeliverySettings;
}
