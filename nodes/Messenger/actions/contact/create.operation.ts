import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';
import { parseJsonObject, requireEmail, requireText } from '../../../shared/validation';
import { normalizePhone } from '../../../shared/phone';
import { bodyOptions, extraBody, phoneProperty } from '../common';

const properties: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Lucia Garcia',
	},
	phoneProperty("The contact's phone number (the API allows one contact per number)"),
	bodyOptions(
		{
			displayName: 'Attributes (JSON)',
			name: 'attributes',
			type: 'json',
			default: '{}',
			description: 'Custom attributes of the contact as a JSON object, e.g. {"plan": "gold"}',
		},
		{
			displayName: 'Email',
			name: 'email',
			type: 'string',
			default: '',
			placeholder: 'e.g. name@example.com',
		},
	),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['contact'], operation: ['create'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const name = requireText(this.getNodeParameter('name', itemIndex), 'Name', {
		maxLength: 256,
	}).trim();
	const phone = normalizePhone(this.getNodeParameter('phone', itemIndex), 'Phone');
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const body: IDataObject = { name, phone };
	if (
		options.email !== undefined &&
		options.email !== null &&
		String(options.email).trim() !== ''
	) {
		body.email = requireEmail(options.email, 'Email');
	}
	if (options.attributes !== undefined) {
		const attributes = parseJsonObject(options.attributes, 'Attributes (JSON)');
		if (Object.keys(attributes).length > 0) body.attributes = attributes;
	}
	return (await apiRequest.call(this, 'POST', path`/messenger/contacts`, {
		body: { ...body, ...extraBody(options) },
		errorContext: {
			conflictMessage: `A contact with the phone ${phone} already exists (409). Use Contact → Search to find it.`,
		},
	})) as IDataObject;
}
