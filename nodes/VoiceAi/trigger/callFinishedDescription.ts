import type { INodeProperties } from 'n8n-workflow';

import { valueOptions } from '../../shared/descriptions';
import { MAX_PAGE_SIZE } from '../../shared/pagination';
import { CALL_OUTCOMES } from './callRecords';

/** Report: every ended attempt, or each number's final outcome only. */
export const REPORT_MODES = ['everyAttempt', 'finalOutcome'] as const;

/** Data Requests per Poll: the default leaves room in the API's 100 requests a minute. */
export const DEFAULT_DATA_REQUESTS_PER_POLL = 20;
export const MAX_DATA_REQUESTS_PER_POLL = 100;
/**
 * Sweeps of a campaign's data after it ended: read again at the next polls while a call of it is
 * still `calling`, at most this many in all.
 */
export const ENDED_CAMPAIGN_READS = 5;
/** Requests a poll makes to find the campaigns to read (newest, pending and in-progress lists). */
export const CAMPAIGN_LIST_REQUESTS = 3;

const show = { show: { event: ['callFinished'] } };

/** The parameters of the Call Finished event. */
export const callFinishedProperties: INodeProperties[] = [
	{
		displayName: `Each poll makes ${CAMPAIGN_LIST_REQUESTS} requests to find the campaigns, 1 more for each campaign that ended since the last poll, and at most Data Requests per Poll reads of call data (${MAX_PAGE_SIZE} numbers each); what it cannot read (or read within the poll's time) is read at the next polls. After activation the data of the campaigns running then is read once, to record what is there; for big campaigns that takes several polls, and calls that end meanwhile are still reported.`,
		name: 'callFinishedNotice',
		type: 'notice',
		default: '',
		displayOptions: show,
	},
	{
		displayName: 'Outcomes',
		name: 'outcomes',
		type: 'multiOptions',
		default: [],
		options: valueOptions(CALL_OUTCOMES),
		description: 'Fire only for calls that ended this way; none chosen means every outcome',
		displayOptions: show,
	},
	{
		displayName: 'Report',
		name: 'report',
		type: 'options',
		default: 'everyAttempt',
		options: [
			{
				name: 'Every Attempt',
				value: 'everyAttempt',
				description:
					'Each call attempt that ended; a retried number fires again with its new attempts',
			},
			{
				name: 'Final Outcome Only',
				value: 'finalOutcome',
				description:
					"An answered call at once; another outcome once the campaign has ended (the number's last attempt)",
			},
		],
		displayOptions: show,
	},
	{
		displayName: 'Data Requests per Poll',
		name: 'dataRequestsPerPoll',
		type: 'number',
		default: DEFAULT_DATA_REQUESTS_PER_POLL,
		typeOptions: { minValue: 1, maxValue: MAX_DATA_REQUESTS_PER_POLL },
		description: `At most this many reads of campaign data per poll (${MAX_PAGE_SIZE} numbers each), first for the campaigns where calls are landing (a quarter is kept for those where nothing happens, read in turn); the rest is read at the next polls, and nothing is lost or reported twice`,
		displayOptions: show,
	},
];
