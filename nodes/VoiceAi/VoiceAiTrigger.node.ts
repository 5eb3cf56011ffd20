import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeExecutionData,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { runPoll } from '../shared/poll';
import { apiRequest, MAX_PAGE_SIZE, path, toListPage } from '../shared/transport';
import { campaignStatusOptions } from './actions/common';
import type { BalanceMetric, BalanceWatchState } from './trigger/balance';
import { balanceEvent, balanceTransition, fetchBalance, metricValue } from './trigger/balance';
import type { CampaignWatchState, NewestMarker } from './trigger/campaigns';
import {
	campaignBaseline,
	campaignsCreatedSince,
	pollCampaignStatuses,
	pollNewCampaigns,
} from './trigger/campaigns';

export class VoiceAiTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Voice AI Trigger',
		name: 'voiceAiTrigger',
		icon: { light: 'file:voiceAi.svg', dark: 'file:voiceAi.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["event"] }}',
		description:
			'Voice AI agents and call campaigns: start a workflow when a campaign changes status or is created, or the balance runs low',
		defaults: { name: 'Voice AI Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'voiceMessagingApi', required: true }],
		properties: [
			{
				displayName:
					'The API has no webhooks, so this trigger asks it for changes at every poll (how often: Poll Times). Its first poll after activation only records the current state.',
				name: 'pollingNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				noDataExpression: true,
				default: 'campaignStatusChanged',
				options: [
					{
						name: 'Campaign Status Changed',
						value: 'campaignStatusChanged',
						description: 'A campaign moved to another status, e.g. from in progress to completed',
					},
					{
						name: 'New Campaign',
						value: 'newCampaign',
						description: 'A campaign was created',
					},
					{
						name: 'Balance Low',
						value: 'balanceLow',
						description:
							'Available credit or minutes dropped below a threshold (fires once until it recovers)',
					},
				],
			},
			{
				displayName: 'Campaigns',
				name: 'campaignScope',
				type: 'options',
				default: 'all',
				displayOptions: { show: { event: ['campaignStatusChanged'] } },
				options: [
					{ name: 'All Campaigns', value: 'all' },
					{ name: 'Chosen Campaigns', value: 'chosen' },
				],
			},
			{
				displayName: 'Campaign Names or IDs',
				name: 'campaignIds',
				type: 'multiOptions',
				typeOptions: { loadOptionsMethod: 'getCampaigns' },
				default: [],
				description:
					'The campaigns to watch. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
				displayOptions: { show: { event: ['campaignStatusChanged'], campaignScope: ['chosen'] } },
			},
			{
				displayName: 'Only These Statuses',
				name: 'statuses',
				type: 'multiOptions',
				default: [],
				options: campaignStatusOptions,
				description:
					'Fire only when a campaign reaches one of these statuses; none chosen means any status',
				displayOptions: { show: { event: ['campaignStatusChanged'] } },
			},
			{
				displayName: 'Measure',
				name: 'metric',
				type: 'options',
				default: 'credit',
				displayOptions: { show: { event: ['balanceLow'] } },
				options: [
					{ name: 'Available Credit', value: 'credit' },
					{ name: 'Available Minutes', value: 'minutes' },
				],
			},
			{
				displayName: 'Threshold',
				name: 'threshold',
				type: 'number',
				default: 10,
				typeOptions: { minValue: 0 },
				description: 'Fire when the measure drops below this value',
				displayOptions: { show: { event: ['balanceLow'] } },
			},
		],
	};

	methods = {
		loadOptions: {
			async getCampaigns(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
				const response = await apiRequest.call(this, 'GET', path`/voice/campaigns`, {
					qs: { page: 1, limit: MAX_PAGE_SIZE, sort: 'desc' },
				});
				return toListPage(response).items.map((campaign) => ({
					name: `${String(campaign.name ?? campaign.id)} (${String(campaign.status ?? '')})`,
					value: String(campaign.id),
				}));
			},
		},
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const event = this.getNodeParameter('event') as string;
		if (event === 'campaignStatusChanged') return await pollStatusChanges(this);
		if (event === 'newCampaign') return await pollCreated(this);
		if (event === 'balanceLow') return await pollBalance(this);
		throw new NodeOperationError(this.getNode(), `Unknown event "${event}"`);
	}
}

async function pollStatusChanges(context: IPollFunctions): Promise<INodeExecutionData[][] | null> {
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
			const { newestOnFirstPage } = await campaignsCreatedSince(context, null, {
				firstPageOnly: true,
			});
			const sample = newestOnFirstPage
				.map((campaign) => ({
					campaignId: campaign.id,
					campaignName: typeof campaign.name === 'string' ? campaign.name : null,
					previousStatus: state?.active[campaign.id] ?? null,
					status: campaign.status,
					campaign,
				}))
				.find(wanted);
			return sample ? [sample] : [];
		},
	});
}

async function pollCreated(context: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	return await runPoll<{ newest: NewestMarker | null }>(context, 'newCampaign', {
		baseline: async () => ({ newest: (await pollNewCampaigns(context, null)).newest }),
		poll: async (state) => {
			const { created, newest } = await pollNewCampaigns(context, state.newest);
			return { items: created, state: { newest } };
		},
		sample: async () =>
			(await campaignsCreatedSince(context, null, { firstPageOnly: true })).newestOnFirstPage.slice(
				0,
				1,
			),
	});
}

async function pollBalance(context: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const metric = context.getNodeParameter('metric', 'credit') as BalanceMetric;
	const threshold = Number(context.getNodeParameter('threshold', 10));
	return await runPoll<BalanceWatchState>(context, `balanceLow:${metric}:${threshold}`, {
		baseline: async () => ({
			armed: metricValue(await fetchBalance(context), metric) >= threshold,
		}),
		poll: async (state) => {
			const balance = await fetchBalance(context);
			const { fire, state: next } = balanceTransition(
				state,
				metricValue(balance, metric),
				threshold,
			);
			return { items: fire ? [balanceEvent(balance, metric, threshold)] : [], state: next };
		},
		sample: async () => [balanceEvent(await fetchBalance(context), metric, threshold)],
	});
}
