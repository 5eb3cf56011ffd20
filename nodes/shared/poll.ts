import type {
	Failure,
	IDataObject,
	INodeExecutionData,
	IPollFunctions,
	NodeApiError,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import {
	asNodeError,
	describeFailure,
	failureCause,
	InputError,
	UnexpectedAnswerError,
} from './errors';
import {
	ownPollBudgetMs,
	PollClock,
	pollClockOf,
	PollTimeUp,
	shortestPollInterval,
	withPollClock,
} from './pollClock';
import { OutputItems } from './router';

/**
 * What one poll found: items to emit (JSON, or items with files) and the state to keep when it
 * succeeded; `failures`: what could not be read while the rest could (a watched chat that is gone,
 * one that failed), each reported as a failed execution of its own.
 */
export interface PollResult<S> {
	items: IDataObject[] | OutputItems;
	state: S;
	failures?: unknown[];
}

/**
 * A baseline that recorded what it could read and names what it could not (a watched ID the API
 * does not know at n8n's start-up): each failure is a failed execution of its own, and the rest
 * is watched from now on.
 */
export class PartialBaseline<S> {
	constructor(
		readonly state: S,
		readonly failures: unknown[],
	) {}
}

/** Items as n8n emits them: null for none. */
function emitted(
	context: IPollFunctions,
	items: IDataObject[] | OutputItems,
): INodeExecutionData[][] | null {
	if (items instanceof OutputItems) return items.items.length ? [items.items] : null;
	return items.length ? [context.helpers.returnJsonArray(items)] : null;
}

/**
 * A poll's state, kept as plain JSON in the node's static data under `key`. A different key
 * (another event or other settings) starts from a new baseline instead of reading stale state.
 */
interface StoredState<S> {
	key: string;
	state: S;
}

/** Polls running now in this process, by workflow and node: a node's next poll waits for none. */
const running = new Set<string>();

/** Whether a poll of this node is running in this process (tests). */
export function isPolling(context: IPollFunctions): boolean {
	return running.has(pollKey(context));
}

function pollKey(context: IPollFunctions): string {
	const node = context.getNode();
	return `${String(context.getWorkflow().id ?? '')}\u0000${node.id ?? node.name}`;
}

/**
 * The time this poll may take: the shorter of n8n's budget (`getPollBudgetMs`, n8n 2.41 and
 * later) and our own below the poll interval (pollClock.ts).
 */
export function pollBudgetMs(context: IPollFunctions): number {
	let pollTimes: unknown;
	try {
		pollTimes = context.getNodeParameter('pollTimes', {});
	} catch {
		// A node without Poll Times (a test double): the shortest interval n8n allows.
	}
	const own = ownPollBudgetMs(shortestPollInterval(pollTimes));
	const offered =
		typeof context.getPollBudgetMs === 'function' ? Number(context.getPollBudgetMs()) : NaN;
	return Number.isFinite(offered) && offered > 0 ? Math.min(own, offered) : own;
}

/** Why a poll failed, in n8n's words (its scheduler reads `failure`), where the error says none. */
function declaredFailure(error: unknown): Failure | undefined {
	const declared = (error as { failure?: Failure } | undefined)?.failure;
	if (declared) return declared;
	if (error instanceof UnexpectedAnswerError) return { cause: 'node-defect' };
	if (error instanceof InputError) return { cause: 'configuration-invalid' };
	return undefined;
}

/** Causes that belong to the API or the credential, not to one watched thing: a wait or a person helps every read alike. */
const POLL_WIDE_CAUSES: ReadonlySet<string> = new Set([
	'rate-limited',
	'quota-exhausted',
	'temporarily-unavailable',
	'credential-invalid',
]);

/** Whether a declared cause is the poll's (see failsThePoll), not the watched thing's. */
export function isPollWide(failure: Failure | undefined): boolean {
	return failure !== undefined && POLL_WIDE_CAUSES.has(failure.cause);
}

/**
 * Whether a failed read is the poll's, not the watched thing's: the poll's time, a 429, a 5xx, a
 * timeout, a network error, a credential refused. Reading stops and the poll fails once with that
 * cause (n8n's durable scheduler backs off), its state as it was. A 403, a 404, or an answer the
 * node cannot read belongs to the campaign, chat or message read, which is named on its own.
 */
export function failsThePoll(error: unknown): boolean {
	if (error instanceof PollTimeUp) return true;
	if (error instanceof InputError) return false;
	return isPollWide(declaredFailure(error) ?? failureCause(describeFailure(error)));
}

/**
 * Activation modes in which a person is activating the workflow: publish, activate, a manual run.
 * Not 'update': n8n 2.41's durable scheduler runs every scheduled poll in it (a baseline recorded
 * again there would stop a running workflow), and a person's save of an active workflow gets the
 * failed execution instead of a refusal.
 */
const PERSON_ACTIVATIONS: ReadonlySet<string> = new Set(['activate', 'create', 'manual']);

/**
 * Whether a person is activating the workflow now, so that a watched ID the API does not know
 * may be refused there and then (an activation error naming it). At n8n's start-up ('init'), a
 * leadership change, a scheduled poll ('update'), or when n8n does not say, the workflow is already running: the unknown ID is
 * a failed execution of its own, and the others go on.
 */
export function activatedByPerson(context: IPollFunctions): boolean {
	const mode =
		typeof context.getActivationMode === 'function' ? context.getActivationMode() : undefined;
	return typeof mode === 'string' && PERSON_ACTIVATIONS.has(mode);
}

/** The error a poll throws: n8n's error for the node, with the cause n8n's scheduler reads. */
export function pollError(
	context: IPollFunctions,
	error: unknown,
): NodeApiError | NodeOperationError {
	const shown = asNodeError(context.getNode(), error);
	const failure = declaredFailure(error);
	if (failure && !shown.failure) shown.failure = failure;
	return shown;
}

/**
 * A failure of one watched thing (`what`: "The watched chat "cht_1"", …) named for a failed
 * execution of its own, keeping its cause; `goesOn` says what happens to it next.
 */
export function unreadable(
	context: IPollFunctions,
	what: string,
	error: unknown,
	goesOn: string,
): NodeOperationError {
	const shown = pollError(context, error);
	const message = `${what} could not be read`;
	const named = new NodeOperationError(context.getNode(), message, {
		description: [shown.message, shown.description, goesOn].filter(Boolean).join('\n'),
	});
	// The message is ours and names the thing (perhaps with the ID given): n8n shows it as it is.
	named.message = message;
	if (shown.failure) named.failure = shown.failure;
	return named;
}

/**
 * A failure of one watched thing in a poll that read the others: a failed execution of its own
 * (the Error Workflow runs) while the poll hands over what it read. n8n runs what a poll throws
 * this way; a poll cannot both throw and emit, so the failure goes the same way by hand.
 */
function reportPartialFailure(context: IPollFunctions, error: unknown): void {
	const shown = pollError(context, error);
	if (typeof context.__emitError === 'function') {
		context.__emitError(shown);
		return;
	}
	context.logger.warn(`${context.getNode().name}: ${shown.message}`);
}

/**
 * Runs one poll with the rules every trigger here follows:
 * - one poll of a node at a time in this process: a poll that starts while the last one still
 *   runs returns nothing and changes nothing (n8n starts polls on time whatever the last does);
 * - every poll keeps to its time (pollBudgetMs): requests wait at most what is left of it, and
 *   the handlers stop reading when it is up (PollTimeUp), hand over what they read and record
 *   where to go on;
 * - the first poll (no state for this key) records a baseline and emits nothing; a baseline that
 *   could not read everything (PartialBaseline) reports what it could not, each on its own;
 * - a manual "Fetch Test Event" returns a sample and leaves the state untouched;
 * - the state is written only after the whole poll succeeded, so a failed poll changes nothing
 *   and the next one sees the same state: nothing is lost or emitted twice;
 * - a poll that fails throws, with its cause (`failure`): n8n records a failed execution and runs
 *   the Error Workflow (the first poll's error shows at activation); a failure of one watched
 *   thing while the others were read is a failed execution of its own (reportPartialFailure).
 */
export async function runPoll<S>(
	context: IPollFunctions,
	key: string,
	handlers: {
		baseline: () => Promise<S | PartialBaseline<S>>;
		poll: (state: S) => Promise<PollResult<S>>;
		sample: (state: S | undefined) => Promise<IDataObject[] | OutputItems>;
	},
): Promise<INodeExecutionData[][] | null> {
	const staticData = context.getWorkflowStaticData('node');
	const stored = staticData.poll as StoredState<S> | undefined;
	const current = stored && stored.key === key ? stored.state : undefined;
	try {
		if (context.getMode() === 'manual') {
			return emitted(context, await handlers.sample(current));
		}
		const guard = pollKey(context);
		if (running.has(guard)) {
			context.logger.info(
				`${context.getNode().name}: the previous poll is still running; this one is skipped`,
			);
			return null;
		}
		running.add(guard);
		try {
			const clock = new PollClock(pollBudgetMs(context));
			return await withPollClock(context, clock, async () => {
				if (current === undefined) {
					const first = await handlers.baseline();
					const { state, failures } =
						first instanceof PartialBaseline ? first : { state: first, failures: [] };
					staticData.poll = { key, state } as unknown as IDataObject;
					for (const failure of failures) reportPartialFailure(context, failure);
					return null;
				}
				const { items, state, failures = [] } = await handlers.poll(current);
				staticData.poll = { key, state } as unknown as IDataObject;
				for (const failure of failures) reportPartialFailure(context, failure);
				return emitted(context, items);
			});
		} finally {
			running.delete(guard);
		}
	} catch (error) {
		throw pollError(context, error);
	}
}

/**
 * For a handler that reads in steps: `error` stopped a step. When the poll's time ran out after
 * something was read, the handler hands over what it read and records where to go on; any other
 * error (or a poll that read nothing in its time) is thrown, and the poll fails.
 */
export function rethrowUnlessTimeUp(error: unknown, readSomething: boolean): void {
	if (!(error instanceof PollTimeUp) || !readSomething) throw error;
}

/** Whether a handler that reads in steps may start another: the poll's time allows one more. */
export function timeForAnotherRead(context: IPollFunctions): boolean {
	return pollClockOf(context)?.hasRoom() ?? true;
}

/** `items` in the order a poll reads them: from the one the last poll stopped at (`next`) on. */
export function readingOrder<T>(items: T[], next: string | undefined, keyOf: (item: T) => string) {
	const at = next === undefined ? -1 : items.findIndex((item) => keyOf(item) === next);
	return at > 0 ? [...items.slice(at), ...items.slice(0, at)] : items;
}

/**
 * Reads `items` one after another while the poll's time allows. When it is up (no room for
 * another read, or a read cut off by it), reading stops: the items not read are returned, in
 * order (the first is where the next poll starts). A poll that read nothing in its time fails,
 * unless `readBefore` (it read something before these). With `isolate`, a read that fails for a
 * reason of its item's own (not `failsThePoll`) is handed to it and the others go on; any other
 * failure fails the poll. With `everyCause` as well, every failure but the poll's time is handed
 * to `isolate` and counts as a read done (a time-up after it leaves the rest unread): the caller
 * decides whether the failures together fail it.
 */
export async function readInTurn<T>(
	context: IPollFunctions,
	items: T[],
	read: (item: T) => Promise<void>,
	options: {
		readBefore?: boolean;
		isolate?: (item: T, error: unknown) => void;
		everyCause?: boolean;
	} = {},
): Promise<T[]> {
	let readSomething = options.readBefore ?? false;
	for (const [index, item] of items.entries()) {
		if (readSomething && !timeForAnotherRead(context)) return items.slice(index);
		let failed: unknown;
		try {
			await read(item);
			readSomething = true;
			continue;
		} catch (error) {
			failed = error;
		}
		const own = options.everyCause ? !(failed instanceof PollTimeUp) : !failsThePoll(failed);
		if (!options.isolate || !own) {
			rethrowUnlessTimeUp(failed, readSomething);
			return items.slice(index);
		}
		options.isolate(item, failed);
		if (options.everyCause) readSomething = true;
	}
	return [];
}

/**
 * A trigger setting read and checked before the poll: bad input fails every poll (not only the
 * first), with an error that names the field.
 */
export function triggerSetting<T>(context: IPollFunctions, read: () => T): T {
	try {
		return read();
	} catch (error) {
		throw pollError(context, error);
	}
}
