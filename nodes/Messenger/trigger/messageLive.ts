import type { IPollFunctions, ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ApiClock } from '../../shared/answerClock';
import { keepToBudget } from '../../shared/pacing';
import { activatedByPerson, pollError, triggerSetting } from '../../shared/poll';
import { PollClock, withPollClock } from '../../shared/pollClock';
import { credentialSettings } from '../../shared/transport';
import type { LiveSettings } from './liveLoop';
import { LIVE_LOOP, LiveLoop, saveState, storedState } from './liveLoop';
import { readerOf } from './liveReader';
import { chatCursorOf, entriesOfChat } from './chatOfPhone';
import { deliveredItems, deliverySettings } from './messageDelivery';
import { pollMessages } from './messagePoll';
import type { MessageWatchState } from './messageReceived';
import { messageSample } from './messageSample';
import { messageFilter, watchEntries } from './messageSettings';

export { LIVE_LOOP } from './liveLoop';

/**
 * The chats of the state (those still listed) with a baseline for each listed chat new to it,
 * read at activation so that n8n saves them with it: a baseline taken later would be saved only
 * with the next execution, and a restart before it would take another and lose what came between.
 */
async function startingState(
	reader: IPollFunctions,
	settings: LiveSettings,
	stored: MessageWatchState | undefined,
): Promise<{ state: MessageWatchState; failures: unknown[]; failed: string[]; read: number }> {
	const chats: MessageWatchState['chats'] = {};
	for (const entry of settings.entries) {
		const watch = stored?.chats[entry.key];
		if (watch) chats[entry.key] = watch;
	}
	const fresh = settings.entries.filter((entry) => !chats[entry.key]);
	const kept = { ...(stored?.held ? { held: stored.held } : {}) };
	const pending = stored?.pending?.length ? { pending: stored.pending } : {};
	if (!fresh.length) {
		return { state: { chats, ...kept, ...pending }, failures: [], failed: [], read: 0 };
	}
	const person = activatedByPerson(reader);
	const began = Date.now();
	const clock = new ApiClock();
	const first = await withPollClock(
		reader,
		new PollClock(LIVE_LOOP.activationBudgetMs),
		async () =>
			await pollMessages(reader, fresh, { chats }, settings.filter, {
				// n8n starting or changing its leader: a chat that fails (for whatever cause) is that
				// chat's failure; the activation fails only when the API answers none of them.
				isolate: !person,
				everyCause: true,
				clock,
				listed: settings.entries,
			}),
	);
	if (person && first.failures.length) throw first.failures[0];
	// A chat the activation's time (or a failure) left unread counts its messages from the moment
	// watching began, as a phone without a chat does: a baseline taken at its first read would
	// pass over what came in between (a chat whose read failed too: the loop reads it after its
	// own back-off). That moment by the API's clock (its answers' Date: the
	// messages' createdAt is stamped by it), the earliest it can have been. A chat ID whose chat a
	// watched phone was matched to has that one's cursor (one chat, one cursor: chatOfPhone.ts).
	Object.assign(chats, first.state.chats);
	for (const entry of fresh) {
		const group = entry.chatId && entriesOfChat(settings.entries, chats, entry.chatId, entry);
		chats[entry.key] ??= (group && chatCursorOf(group, chats, entry)) || {
			at: clock.since(began),
			ids: [],
		};
	}
	return {
		state: { chats, ...kept, ...pending },
		failures: first.failures,
		failed: first.failed,
		read: fresh.length,
	};
}

/** Fetch Test Event: the latest wanted message of the watched chats; nothing moves. */
async function emitSample(
	context: ITriggerFunctions,
	reader: IPollFunctions,
	settings: LiveSettings,
): Promise<void> {
	const sample = await messageSample(
		reader,
		settings.entries,
		storedState(context),
		settings.filter,
	);
	const { output } = await deliveredItems(reader, sample.length ? [sample] : [], settings.delivery);
	if (!output.items.length) {
		throw new NodeOperationError(context.getNode(), 'No message in the watched chats yet', {
			description: 'Write to one of the watched chats and fetch the test event again.',
		});
	}
	context.emit([output.items]);
}

/**
 * Starts Message Received as a long-running trigger (n8n runs `trigger()` on the instance that
 * leads and awaits `closeFunction` at deactivation, update and shutdown).
 */
export async function startMessageLive(context: ITriggerFunctions): Promise<ITriggerResponse> {
	const live = { stopped: false };
	// Fired by closeFunction: every wait of a request (turn, pause, retry, answer) ends at once.
	const stopping = new AbortController();
	const reader = readerOf(context, live, stopping.signal);
	const settings: LiveSettings = {
		entries: triggerSetting(reader, () => watchEntries(context.getNodeParameter('chats', ''))),
		filter: triggerSetting(reader, () => messageFilter(reader)),
		delivery: triggerSetting(reader, () => deliverySettings(reader)),
	};
	if (context.getMode() === 'manual') {
		// n8n hands the test its emit after trigger() returns: emit only from here.
		return { manualTriggerFunction: async () => await emitSample(context, reader, settings) };
	}
	const credential = await credentialSettings(context);
	const perMinute =
		credential.perMinute > 0
			? Math.min(credential.livePerMinute, credential.perMinute)
			: credential.livePerMinute;
	const budget = { key: `live|${credential.pacingKey}`, perMinute };
	keepToBudget(reader, budget);
	let start: Awaited<ReturnType<typeof startingState>>;
	try {
		start = await startingState(reader, settings, storedState(context));
	} catch (error) {
		throw pollError(reader, error);
	}
	// Saved by n8n at the end of the activation.
	saveState(context, start.state);
	const loop = new LiveLoop(context, reader, settings, budget, start, live);
	// n8n started or changed its leader: the chats that could not be read are named, the rest run.
	loop.reportActivation(start.failures);
	const running = loop.run();
	return {
		closeFunction: async () => {
			loop.stop();
			stopping.abort();
			await running;
		},
	};
}
