import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { runOperation } from '../shared/router';
import * as agent from './actions/agent';
import * as billing from './actions/billing';
import * as campaign from './actions/campaign';
import { operations } from './actions/operations';
import * as report from './actions/report';
import { searchAgents, searchCampaigns } from './methods/listSearch';

export class VoiceAi implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Voice AI',
		name: 'voiceAi',
		icon: { light: 'file:voiceAi.svg', dark: 'file:voiceAi.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description:
			'Read AI voice agents, run and cancel call campaigns, check balance and call trends',
		defaults: { name: 'Voice AI' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'voiceMessagingApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Agent', value: 'agent' },
					{ name: 'Billing', value: 'billing' },
					{ name: 'Campaign', value: 'campaign' },
					{ name: 'Report', value: 'report' },
				],
				default: 'campaign',
			},
			...agent.description,
			...billing.description,
			...campaign.description,
			...report.description,
		],
	};

	methods = {
		listSearch: { searchAgents, searchCampaigns },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runOperation.call(this, operations);
	}
}
