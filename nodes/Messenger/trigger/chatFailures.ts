import type { IPollFunctions, ITriggerFunctions, NodeApiError } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isPollWide, pollError } from '../../shared/poll';

type Shown = NodeApiError | NodeOperationError;

/**
 * The failures of several watched chats (at n8n's start-up or a leadership change) as one error
 * naming each: one failed execution, not one for the first and the log for the rest.
 */
export function failuresTogether(context: IPollFunctions, failures: unknown[]): Shown | undefined {
	const shown = failures.map((failure) => pollError(context, failure));
	if (shown.length <= 1) return shown[0];
	const message = `${shown.length} watched chats could not be read: ${shown.map((error) => error.message).join('; ')}`;
	const together = new NodeOperationError(context.getNode(), message, {
		description: shown
			.map((error) => [error.message, error.description].filter(Boolean).join(': '))
			.join('\n'),
	});
	// The message is ours and names the chats (perhaps with the IDs given): n8n shows it as it is.
	together.message = message;
	const causes = new Set(shown.map((error) => error.failure?.cause));
	if (causes.size === 1 && shown[0].failure) together.failure = shown[0].failure;
	return together;
}

/** How often a failure goes on being reported (the live loop's LIVE_LOOP holds these). */
export interface ReportTimes {
	/** After a failed execution for a chat, the next one for it comes this long after at the soonest, doubling while it fails. */
	reportEveryMs: number;
	/** The longest gap between two failed executions for a chat that keeps failing. */
	reportGapMaxMs: number;
}

/**
 * When a chat's failure is a failed execution and when it is only logged: at the start of its
 * streak of failed reads, then after reportEveryMs, twice that, and so on up to reportGapMaxMs,
 * while it lasts; in between, logged. A failure that every read would meet (a 429, a 5xx, the
 * network, a credential refused) may be an outage of the API: named once, not once per chat, and
 * at most once per reportEveryMs, whichever chat met it. Within that time such a failure is named
 * only as the chat's own: the chat failed so before and, since, other chats were read and none
 * failed so (it fails alone while the API answers the others; an API failing on and off fails
 * them too).
 */
export class FailureReports {
	private readonly streaks = new Map<string, { nextAt: number; gapMs: number }>();
	private wideAt = -Infinity;
	/** The order of events: by chat, its last good read and its last failure every read would meet. */
	private events = 0;
	private readonly lastRead = new Map<string, number>();
	private readonly lastWide = new Map<string, number>();

	constructor(
		private readonly context: ITriggerFunctions,
		private readonly times: ReportTimes,
	) {}

	/**
	 * The failures the activation met (of the chats `keys`), named in one failed execution: each of
	 * those chats starts its streak with it (failing again within reportEveryMs, it is logged); any
	 * other chat is named as soon as it fails.
	 */
	activation(error: Shown, keys: string[], now = Date.now()): void {
		const gapMs = this.times.reportEveryMs;
		for (const key of keys) this.streaks.set(key, { nextAt: now + gapMs, gapMs });
		this.save(error);
	}

	/** A read of `key` failed with `error` (named for the user). */
	failed(key: string, error: Shown, now = Date.now()): void {
		const wide = isPollWide(error.failure);
		const alone = wide && this.failsAlone(key);
		if (wide) this.lastWide.set(key, ++this.events);
		const streak = this.streaks.get(key);
		if (streak && now < streak.nextAt) return this.log(error);
		const { reportEveryMs, reportGapMaxMs } = this.times;
		if (wide && !alone && now - this.wideAt < reportEveryMs) return this.log(error);
		const gapMs = streak ? Math.min(reportGapMaxMs, streak.gapMs * 2) : reportEveryMs;
		this.streaks.set(key, { nextAt: now + gapMs, gapMs });
		if (wide) this.wideAt = now;
		this.save(error);
	}

	/** Whether `key` failed for a cause every read would meet before, and since, others were read and none failed so. */
	private failsAlone(key: string): boolean {
		const since = this.lastWide.get(key);
		if (since === undefined) return false;
		const after = (events: Map<string, number>) =>
			[...events].some(([other, at]) => other !== key && at > since);
		return after(this.lastRead) && !after(this.lastWide);
	}

	/** `key` was read: its streak ends, and its next failure is reported at once. */
	recovered(key: string): void {
		this.lastRead.set(key, ++this.events);
		if (!this.streaks.delete(key)) return;
		this.context.logger.info(`${this.context.getNode().name}: "${key}" is read again`);
	}

	private log(error: Shown): void {
		this.context.logger.warn(`${this.context.getNode().name}: ${error.message}`);
	}

	/** A failed execution (n8n 2.x's saveFailedExecution; the workflow stays active); n8n 1.x has no such call: logged. */
	private save(error: Shown): void {
		if (typeof this.context.saveFailedExecution === 'function') {
			this.context.saveFailedExecution(error);
		} else {
			this.context.logger.error(`${this.context.getNode().name}: ${error.message}`);
		}
	}
}
