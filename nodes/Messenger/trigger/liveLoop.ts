import type { IDataObject, IPollFunctions, ITriggerFunctions } from 'n8n-workflow';

import type { RequestBudget } from '../../shared/pacing';
import { abortableSleep, budgetDelayMs, evenSpacingMs, pacingSettings } from '../../shared/pacing';
import { isPollWide, pollError } from '../../shared/poll';
import { PollClock, PollTimeUp, withPollClock } from '../../shared/pollClock';
import type { OutputItems } from '../../shared/router';
import { FailureReports, failuresTogether } from './chatFailures';
import { readersOfChats } from './chatOfPhone';
import { emitHandOver, handedOver } from './liveHandOver';
import { LiveStopped } from './liveReader';
import type { LiveSettings } from './liveSettings';
import { LIVE_LOOP } from './liveSettings';
import { ChatSchedule } from './liveSchedule';
import type { BudgetShare } from './liveShares';
import { joinBudget, leaveBudget, loopsOn } from './liveShares';
import { cursorOnly, releaseAt, saveState } from './liveState';
import { releaseHeld } from './messageDelivery';
import type { ProgressBox } from './chatHistory';
import type { MessageWatchState } from './messageReceived';
import { advanceEntry, chatUnreadable } from './messageReceived';
import type { WatchEntry } from './messageSettings';
import { receivedMessage, wanted } from './messageSettings';

export { LIVE_LOOP } from './liveSettings';
export type { LiveSettings } from './liveSettings';
export { saveState, storedState } from './liveState';

/**
 * The Message Received loop of the Messenger Live Trigger: reads the watched chats one at a time,
 * the one due earliest first (liveSchedule.ts), within the live triggers' budget, and hands each
 * chat's new messages over as soon as they are read. The state moves only together with the emit
 * that reports it (n8n saves a trigger's static data when it emits), so a restart repeats or loses
 * nothing. A failed read changes nothing and is the chat's alone: it is read again after its own
 * back-off while the others keep their turns, and is reported as chatFailures.ts says.
 */
export class LiveLoop {
	private readonly stopping = new AbortController();
	private readonly byKey: Map<string, WatchEntry>;
	private readonly schedule: ChatSchedule;
	private readonly reports: FailureReports;
	/** Where each chat's last read stopped when its time ran out: the next goes on from there. */
	private readonly progress = new Map<string, ProgressBox>();
	/** A phone's chat found by a read that did not end: the next read goes to it without asking again. */
	private readonly matched = new Map<string, { chatId?: string }>();
	/** ID entries the API did not know at their last read: a phone matched to the chat reads on its own. */
	private readonly unknown = new Set<string>();
	private state: MessageWatchState;
	private readonly activationReads: number;
	/** The chats the activation could not read (their failures are named together). */
	private readonly activationFailed: string[];
	private readonly startedAt = Date.now();
	private share: BudgetShare | undefined;

	constructor(
		private readonly context: ITriggerFunctions,
		private readonly reader: IPollFunctions,
		private readonly settings: LiveSettings,
		private readonly budget: RequestBudget,
		start: { state: MessageWatchState; read: number; failed?: string[] },
		private readonly live: { stopped: boolean },
	) {
		this.activationReads = start.read;
		this.byKey = new Map(settings.entries.map((entry) => [entry.key, entry]));
		this.reports = new FailureReports(context, LIVE_LOOP);
		this.schedule = new ChatSchedule(
			settings.entries.map((entry) => entry.key),
			this.startedAt,
			() => budget.perMinute / loopsOn(budget),
		);
		// A chat the API did not know at activation, or whose read failed then: its own back-off,
		// then read again.
		this.activationFailed = [...(start.failed ?? [])];
		const chats = { ...start.state.chats };
		for (const [key, watch] of Object.entries(chats)) {
			// (`true`: stored by an earlier version without a cursor; advanceEntry takes a new baseline.)
			if (typeof watch.missing !== 'object') continue;
			chats[key] = cursorOnly(watch);
			this.activationFailed.push(key);
			if (this.byKey.get(key)?.chatId !== undefined) this.unknown.add(key);
		}
		for (const key of this.activationFailed) this.schedule.failed(key, this.startedAt);
		this.state = { ...start.state, chats };
		this.readOneEntryPerChat(this.startedAt);
	}

	/** The schedule holds one entry per chat (chatOfPhone.ts readersOfChats): a chat listed twice takes one share. */
	private readOneEntryPerChat(now: number): void {
		const readers = readersOfChats(this.settings.entries, this.state.chats, this.unknown);
		this.schedule.readOnly(readers, now);
		for (const key of this.byKey.keys()) {
			if (readers.includes(key)) continue;
			this.progress.delete(key);
			this.matched.delete(key);
		}
	}

	/** The failures the activation met (n8n's start-up, a leadership change): one failed execution naming each. */
	reportActivation(failures: unknown[]): void {
		const together = failuresTogether(this.reader, failures);
		if (together) this.reports.activation(together, this.activationFailed);
	}

