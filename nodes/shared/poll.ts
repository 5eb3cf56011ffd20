import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { asNodeError } from './errors';
import { OutputItems } from './router';

/** What one poll found: items to emit (JSON, or items with files) and the state to keep when it succeeded. */
export interface PollResult<S> {
	items: IDataObject[] | OutputItems;
	state: S;
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

/**
 * Runs one poll with the rules every trigger here follows:
 * - the first poll (no state for this key) records a baseline and emits nothing;
 * - a manual "Fetch Test Event" returns a sample and leaves the state untouched;
 * - the state is written only after the whole poll succeeded, so a failed poll changes nothing
 *   and the next one sees the same baseline: nothing is lost or emitted twice;
 * - errors are thrown in manual mode and on the first poll (so activation shows them), and
 *   logged otherwise, so a passing outage does not stop the workflow.
 */
export async function runPoll<S>(
	context: IPollFunctions,
	key: string,
	handlers: {
		baseline: () => Promise<S>;
		poll: (state: S) => Promise<PollResult<S>>;
		sample: (state: S | undefined) => Promise<IDataObject[] | OutputItems>;
	},
): Promise<INodeExecutionData[][] | null> {
	const staticData = context.getWorkflowStaticData('node');
	const stored = staticData.poll as StoredState<S> | undefined;
	const current = stored && stored.key === key ? stored.state : undefined;
	const manual = context.getMode() === 'manual';
	try {
		if (manual) {
			return emitted(context, await handlers.sample(current));
		}
		if (current === undefined) {
			const state = await handlers.baseline();
			staticData.poll = { key, state } as unknown as IDataObject;
			return null;
		}
		const { items, state } = await handlers.poll(current);
		staticData.poll = { key, state } as unknown as IDataObject;
		return emitted(context, items);
	} catch (error) {
		// A trigger has no items, so no item index.
		if (manual || current === undefined) throw asNodeError(context.getNode(), error);
		context.logger.warn(
			`${context.getNode().name}: poll failed, state kept for the next poll: ${(error as Error).message}`,
		);
		return null;
	}
}

/**
 * A trigger setting read and checked before the poll: bad input fails every poll (not only the
 * first), with an error that names the field.
 */
export function triggerSetting<T>(context: IPollFunctions, read: () => T): T {
	try {
		return read();
	} catch (error) {
		throw asNodeError(context.getNode(), error);
	}
}
