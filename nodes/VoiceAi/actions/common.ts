import type { INodeProperties } from 'n8n-workflow';

import { ID_VALIDATION, sortOrderOption, valueOptions } from '../../shared/descriptions';

/** Agent picker: from a searchable list, or an ID typed or mapped from an earlier node. */
export const agentLocator: INodeProperties = {
	displayName: 'Agent',
	name: 'agentId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The voice agent',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			typeOptions: { searchListMethod: 'searchAgents', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. agt_8f2k1',
			validation: ID_VALIDATION,
		},
	],
};

/** Campaign picker: newest first from a searchable list, or by ID. */
export const campaignLocator: INodeProperties = {
	displayName: 'Campaign',
	name: 'campaignId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The mass-call campaign',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			typeOptions: { searchListMethod: 'searchCampaigns', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. cmp_3k9d2',
			validation: ID_VALIDATION,
		},
	],
};

export const sortOption = sortOrderOption('Order by creation time');

/** Every status a campaign can have, in the order a campaign moves through them. */
export const CAMPAIGN_STATUSES = [
	'pending',
	'in_progress',
	'completed',
	'cancelled',
	'failed',
] as const;

export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const campaignStatusOptions = valueOptions(CAMPAIGN_STATUSES);