	/** Runs until stopped; never throws. */
	async run(): Promise<void> {
		this.share = joinBudget(this.budget);
		try {
			while (!this.live.stopped) {
				try {
					await this.step();
				} catch (error) {
					if (this.live.stopped || error instanceof LiveStopped) return;
					// Not a chat's (those are handled where they are read): named, and a pause.
					this.reports.failed('', pollError(this.reader, error));
					await this.nap(LIVE_LOOP.maxNapMs);
				}
			}
		} finally {
			leaveBudget(this.budget);
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
		const { pauseSeconds } = this.settings.delivery;
		if (this.state.pending?.length) {
			return await this.handOver(this.state.pending, { ...this.state, pending: [] }, true);
		}
		const release = releaseAt(this.state.held, pauseSeconds);
		if (release <= now) {
			const { released, held } = releaseHeld([], this.state.held ?? {}, pauseSeconds, now);
			return await this.handOver(released, { ...this.state, held });
		}
		const share = this.share as BudgetShare;
		const next = this.schedule.next(now);
		const spacing = this.spacingMs(now);
		const last = share.lastReadAt;
		const due = Math.max(next?.at ?? Infinity, now + budgetDelayMs(this.budget), last + spacing);
		const wait = Math.min(release, due) - now;
		if (wait > 0) return await this.nap(wait);
		if (!next) return;
		// A late wake-up (by up to half a spacing) does not push the reads after it back.
		share.lastReadAt = Math.max(now - spacing / 2, last + spacing);
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
		const progress = this.progress.get(key) ?? {};
		this.progress.set(key, progress);
		const pagesBefore = progress.progress?.pages ?? 0;
		const matched = this.matched.get(key) ?? {};
		this.matched.set(key, matched);
		await withPollClock(
			this.reader,
			new PollClock(LIVE_LOOP.readBudgetMs, Date.now, this.stopping.signal),
			async () => {
				let result: Awaited<ReturnType<typeof advanceEntry>> | undefined;
				let failed: unknown;
				try {
					result = await advanceEntry(this.reader, entry, this.state.chats, filter, {
						entries: this.settings.entries,
						box: progress,
						matched,
					});
				} catch (error) {
					failed = error;
				}
				if (this.live.stopped) throw new LiveStopped('The trigger was stopped');
				if (!result) {
					// A history longer than one read's time goes on at the chat's next turn, soon.
					const readOn =
						failed instanceof PollTimeUp && (progress.progress?.pages ?? 0) > pagesBefore;
					if (readOn) return this.schedule.read(key, Date.now(), true);
					return this.chatFailed(key, chatUnreadable(this.reader, entry, failed));
				}
				if (!progress.progress) this.progress.delete(key);
				this.matched.delete(key);
				const now = Date.now();
				// A chat the API did not know (404): asked again after its back-off, its cursor kept.
				if (result.gone && !entry.phone) {
					this.chatFailed(key, pollError(this.reader, result.gone));
					this.unknown.add(key);
					return this.readOneEntryPerChat(now);
				}
				this.unknown.delete(key);
				const { phone } = result;
				const items = result.fresh
					.filter((message) => wanted(filter, message))
					.map((message) => receivedMessage(message, phone));
				const { released, held } = releaseHeld(
					items,
					this.state.held ?? {},
					delivery.pauseSeconds,
					now,
				);
				if (result.gone) {
					// A phone whose chat is gone: matched again (Check Existing) after its back-off.
					this.chatFailed(key, pollError(this.reader, result.gone));
				} else {
					this.schedule.read(key, now, result.fresh.length > 0);
					this.reports.recovered(key);
				}
				const chats = { ...this.state.chats, ...result.moved };
				await this.handOver(released, { ...this.state, chats, held });
			},
		);
	}

	/** A read of the chat failed: nothing of it moves; its own back-off, and the failure named. */
	private chatFailed(key: string, error: ReturnType<typeof pollError>): void {
		this.schedule.failed(key, Date.now(), isPollWide(error.failure));
		this.reports.failed(key, error);
	}

	/** Delivers released messages and moves the state with the emit that reports them (liveHandOver.ts). */
	private async handOver(
		released: IDataObject[][],
		next: MessageWatchState,
		mustDeliverFirst = false,
	): Promise<void> {
		const clock = new PollClock(LIVE_LOOP.readBudgetMs, Date.now, this.stopping.signal);
		const { delivery } = this.settings;
		const { state, output } = await handedOver(
			this.reader,
			delivery,
			clock,
			released,
			next,
			mustDeliverFirst,
		);
		this.commit(state, output);
	}

	/** The state and the emit that reports it, together: nothing of either once stopped. */
	private commit(state: MessageWatchState, output: OutputItems): void {
		if (this.live.stopped) throw new LiveStopped('The trigger was stopped');
		this.state = state;
		saveState(this.context, state);
		this.readOneEntryPerChat(Date.now());
		emitHandOver(this.context, output);
	}
}
