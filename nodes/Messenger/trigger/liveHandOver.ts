import type {
	IDataObject,
	INodeExecutionData,
	IPollFunctions,
	ITriggerFunctions,
} from 'n8n-workflow';

import type { PollClock } from '../../shared/pollClock';
import { withPollClock } from '../../shared/pollClock';
import type { OutputItems } from '../../shared/router';
import type { DeliverySettings } from './messageDelivery';
import { deliveredItems } from './messageDelivery';
import type { MessageWatchState } from './messageReceived';
import { freshLink } from './messageReceived';

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

/**
 * Delivers released messages (their files with Download Media) within `clock`'s time: the items
 * to emit, and the state `next` becomes with them; files that did not fit in the time wait in
 * `pending`. A file that cannot be fetched (its host or the API failing too) comes with
 * `mediaError`: one file never holds back the messages after it.
 */
export async function handedOver(
	reader: IPollFunctions,
	delivery: DeliverySettings,
	clock: PollClock,
	released: IDataObject[][],
	next: MessageWatchState,
	mustDeliverFirst: boolean,
): Promise<{ state: MessageWatchState; output: OutputItems }> {
	const delivered = await withPollClock(
		reader,
		clock,
		async () =>
			await deliveredItems(reader, released, delivery, {
				freshLink: async (messageId) => await freshLink(reader, messageId),
				mustDeliverFirst,
			}),
	);
	const state: MessageWatchState = { chats: next.chats };
	if (next.held && Object.keys(next.held).length) state.held = next.held;
	if (delivered.undelivered.length) state.pending = delivered.undelivered;
	return { state, output: delivered.output };
}

/** Starts the execution that reports `output` (none for no items), with its deduplication key. */
export function emitHandOver(context: ITriggerFunctions, output: OutputItems): void {
	if (!output.items.length) return;
	const key = deduplicationKey(context, output.items);
	context.emit([output.items], undefined, undefined, key);
}
