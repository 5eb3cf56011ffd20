import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { extraQuery, listOptions, valueOptions } from '../../../shared/descriptions';
import { InputError } from '../../../shared/errors';
import { toListPage } from '../../../shared/pagination';
import { apiRequest, path } from '../../../shared/transport';
import { requireDate, requireOneOf } from '../../../shared/validation';

/** Lengths of the periods the trends endpoint sums calls over. */
const GRANULARITIES = ['day', 'week', 'month'] as const;

const properties: INodeProperties[] = [
	{
		displayName: 'From',
		name: 'from',
		type: 'dateTime',
		default: '={{ $now.minus({ days: 30 }).toISODate() }}',
		required: true,
		description: 'First day of the period',
	},
	{
		displayName: 'To',
		name: 'to',
		type: 'dateTime',
		default: '={{ $now.toISODate() }}',
		required: true,
		description: 'Last day of the period',
	},
	{
		displayName: 'Granularity',
		name: 'granularity',
		type: 'options',
		default: 'day',
		options: valueOptions(GRANULARITIES),
		description: 'Length of each period in the answer',
	},
	listOptions({
		displayName: 'Split Into Items',
		name: 'splitIntoItems',
		type: 'boolean',
		default: true,
		description: 'Whether to output one item per period instead of one item with the whole answer',
	}),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['report'], operation: ['getCallTrends'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
	const from = requireDate(this.getNodeParameter('from', itemIndex), 'From');
	const to = requireDate(this.getNodeParameter('to', itemIndex), 'To');
	if (Date.parse(from) > Date.parse(to)) {
		throw new InputError(`From (${from}) is after To (${to})`, 'Swap the two dates.');
	}
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const response = (await apiRequest.call(this, 'GET', path`/voice/reports/trends`, {
		qs: {
			from,
			to,
			granularity: requireOneOf(
				this.getNodeParameter('granularity', itemIndex),
				'Granularity',
				GRANULARITIES,
			),
			...extraQuery(options),
		},
	})) as IDataObject;
	// Periods under `items` (or another list envelope, or a bare array) become items; any other
	// answer comes whole.
	const { items: periods } = toListPage(response);
	const listed = Array.isArray(response) || periods[0] !== response;
	if (options.splitIntoItems !== false && listed && periods.length > 0) return periods;
	return response;
}
