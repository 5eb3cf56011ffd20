import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { numberField } from '../../shared/answerFields';
import { runPoll } from '../../shared/poll';
import { apiRequest, path } from '../../shared/transport';

export type BalanceMetric = 'credit' | 'minutes';

export interface BalanceWatchState {
	/** True while the balance is at or above the threshold: the next drop below it fires. */
	armed: boolean;
}

export async function fetchBalance(context: IPollFunctions): Promise<IDataObject> {
	return (await apiRequest.call(context, 'GET', path`/voice/billing/balance`)) as IDataObject;
}

/** How each measure may be spelled: docs/api.md's name first, then ones APIs commonly use. */
export const METRIC_FIELDS: Record<BalanceMetric, readonly string[]> = {
	credit: ['credit', 'availableCredit', 'available_credit'],
	minutes: ['minutes', 'availableMinutes', 'available_minutes'],
};

export function metricValue(balance: IDataObject, metric: BalanceMetric): number {
	return numberField(balance, METRIC_FIELDS[metric], {
		subject: 'The balance',
		workaround:
			'To watch a field of another name, use a Schedule Trigger, the HTTP Request node with this credential (GET /api/v1/voice/billing/balance) and an If node.',
	});
}

/**
 * Fires once when the value drops below the threshold, then stays quiet until the value is back
 * at or above it (re-armed), so a low balance alerts once, not at every poll.
 */
export function balanceTransition(
	state: BalanceWatchState,
	value: number,
	threshold: number,
): { fire: boolean; state: BalanceWatchState } {
	if (state.armed && value < threshold) return { fire: true, state: { armed: false } };
	if (!state.armed && value >= threshold) return { fire: false, state: { armed: true } };
	return { fire: false, state };
}

export function balanceEvent(
	balance: IDataObject,
	metric: BalanceMetric,
	threshold: number,
): IDataObject {
	const value = metricValue(balance, metric);
	return { metric, value, threshold, belowThreshold: value < threshold, balance };
}

/** Balance Low: fires once when the chosen measure drops below the threshold. */
export async function pollBalance(context: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const metric = context.getNodeParameter('metric', 'credit') as BalanceMetric;
	const threshold = Number(context.getNodeParameter('threshold', 10));
	return await runPoll<BalanceWatchState>(context, `balanceLow:${metric}:${threshold}`, {
		baseline: async () => ({
			armed: metricValue(await fetchBalance(context), metric) >= threshold,
		}),
		poll: async (state) => {
			const balance = await fetchBalance(context);
			const value = metricValue(balance, metric);
			const { fire, state: next } = balanceTransition(state, value, threshold);
			return { items: fire ? [balanceEvent(balance, metric, threshold)] : [], state: next };
		},
		sample: async () => [balanceEvent(await fetchBalance(context), metric, threshold)],
	});
}
