import type {
	IDataObject,
	INodeExecutionData,
	IPollFunctions,
	ITriggerFunctions,
	NodeApiError,
	NodeOperationError,
} from 'n8n-workflow';

import type { RequestBudget } from '../../shared/pacing';
import { abortableSleep, budgetDelayMs, evenSpacingMs, pacingSettings } from '../../shared/pacing';
import { failsThePoll, pollError } from '../../shared/poll';
import { PollClock, withPollClock } from '../../shared/pollClock';
import type { OutputItems } from '../../shared/router';
import { LiveStopped } from './liveReader';
import { ChatSchedule } from './liveSchedule';
import type { DeliverySettings, HeldChat } from './messageDelivery';
import { deliveredItems, releaseHeld } from './messageDelivery';
import type { MessageWatchState } from './messageReceived';
import { advanceEntry, chatUnreadable, freshLink } from './messageReceived';
import type { MessageFilter, WatchEntry } from './messageSettings';
import { receivedMessage, wanted } from './messageSettings';

/** The live loop's times (docs/triggers.md states them; tests shorten them). */
export const LIVE_LOOP = {
	/** The time the reads at activation may take (new chats' baselines); past it, the loop reads the rest. */
	activationBudgetMs: 40_000,
	/** The time one read of a chat (its history, a phone's chat, its files) may take. */
	readBudgetMs: 20_000,
	/** After a failure that every read would meet (429s, 5xx, the network), no read for this long, doubling. */
	backoffMs: { min: 2_000, max: 60_000 },
	/** One thing's failure is reported as a failed execution at most this often; in between, logged. */
	reportEveryMs: 60_000,
	/** The longest nap: the loop looks at the time again at least this often. */
	maxNapMs: 5_000,
	/** Message IDs remembered as handed over, so that a chat listed twice (ID and phone) reports each once. */
	recentIds: 1_000,
};

/** What the trigger keeps in the node's static data (the key changes when the shape does). */
const STATE_KEY = 'messageReceived';

interface StoredState {
	key: string;
	state: MessageWatchState;
}

/** The state stored for this trigger, if it is of this shape. */
export function storedState(context: ITriggerFunctions): MessageWatchState | undefined {
	const stored = context.getWorkflowStaticData('node').live as StoredState | undefined;
	return stored && stored.key === STATE_KEY ? stored.state : undefined;
}

/** Puts the trigger's state in the node's static data (n8n saves it at activation and with each emit). */
export function saveState(context: ITriggerFunctions, state: MessageWatchState): void {
	context.getWorkflowStaticData('node').live = { key: STATE_KEY, state } as unknown as IDataObject;
}

/**
 * When the live triggers on one budget last started a read, by budget: reads keep a budget's even
 * spacing (a minute / its requests per minute) instead of spending a window's worth at once and
 * then waiting for the window to pass, which would leave every chat unread for most of a minute.
 */
const lastReads = new Map<string, number>();

/** How many live loops run on each budget: they share its reads. */
const loopsOnBudget = new Map<string, number>();

/**
 * A key for n8n 2.x to start one execution per hand-over (a repeat after a crash is skipped): by
 * chat and message IDs, so the same messages give the same key whichever entry of their chat
 * (its ID, a phone matched to it) found them.
 */
function deduplicationKey(context: ITriggerFunctions, items: INodeExecutionData[]): string {
	const node = context.getNode();
	const byChat = new Map<string, string[]>();
	for (const { json } of items) {
		const chat = String(json.chatId ?? '');
		byChat.set(chat, [...(byChat.get(chat) ?? []), ...messageIdsOf([{ json }])]);
	}
	const parts = [...byChat].map(([chat, found]) => {
		const ids = [...found].sort();
		const span = ids.length > 3 ? [ids[0], ids[ids.length - 1], String(ids.length)] : ids;
		return `${chat}/${span.join(',')}`;
	});
	return `messengerLive:${String(context.getWorkflow().id ?? '')}:${node.id ?? node.name}:${parts.join(';')}`;
}

/** The message IDs of output items (one per message, or a chat's group). */
function messageIdsOf(items: INodeExecutionData[]): string[] {
	return items.flatMap(({ json }) =>
		Array.isArray(json.messageIds) ? json.messageIds.map(String) : [String(json.messageId)],
	);
}

/** When the first held chat's pause ends (Infinity: none held). */
function releaseAt(held: Record<string, HeldChat> | undefined, pauseSeconds: number): number {
	let at = Infinity;
	for (const chat of Object.values(held ?? {})) {
		at = Math.min(at, Date.parse(chat.lastFoundAt) + pauseSeconds * 1000);
	}
	return at;
}

