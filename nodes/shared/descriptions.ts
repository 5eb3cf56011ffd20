import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodePropertyOptions,
	INodePropertyRegexValidation,
} from 'n8n-workflow';

import { queryFromParameters } from './validation';

/** Return All + Limit, as every n8n list operation offers them. */
export function returnAllOrLimit(): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { returnAll: [false] } },
		},
	];
}

/** An "Additional Query Parameters" option for list operations, to follow the real API where it differs. */
export const additionalQueryParameters: INodeProperties = {
	displayName: 'Additional Query Parameters',
	name: 'queryParameters',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true },
	placeholder: 'Add Parameter',
	default: {},
	description: 'Extra query parameters sent as they are, for API options this node does not list',
	options: [
		{
			displayName: 'Parameter',
			name: 'parameter',
			values: [
				{ displayName: 'Name', name: 'name', type: 'string', default: '' },
				{ displayName: 'Value', name: 'value', type: 'string', default: '' },
			],
		},
	],
};

/** An operation's "Options" collection (the `options` parameter) holding `options`. */
export function optionsCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options,
	};
}

/** The Options collection of a list operation: `extra` options first, then Additional Query Parameters. */
export function listOptions(...extra: INodeProperties[]): INodeProperties {
	return optionsCollection([...extra, additionalQueryParameters]);
}

/** The rows of an "Additional Query Parameters" option found inside a collection parameter. */
export function extraQuery(options: IDataObject): IDataObject {
	const rows = (
		options.queryParameters as { parameter?: Array<{ name?: string; value?: unknown }> } | undefined
	)?.parameter;
	return queryFromParameters(rows);
}

/**
 * What a list operation asks apiRequestAllItems for: Return All or Limit, and the query from its
 * Options (Additional Query Parameters, then the operation's own `fields`, then Sort Order).
 */
export function listRequest(
	this: IExecuteFunctions,
	itemIndex: number,
	fields: IDataObject = {},
): { returnAll: boolean; limit?: number; qs: IDataObject } {
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const qs: IDataObject = { ...extraQuery(options), ...fields };
	if (options.sort) qs.sort = options.sort;
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	return returnAll
		? { returnAll, qs }
		: { returnAll, limit: this.getNodeParameter('limit', itemIndex, 50) as number, qs };
}

/** The editor's check on an ID typed into a resource locator's "By ID" mode. */
export const ID_VALIDATION: INodePropertyRegexValidation[] = [
	{
		type: 'regex',
		properties: { regex: '^[^/?#\\\\]+$', errorMessage: 'An ID cannot contain /, \\, ? or #' },
	},
];

/**
 * The choices of an options parameter, built from the constant that lists its allowed values:
 * `in_progress` becomes "In Progress" unless `labels` names it; `sortByName` orders them by name.
 */
export function valueOptions(
	values: readonly string[],
	{
		labels = {},
		sortByName = false,
	}: { labels?: Record<string, string>; sortByName?: boolean } = {},
): INodePropertyOptions[] {
	const options = values.map((value) => ({
		name:
			labels[value] ??
			value
				.split('_')
				.map((word) => word.charAt(0).toUpperCase() + word.slice(1))
				.join(' '),
		value,
	}));
	return sortByName ? options.sort((a, b) => a.name.localeCompare(b.name)) : options;
}

/** The Sort Order option of a list the API sorts by time; `description` says by which time. */
export function sortOrderOption(description: string): INodeProperties {
	return {
		displayName: 'Sort Order',
		name: 'sort',
		type: 'options',
		default: 'desc',
		description,
		options: [
			{ name: 'Newest First', value: 'desc' },
			{ name: 'Oldest First', value: 'asc' },
		],
	};
}
