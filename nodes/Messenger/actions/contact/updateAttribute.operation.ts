import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { InputError } from '../../../shared/errors';

import { apiRequest, path } from '../../../shared/transport';
import { locatorId, parseJson, requireKey } from '../../../shared/validation';
import { bodyOptions, contactLocator, extraBody } from '../common';

const properties: INodeProperties[] = [
	contactLocator,
	{
		displayName: 'Attribute Key',
		name: 'key',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. plan',
		description: 'Name of the attribute to set; it is created when the contact does not have it',
	},
	{
		displayName: 'Value Type',
		name: 'valueType',
		type: 'options',
		default: 'text',
		options: [
			{
				name: 'Text',
				value: 'text',
				description: 'Value is sent as a string',
			},
			{
				name: 'JSON',
				value: 'json',
				description: 'Value is read as JSON: a number, true/false, null, an object or an array',
			},
		],
	},
	{
		displayName: 'Value',
		name: 'value',
		type: 'string',
		default: '',
		placeholder: 'e.g. gold',
	},
	bodyOptions(),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['contact'], operation: ['updateAttribute'] } },
	properties,
);

function jsonValue(raw: unknown): unknown {
	if (typeof raw !== 'string') return raw;
	const { parsed, reason } = parseJson(raw);
	if (reason !== undefined) {
		throw new InputError(
			`Value is not valid JSON: ${raw.slice(0, 50)}`,
			`${reason}. With Value Type "JSON", use e.g. 42, true, null, "text" or {"a": 1}; choose "Text" to send the value as it is.`,
		);
	}
	return parsed;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = locatorId.call(this, 'contactId', 'Contact', itemIndex);
	const key = requireKey(this.getNodeParameter('key', itemIndex), 'Attribute Key');
	const valueType = this.getNodeParameter('valueType', itemIndex, 'text') as string;
	const raw = this.getNodeParameter('value', itemIndex, '');
	const value =
		valueType === 'json' ? jsonValue(raw) : raw === undefined || raw === null ? '' : String(raw);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	return (await apiRequest.call(this, 'PATCH', path`/messenger/contacts/${id}/attributes/${key}`, {
		body: { value: value as IDataObject[string], ...extraBody(options) },
		errorContext: { resource: 'Contact', id },
	})) as IDataObject;
}