/** The settings a live trigger runs with, checked before any request. */
export interface LiveSettings {
	entries: WatchEntry[];
	filter: MessageFilter;
	delivery: DeliverySettings;
}

/**
 * The Message Received loop of the Messenger Live Trigger: reads the watched chats one at a time,
 * the one due earliest first (liveSchedule.ts), within the live triggers' budget, and hands each
 * chat's new messages over as soon as they are read. The state moves only together with the emit
 * that reports it (n8n saves a trigger's static data when it emits), so a restart repeats or loses
 * nothing; a failed read changes nothing and is read again after a pause.
 */
export class LiveLoop {
	private readonly stopping = new AbortController();
	private readonly byKey: Map<string, WatchEntry>;
	private readonly schedule: ChatSchedule;
	private readonly reported = new Map<string, number>();
	private readonly recent = new Set<string>();
	private holdUntil = 0;
	private state: MessageWatchState;
	private readonly activationReads: number;
	private readonly startedAt = Date.now();
	private backoffMs = 0;

	constructor(
		private readonly context: ITriggerFunctions,
		private readonly reader: IPollFunctions,
		private readonly settings: LiveSettings,
		private readonly budget: RequestBudget,
		start: { state: MessageWatchState; read: number },
		private readonly live: { stopped: boolean },
	) {
		this.state = start.state;
		this.activationReads = start.read;
		this.byKey = new Map(settings.entries.map((entry) => [entry.key, entry]));
		this.schedule = new ChatSchedule(
			settings.entries.map((entry) => entry.key),
			Date.now(),
			() => budget.perMinute / Math.max(1, loopsOnBudget.get(budget.key) ?? 1),
		);
	}

	/** Runs until stopped; never throws. */
	async run(): Promise<void> {
		const { key } = this.budget;
		loopsOnBudget.set(key, (loopsOnBudget.get(key) ?? 0) + 1);
		try {
			while (!this.live.stopped) {
				try {
					await this.step();
				} catch (error) {
					if (this.live.stopped || error instanceof LiveStopped) return;
					this.failed(error);
				}
			}
		} finally {
			const left = (loopsOnBudget.get(key) ?? 1) - 1;
			if (left > 0) loopsOnBudget.set(key, left);
			else loopsOnBudget.delete(key);
		}
	}

	/** Stops the loop: no request, emit or timer after the read under way (if any) ends. */
	stop(): void {
		this.live.stopped = true;
		this.stopping.abort();
	}

	/** One step: files left over, else a chat whose pause ended, else the chat due, else a nap. */
	private async step(): Promise<void> {
		const now = Date.now();
		if (now < this.holdUntil) return await this.nap(this.holdUntil - now);
		const { pauseSeconds } = this.settings.delivery;
		if (this.state.pending?.length) {
			return await this.handOver(this.state.pending, { ...this.state, pending: [] }, true);
		}
		const release = releaseAt(this.state.held, pauseSeconds);
		if (release <= now) {
			const { released, held } = releaseHeld([], this.state.held ?? {}, pauseSeconds, now);
			return await this.handOver(released, { ...this.state, held });
		}
		const next = this.schedule.next(now);
		const spacing = this.spacingMs(now);
		const last = lastReads.get(this.budget.key) ?? -Infinity;
		const due = Math.max(next?.at ?? Infinity, now + budgetDelayMs(this.budget), last + spacing);
		const wait = Math.min(release, due) - now;
		if (wait > 0) return await this.nap(wait);
		if (!next) return;
		// A late wake-up (by up to half a spacing) does not push the reads after it back.
		lastReads.set(this.budget.key, Math.max(now - spacing / 2, last + spacing));
		await this.readChat(next.key);
	}

	/**
	 * The even spacing of reads within the budget (pacing.ts: clear of its window's limit, where
	 * reads would wait for places to free and repeat the gaps of the window before). In the first
	 * window after activation the reads made then hold places in it: the loop's share the rest.
	 */
	private spacingMs(now: number): number {
		const taken = now < this.startedAt + pacingSettings.windowMs ? this.activationReads : 0;
		return evenSpacingMs(this.budget.perMinute - taken);
	}

	private async nap(ms: number): Promise<void> {
		const span = Math.min(Math.max(1, Math.ceil(ms)), LIVE_LOOP.maxNapMs);
		await abortableSleep(span, this.stopping.signal).catch(() => undefined);
	}

