import type { Failure, IDataObject } from 'n8n-workflow';

/**
 * The time a poll may take. n8n 2.41's durable scheduler abandons a poll after its timeout (45 s
 * by default) and offers the rest as `getPollBudgetMs()`; n8n's default scheduler starts the next
 * poll on time whatever the last one does. A poll keeps to the shorter of n8n's budget and ours,
 * which stays below the shortest poll interval. docs/triggers.md states these numbers.
 */
export const POLL_BUDGET = {
	/** The longest poll of our own, whatever the interval (below the durable scheduler's 45 s). */
	maxMs: 40_000,
	/** Share of the shortest poll interval a poll may take. */
	intervalShare: 0.75,
	/** Kept free at the end, to hand over what was read (a tenth of a shorter budget). */
	reserveMs: 1_500,
	/**
	 * A read is started only with at least this much left (a twentieth of a shorter budget), or
	 * as long as the slowest read so far took.
	 */
	minRoomMs: 1_000,
};

/** Seconds between polls for each of n8n's Poll Times modes; custom crons are read below. */
const MODE_SECONDS: Record<string, number> = {
	everyMinute: 60,
	everyHour: 3_600,
	everyDay: 86_400,
	everyWeek: 604_800,
	everyMonth: 2_419_200,
};

/** The shortest interval a custom cron gives, as far as its seconds and minutes fields tell. */
function cronSeconds(expression: unknown): number {
	const fields = String(expression ?? '')
		.trim()
		.split(/\s+/);
	const [seconds, minutes] = fields.length >= 6 ? fields : ['0', ...fields];
	const step = (field: string | undefined, unit: number, whole: number) => {
		if (field === undefined || field === '*') return unit;
		const every = /^\*\/(\d+)$/.exec(field);
		if (every) return Math.max(1, Number(every[1])) * unit;
		if (field.includes(',') || field.includes('-')) return unit;
		return whole;
	};
	const bySeconds = step(seconds, 1, 60);
	return bySeconds < 60 ? bySeconds : step(minutes, 60, 3_600);
}

/** The shortest interval, in seconds, of a polling node's Poll Times (60 when it cannot tell). */
export function shortestPollInterval(pollTimes: unknown): number {
	const items = ((pollTimes as IDataObject | undefined)?.item ?? []) as IDataObject[];
	const intervals = items.map((item) => {
		if (item.mode === 'custom') return cronSeconds(item.cronExpression);
		if (item.mode === 'everyX') {
			const value = Math.max(1, Number(item.value) || 1);
			return item.unit === 'hours' ? value * 3_600 : value * 60;
		}
		return MODE_SECONDS[String(item.mode)] ?? 60;
	});
	return intervals.length ? Math.min(...intervals) : 60;
}

/** Our budget for a poll: a share of the interval, never more than POLL_BUDGET.maxMs. */
export function ownPollBudgetMs(intervalSeconds: number): number {
	return Math.min(POLL_BUDGET.maxMs, intervalSeconds * 1000 * POLL_BUDGET.intervalShare);
}

/** Why a poll stopped early: its time is up. Reading stops; what was read is handed over. */
export class PollTimeUp extends Error {
	override name = 'PollTimeUp';
	constructor(
		message: string,
		readonly failure: Failure,
		readonly description?: string,
	) {
		super(message);
	}
}

/** One poll's time: when it ends and how long its reads take. */
export class PollClock {
	readonly startedAt: number;
	/** No read past this moment: the budget minus the reserve. */
	readonly endsAt: number;
	private readonly minRoomMs: number;
	private slowestMs = 0;

	/**
	 * `stopSignal`: ends the poll's reading early (a live trigger stopped): its requests and retry
	 * waits are cut short.
	 */
	constructor(
		readonly budgetMs: number,
		private readonly now: () => number = Date.now,
		readonly stopSignal?: AbortSignal,
	) {
		this.startedAt = now();
		// Whole milliseconds: a request's time limit is what is left (AbortSignal.timeout takes no fraction).
		this.endsAt = Math.floor(
			this.startedAt + budgetMs - Math.min(POLL_BUDGET.reserveMs, budgetMs / 10),
		);
		this.minRoomMs = Math.min(POLL_BUDGET.minRoomMs, budgetMs / 20);
	}

	remainingMs(): number {
		return Math.max(0, this.endsAt - this.now());
	}

	/** Whether another read fits: at least the slowest one so far, and never less than the minimum. */
	hasRoom(extraMs = 0): boolean {
		return this.remainingMs() - extraMs > Math.max(this.slowestMs, this.minRoomMs);
	}

	/** Records how long a read took (the next ones are expected to take as long). */
	noteRead(ms: number): void {
		this.slowestMs = Math.max(this.slowestMs, ms);
	}

	/** The latest moment a request may start: it needs at least as long as the slowest so far. */
	latestStart(): number {
		return this.endsAt - Math.max(this.slowestMs, this.minRoomMs);
	}

	/** The error that stops the poll: `what` is what it was waiting for, `request` which one. */
	timeUp(what: string, failure: Failure, request?: { method: string; path: string }): PollTimeUp {
		const seconds = Math.round(this.budgetMs / 100) / 10;
		return new PollTimeUp(
			`The poll stopped at the end of its time budget (${seconds} s) while ${what}`,
			failure,
			[
				request ? `${request.method} ${request.path}` : '',
				'A poll stops in time so that the next one can start, and the next poll goes on from where this one stopped. If every poll stops this way, the API answers slowly or not at all.',
			]
				.filter(Boolean)
				.join('\n'),
		);
	}

	/** No turn left within the credential's Requests per Minute before the poll's time is up. */
	turnTimeUp(request: { method: string; path: string }): PollTimeUp {
		return this.timeUp(
			"waiting for its turn within the credential's Requests per Minute",
			{ cause: 'rate-limited' },
			request,
		);
	}

	/** The API did not answer within what was left of the poll's time. */
	answerTimeUp(request: { method: string; path: string }): PollTimeUp {
		return this.timeUp(
			'waiting for the API to answer',
			{ cause: 'temporarily-unavailable' },
			request,
		);
	}
}

/** The clock of the poll a context is running, if it is running one. */
const clocks = new WeakMap<object, PollClock>();

export function pollClockOf(context: object): PollClock | undefined {
	return clocks.get(context);
}

/** Runs `work` with `clock` as the context's poll clock (requests made through it keep to it). */
export async function withPollClock<T>(
	context: object,
	clock: PollClock,
	work: () => Promise<T>,
): Promise<T> {
	clocks.set(context, clock);
	try {
		return await work();
	} finally {
		if (clocks.get(context) === clock) clocks.delete(context);
	}
}
