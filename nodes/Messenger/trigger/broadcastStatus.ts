import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { textField } from '../../shared/answerFields';
import { InputError } from '../../shared/errors';
import {
	activatedByPerson,
	PartialBaseline,
	pollError,
	readingOrder,
	readInTurn,
	runPoll,
	triggerSetting,
	unreadable,
} from '../../shared/poll';
import { apiRequest, path } from '../../shared/transport';
import { broadcastMessageIds } from '../actions/broadcast/messageIds';

/** One GET per watched message and poll: keep a poll well under the API's 100 requests a minute. */
export const MAX_WATCHED_MESSAGES = 50;

export const BROADCAST_STATUSES = ['queued', 'sent', 'delivered', 'read', 'failed'] as const;
/** A message in one of these statuses will not change again: it is no longer watched. */
export const FINAL_BROADCAST_STATUSES = ['read', 'failed'];

export interface BroadcastWatchState {
	/** Last status seen of every message still being watched. */
	watching: Record<string, string>;
	/** Messages that reached a final status (kept only while they are still in the parameter). */
	finished: string[];
	/** The message the next poll asks about first: the last poll's time ended before it. */
	next?: string;
}

/** A watched broadcast message the API does not know: someone has to change the trigger's list (an InputError: configuration-invalid). */
function messageGone(id: string): InputError {
	return new InputError(
		`The watched broadcast message "${id}" was not found`,
		'Correct the ID, or remove it from Broadcast Message IDs. Found gone after activation, it is reported once and no longer asked for while it stays there.',
	);
}

export interface BroadcastStatusChange extends IDataObject {
	messageId: string;
	previousStatus: string;
	status: string;
	message: IDataObject;
}

/** The current status of one broadcast message, or undefined when the API does not know it. */
async function fetchMessage(context: IPollFunctions, id: string): Promise<IDataObject | undefined> {
	return (await apiRequest.call(context, 'GET', path`/messenger/broadcast/messages/${id}`, {
		errorContext: { resource: 'Broadcast message', id },
		missingAsUndefined: true,
	})) as IDataObject | undefined;
}

/** A message's status; without one the poll fails, naming the field. */
function statusOf(message: IDataObject): string {
	return textField(message, ['status'], {
		subject: 'The broadcast message',
		workaround:
			'If your API names it differently, run Messenger → Broadcast → Get Status on a Schedule Trigger instead.',
	});
}

/**
 * One poll: a GET per message still watched (one request a message; the API has no list of
 * broadcast messages), while the poll's time allows: the message not asked about is where the
 * next poll starts, the others keep their last status. Ids new to the parameter are recorded
 * without an event, as a baseline; unknown ids are returned as `failures` and dropped; final
 * messages stop being watched. With `isolate`, a message that could not be read for a reason of
 * its own (403, an answer without a status) keeps its state and is named in `failures` while the
 * others go on (all of them failing fails the poll); without, it fails the poll. An outage (429,
 * 5xx, a timeout) fails the poll whatever `isolate` says.
 */
export async function pollBroadcastStatuses(
	context: IPollFunctions,
	ids: string[],
	state: BroadcastWatchState,
	{ isolate }: { isolate: boolean },
): Promise<{ changes: BroadcastStatusChange[]; state: BroadcastWatchState; failures: unknown[] }> {
	const finished = state.finished.filter((id) => ids.includes(id));
	const watching: Record<string, string> = {};
	for (const id of ids) {
		if (state.watching[id] !== undefined) watching[id] = state.watching[id];
	}
	const changes: BroadcastStatusChange[] = [];
	const failures: unknown[] = [];
	let read = 0;
	const order = readingOrder(ids, state.next, (id) => id).filter((id) => !finished.includes(id));
	const [next] = await readInTurn(
		context,
		order,
		async (id) => {
			const message = await fetchMessage(context, id);
			if (!message) {
				failures.push(messageGone(id));
				finished.push(id);
				delete watching[id];
				read++;
				return;
			}
			const status = statusOf(message);
			const previousStatus = state.watching[id];
			if (previousStatus !== undefined && previousStatus !== status) {
				changes.push({ messageId: id, previousStatus, status, message });
			}
			if (FINAL_BROADCAST_STATUSES.includes(status)) {
				finished.push(id);
				delete watching[id];
			} else watching[id] = status;
			read++;
		},
		{
			isolate: (id, error) => {
				if (!isolate || (read === 0 && failures.length + 1 === order.length)) {
					throw pollError(context, error);
				}
				failures.push(
					unreadable(
						context,
						`The watched broadcast message "${id}"`,
						error,
						'The other messages are reported as usual; this one keeps its last status and is asked about again at the next poll.',
					),
				);
			},
		},
	);
	return { changes, state: { watching, finished, ...(next ? { next } : {}) }, failures };
}

/**
 * First poll: the status of every message, recorded without events. An unknown ID refuses a
 * person's activation, naming it; at n8n's start-up or a leadership change (or when n8n does not
 * say) it is a failed execution of its own, and the other messages are watched.
 */
export async function broadcastBaseline(
	context: IPollFunctions,
	ids: string[],
): Promise<PartialBaseline<BroadcastWatchState>> {
	const person = activatedByPerson(context);
	const { state, failures } = await pollBroadcastStatuses(
		context,
		ids,
		{ watching: {}, finished: [] },
		{ isolate: !person },
	);
	if (person && failures.length) throw failures[0];
	return new PartialBaseline(state, failures);
}

/** A real sample for Fetch Test Event: the first message's current status. */
export async function broadcastSample(
	context: IPollFunctions,
	ids: string[],
	state: BroadcastWatchState | undefined,
): Promise<IDataObject[]> {
	for (const id of ids.slice(0, 5)) {
		const message = await fetchMessage(context, id);
		if (message) {
			return [
				{
					messageId: id,
					previousStatus: state?.watching[id] ?? null,
					status: statusOf(message),
					message,
				},
			];
		}
	}
	return [];
}

/** The Broadcast Message Status Changed event: the watched IDs' changes, filtered by status. */
export async function pollBroadcastStatusEvent(
	context: IPollFunctions,
): Promise<INodeExecutionData[][] | null> {
	const ids = triggerSetting(context, () => [
		...new Set(
			broadcastMessageIds(
				context.getNodeParameter('messageIds', ''),
				MAX_WATCHED_MESSAGES,
				'Use Broadcast → Get Status on a schedule to follow more messages.',
			),
		),
	]);
	const statuses = (context.getNodeParameter('statuses', []) as string[]).map(String);
	return await runPoll<BroadcastWatchState>(context, 'broadcastStatusChanged', {
		baseline: async () => await broadcastBaseline(context, ids),
		poll: async (state) => {
			const polled = await pollBroadcastStatuses(context, ids, state, { isolate: true });
			const wanted = polled.changes.filter(
				(change) => statuses.length === 0 || statuses.includes(change.status),
			);
			return { items: wanted, state: polled.state, failures: polled.failures };
		},
		sample: async (state) => await broadcastSample(context, ids, state),
	});
}