	/** Reads one chat within its time; its new messages are handed over (or held) at once. */
	private async readChat(key: string): Promise<void> {
		const entry = this.byKey.get(key) as WatchEntry;
		const { filter, delivery } = this.settings;
		await withPollClock(
			this.reader,
			new PollClock(LIVE_LOOP.readBudgetMs, Date.now, this.stopping.signal),
			async () => {
				let result: Awaited<ReturnType<typeof advanceEntry>> | undefined;
				let failed: unknown;
				try {
					result = await advanceEntry(this.reader, entry, this.state.chats, filter, {
						entries: this.settings.entries,
					});
				} catch (error) {
					failed = error;
				}
				if (!result) {
					// The API's or the network's failure stops the loop for a while; the chat's own names it.
					if (this.live.stopped || failsThePoll(failed)) throw failed;
					this.report(key, chatUnreadable(this.reader, entry, failed));
					this.schedule.read(key, Date.now());
					return;
				}
				const now = Date.now();
				if (result.gone) this.report(key, pollError(this.reader, result.gone));
				const { phone } = result;
				const items = result.fresh
					.filter((message) => wanted(filter, message) && !this.recent.has(String(message.id)))
					.map((message) => receivedMessage(message, phone));
				const { released, held } = releaseHeld(
					items,
					this.state.held ?? {},
					delivery.pauseSeconds,
					now,
				);
				this.schedule.read(key, now, result.fresh.length > 0);
				const chats = { ...this.state.chats, ...result.moved };
				await this.handOver(released, { ...this.state, chats, held });
			},
		);
		this.backoffMs = 0;
	}

	/**
	 * Delivers released messages (their files with Download Media) and moves the state to `next`
	 * with the emit that reports them; files that did not fit in the time wait in `pending`.
	 */
	private async handOver(
		released: IDataObject[][],
		next: MessageWatchState,
		mustDeliverFirst = false,
	): Promise<void> {
		const delivered = await withPollClock(
			this.reader,
			new PollClock(LIVE_LOOP.readBudgetMs, Date.now, this.stopping.signal),
			async () =>
				await deliveredItems(this.reader, released, this.settings.delivery, {
					freshLink: async (messageId) => await freshLink(this.reader, messageId),
					mustDeliverFirst,
					fetchFailsPoll: true,
				}),
		);
		const state: MessageWatchState = { chats: next.chats };
		if (next.held && Object.keys(next.held).length) state.held = next.held;
		if (delivered.undelivered.length) state.pending = delivered.undelivered;
		this.commit(state, delivered.output);
	}

	/** The state and the emit that reports it, together: nothing of either once stopped. */
	private commit(state: MessageWatchState, output: OutputItems): void {
		if (this.live.stopped) throw new LiveStopped('The trigger was stopped');
		this.state = state;
		saveState(this.context, state);
		if (!output.items.length) return;
		const ids = messageIdsOf(output.items);
		for (const id of ids) this.remember(id);
		const key = deduplicationKey(this.context, output.items);
		this.context.emit([output.items], undefined, undefined, key);
	}

	private remember(id: string): void {
		this.recent.delete(id);
		this.recent.add(id);
		if (this.recent.size > LIVE_LOOP.recentIds) {
			this.recent.delete(this.recent.values().next().value as string);
		}
	}

	/** A failure every read would meet: no read for a while (doubling), reported with its cause. */
	private failed(error: unknown): void {
		this.backoffMs = Math.min(
			LIVE_LOOP.backoffMs.max,
			Math.max(LIVE_LOOP.backoffMs.min, this.backoffMs * 2),
		);
		this.holdUntil = Date.now() + this.backoffMs;
		this.report('', pollError(this.reader, error));
	}

	/**
	 * A failed execution with the cause (n8n 2.x's saveFailedExecution; the workflow stays
	 * active), at most once per `reportEveryMs` for one thing; n8n 1.x has no such call: logged.
	 */
	report(key: string, error: NodeApiError | NodeOperationError): void {
		const now = Date.now();
		const last = this.reported.get(key) ?? -Infinity;
		const logged = `${this.context.getNode().name}: ${error.message}`;
		if (now - last < LIVE_LOOP.reportEveryMs) return this.context.logger.warn(logged);
		this.reported.set(key, now);
		if (typeof this.context.saveFailedExecution === 'function') {
			this.context.saveFailedExecution(error);
		} else {
			this.context.logger.error(logged);
		}
	}
}
