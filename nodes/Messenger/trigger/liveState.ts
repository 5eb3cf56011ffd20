import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';

import type { HeldChat } from './messageDelivery';
import type { ChatWatch, MessageWatchState } from './messageReceived';

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

/** A watch as the loop keeps it: a chat the API did not know keeps its cursor, its back-off is the schedule's. */
export function cursorOnly({ missing, ...watch }: ChatWatch): ChatWatch {
	void missing;
	return watch;
}

/** When the first held chat's pause ends (Infinity: none held). */
export function releaseAt(
	held: Record<string, HeldChat> | undefined,
	pauseSeconds: number,
): number {
	let at = Infinity;
	for (const chat of Object.values(held ?? {})) {
		at = Math.min(at, Date.parse(chat.lastFoundAt) + pauseSeconds * 1000);
	}
	return at;
}
