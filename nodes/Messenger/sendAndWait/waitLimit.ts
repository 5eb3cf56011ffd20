import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { WAIT_INDEFINITELY } from 'n8n-workflow';

import { valueOptions } from '../../shared/descriptions';
import { requireDate, requireNumberInRange, requireOneOf } from '../../shared/validation';

/** Units of Limit Wait Time → milliseconds. */
export const WAIT_UNITS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;

/** The Limit Wait Time option, as n8n's own Send and Wait nodes have it. */
export const limitWaitTime: INodeProperties = {
	displayName: 'Limit Wait Time',
	name: 'limitWaitTime',
	type: 'fixedCollection',
	description:
		'Whether to stop waiting after a time; the workflow then goes on with the input items, as n8n’s own nodes do',
	default: { values: { limitType: 'afterTimeInterval', resumeAmount: 45, resumeUnit: 'minutes' } },
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [
				{
					displayName: 'Limit Type',
					name: 'limitType',
					type: 'options',
					default: 'afterTimeInterval',
					options: [
						{ name: 'After Time Interval', value: 'afterTimeInterval' },
						{ name: 'At Specified Time', value: 'atSpecifiedTime' },
					],
				},
				{
					displayName: 'Amount',
					name: 'resumeAmount',
					type: 'number',
					typeOptions: { minValue: 0, numberPrecision: 2 },
					default: 1,
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
				},
				{
					displayName: 'Unit',
					name: 'resumeUnit',
					type: 'options',
					default: 'hours',
					options: valueOptions(Object.keys(WAIT_UNITS)),
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
				},
				{
					displayName: 'Max Date and Time',
					name: 'maxDateAndTime',
					type: 'dateTime',
					default: '',
					displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
				},
			],
		},
	],
};

/** Until when the execution waits: Limit Wait Time of the Options, or indefinitely. */
export function waitTill(options: IDataObject, now = Date.now()): Date {
	const limit = (options.limitWaitTime as { values?: IDataObject } | undefined)?.values;
	if (!limit) return WAIT_INDEFINITELY;
	if (limit.limitType === 'atSpecifiedTime') {
		return new Date(requireDate(limit.maxDateAndTime, 'Limit Wait Time: Max Date and Time'));
	}
	const amount = requireNumberInRange(
		limit.resumeAmount ?? 1,
		'Limit Wait Time: Amount',
		0,
		100_000,
	);
	const unit = requireOneOf(
		limit.resumeUnit ?? 'hours',
		'Limit Wait Time: Unit',
		Object.keys(WAIT_UNITS) as Array<keyof typeof WAIT_UNITS>,
	);
	return new Date(now + amount * WAIT_UNITS[unit]);
}
