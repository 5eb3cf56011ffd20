import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { runPoll } from '../../shared/poll';
import type { CampaignWatchState, NewestMarker } from './campaigns';
import {
	campaignBaseline,
	newestCampaigns,
	pollCampaignStatuses,
	pollNewCampaigns,
	statusChange,
} from './campaigns';

/** Campaign Status Changed: changes of all or the chosen campaigns, to any or the chosen statuses. */
export async function pollStatusChanges(
	context: IPollFunctions,
): Promise<INodeExecutionData[][] | null> {
	const chosen =
		context.getNodeParameter('campaignScope', 'all') === 'chosen'
			? (context.getNodeParameter('campaignIds', []) as string[]).map(String)
			: undefined;
	const statuses = (context.getNodeParameter('statuses', []) as string[]).map(String);
	const wanted = (change: IDataObject) =>
		(!chosen || chosen.includes(String(change.campaignId))) &&
		(statuses.length === 0 || statuses.includes(String(change.status)));
	return await runPoll<CampaignWatchState>(context, 'campaignStatusChanged', {
		baseline: async () => await campaignBaseline(context),
		poll: async (state) => {
			const { changes, state: next } = await pollCampaignStatuses(context, state);
			return { items: changes.filter(wanted), state: next };
		},
		sample: async (state) => {
			// The newest campaign matching the filters, shaped like a real event.
			const sample = (await newestCampaigns(context))
				.map((campaign) => statusChange(campaign, state?.active[campaign.id] ?? null))
				.find(wanted);
			return sample ? [sample] : [];
		},
	});
}

/** New Campaign: campaigns created since the last poll, oldest first. */
export async function pollCreated(context: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	return await runPoll<{ newest: NewestMarker | null }>(context, 'newCampaign', {
		baseline: async () => ({ newest: (await pollNewCampaigns(context, null)).newest }),
		poll: async (state) => {
			const { created, newest } = await pollNewCampaigns(context, state.newest);
			return { items: created, state: { newest } };
		},
		sample: async () => (await newestCampaigns(context)).slice(0, 1),
	});
}
