import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { ApiClock } from '../../shared/answerClock';
import {
	activatedByPerson,
	failsThePoll,
	PartialBaseline,
	pollError,
	readingOrder,
	readInTurn,
	runPoll,
	triggerSetting,
} from '../../shared/poll';
import { OutputItems } from '../../shared/router';
import { failuresTogether } from './chatFailures';
import { byTime } from './messageCursor';
import { deliveredItems, deliverySettings, releaseHeld } from './messageDelivery';
import type { ChatWatch, MessageWatchState } from './messageReceived';
import { advanceEntry, chatUnreadable, freshLink } from './messageReceived';
import type { MessageFilter, WatchEntry } from './messageSettings';
import { messageSample } from './messageSample';
import { messageFilter, receivedMessage, wanted, watchEntries } from './messageSettings';
/** Adds the wanted messages of one entry to `found`, by message ID (a chat listed twice by ID and by phone reports each message once, with the phone). */
function collect(
	found: Map<string, IDataObject>,
	fresh: IDataObject[],
	phone: string | undefined,
	filter: MessageFilter,
): void {
	for (const message of fresh.filter((m) => wanted(filter, m))) {
		const known = found.get(String(message.id));
		if (!known || (known.phone === null && phone)) {
			found.set(String(message.id), receivedMessage(message, phone));
		}
	}
}

/**
 * One poll over the watched entries, within the poll's time: entries new to the state get a
 * baseline of their own; entries no longer listed leave it; when the time is up, the entry not
 * read is where the next poll starts (`next`), and the others keep their state. With `isolate`,
 * an entry that could not be read keeps its state and is returned in `failures` while the others
 * move on (all failing fails the poll); without, the first failure fails it (the first poll:
 * activation shows the error). `readBefore`: the poll already handed something over (held
 * files), so that a poll whose time ends before any chat is read still succeeds. `listed`: all the
watched entries, when only some are read (their chats' cursors are shared: chatOfPhone.ts).
 * `everyCause` (with `isolate`: the live trigger started by n8n): a chat whose read fails for any
 * cause (a 5xx, a 429, the network) is the chat's failure, named in `failures` and `failed`; only
 * when no chat was read and every failure was one every read would meet (the API down, the time
 * up) does the poll fail.
 */
export async function pollMessages(
	context: IPollFunctions,
	entries: WatchEntry[],
	state: MessageWatchState,
	filter: MessageFilter,
	{
		isolate,
		readBefore = false,
		clock = new ApiClock(),
		listed = entries,
		everyCause = false,
	}: {
		isolate: boolean;
		readBefore?: boolean;
		clock?: ApiClock;
		listed?: WatchEntry[];
		everyCause?: boolean;
	},
): Promise<{
	items: IDataObject[];
	state: MessageWatchState;
	failures: unknown[];
	/** The keys of the entries whose read failed (with `isolate`). */
	failed: string[];
}> {
	const chats: Record<string, ChatWatch> = {};
	for (const entry of listed) {
		if (state.chats[entry.key]) chats[entry.key] = state.chats[entry.key];
	}
	const found = new Map<string, IDataObject>();
	const failures: unknown[] = [];
	const failed: string[] = [];
	const wide: unknown[] = [];
	let read = 0;
	const order = readingOrder(entries, state.next, (entry) => entry.key);
	const [next] = await readInTurn(
		context,
		order,
		async (entry) => {
			const result = await advanceEntry(context, entry, chats, filter, { entries: listed, clock });
			Object.assign(chats, result.moved);
			collect(found, result.fresh, result.phone, filter);
			if (result.gone) failures.push(result.gone);
			read++;
		},
		{
			readBefore,
			everyCause: isolate && everyCause,
			isolate: (entry, error) => {
				const all = read === 0 && failures.length + 1 === entries.length;
				if (!isolate || (all && !everyCause)) throw pollError(context, error);
				if (failsThePoll(error)) wide.push(error);
				failures.push(chatUnreadable(context, entry, error));
				failed.push(entry.key);
			},
		},
	);
	// Nothing read, and only failures every read would meet: the API is down (or too slow).
	if (read === 0 && wide.length && wide.length === failures.length) {
		throw pollError(context, wide[0]);
	}
	const items = [...found.values()].sort((a, b) =>
		byTime(a.message as IDataObject, b.message as IDataObject),
	);
	return { items, state: { chats, ...(next ? { next: next.key } : {}) }, failures, failed };
}

/** The Message Received event: new messages of the watched chats, oldest first. */
export async function pollMessageReceivedEvent(
	context: IPollFunctions,
): Promise<INodeExecutionData[][] | null> {
	const entries = triggerSetting(context, () =>
		watchEntries(context.getNodeParameter('chats', '')),
	);
	const filter = triggerSetting(context, () => messageFilter(context));
	const delivery = triggerSetting(context, () => deliverySettings(context));
	const refresh = async (messageId: string) => await freshLink(context, messageId);
	return await runPoll<MessageWatchState>(context, 'messageReceived', {
		baseline: async () => {
			// A person activating sees what is wrong with the list there and then; n8n starting or
			// changing its leader goes on with the chats it can read, naming the others.
			const person = activatedByPerson(context);
			const first = await pollMessages(context, entries, { chats: {} }, filter, {
				isolate: !person,
			});
			if (person && first.failures.length) throw first.failures[0];
			const together = failuresTogether(context, first.failures);
			return new PartialBaseline(first.state, together ? [together] : []);
		},
		poll: async (state) => {
			// Files the last poll had no time for go first, with the whole of this poll's time.
			const first = await deliveredItems(context, state.pending ?? [], delivery, {
				freshLink: refresh,
				mustDeliverFirst: true,
				fetchFailsPoll: true,
			});
			if (first.undelivered.length) {
				return {
					items: first.output,
					state: { ...state, pending: first.undelivered },
				};
			}
			// Delivering them counts as having read something: the time may end before any chat.
			const polled = await pollMessages(context, entries, state, filter, {
				isolate: true,
				readBefore: (state.pending ?? []).length > 0,
			});
			const { released, held } = releaseHeld(
				polled.items,
				state.held ?? {},
				delivery.pauseSeconds,
				Date.now(),
			);
			const rest = await deliveredItems(context, released, delivery, {
				freshLink: refresh,
				fetchFailsPoll: true,
			});
			const kept = Object.keys(held).length ? { held } : {};
			const pending = rest.undelivered.length ? { pending: rest.undelivered } : {};
			return {
				items: new OutputItems([...first.output.items, ...rest.output.items]),
				state: { ...polled.state, ...kept, ...pending },
				failures: polled.failures,
			};
		},
		sample: async (state) => {
			const sample = await messageSample(context, entries, state, filter);
			return (await deliveredItems(context, sample.length ? [sample] : [], delivery)).output;
		},
	});
}
