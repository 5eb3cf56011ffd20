import type {
	ILoadOptionsFunctions,
	INodeExecutionData,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { campaignStatusOptions } from './actions/common';
import { searchCampaigns } from './methods/listSearch';
import { pollBalance } from './trigger/balance';
import { pollCallFinished } from './trigger/callFinished';
import { callFinishedProperties } from './trigger/callFinishedDescription';
import { pollCreated, pollStatusChanges } from './trigger/campaignEvents';

export class VoiceAiTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Voice AI Trigger',
		name: 'voiceAiTrigger',
		icon: { light: 'file:voiceAi.svg', dark: 'file:voiceAi.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["event"] }}',
		description:
			'Voice AI agents and call campaigns: start a workflow when a call ends, a campaign changes status or is created, or the balance runs low',
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
						name: 'Call Finished',
						value: 'callFinished',
						description:
							'A call of a campaign ended (answered, no answer, busy or failed): one execution item per call attempt',
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
				displayOptions: { show: { event: ['campaignStatusChanged', 'callFinished'] } },
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
				displayOptions: {
					show: { event: ['campaignStatusChanged', 'callFinished'], campaignScope: ['chosen'] },
				},
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
			...callFinishedProperties,
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
			// The newest campaigns, found and labelled as the Voice AI node's campaign picker does.
			async getCampaigns(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
				const { results } = await searchCampaigns.call(this);
				return results.map(({ name, value }) => ({ name, value }));
			},
		},
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const event = this.getNodeParameter('event') as string;
		if (event === 'campaignStatusChanged') return await pollStatusChanges(this);
		if (event === 'newCampaign') return await pollCreated(this);
		if (event === 'callFinished') return await pollCallFinished(this);
		if (event === 'balanceLow') return await pollBalance(this);
		throw new NodeOperationError(this.getNode(), `Unknown event "${event}"`);
	}
}
