import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest, path } from '../../../shared/transport';
import { requireId, requireNumberInRange, requireText } from '../../../shared/validation';
import { bodyOptions, chatIdProperty, extraBody } from '../common';

const properties: INodeProperties[] = [
	chatIdProperty,
	{
		displayName: 'Latitude',
		name: 'latitude',
		type: 'number',
		required: true,
		default: 0,
		typeOptions: { minValue: -90, maxValue: 90, numberPrecision: 7 },
		description: 'From -90 to 90',
	},
	{
		displayName: 'Longitude',
		name: 'longitude',
		type: 'number',
		required: true,
		default: 0,
		typeOptions: { minValue: -180, maxValue: 180, numberPrecision: 7 },
		description: 'From -180 to 180',
	},
	bodyOptions(
		{
			displayName: 'Address',
			name: 'address',
			type: 'string',
			default: '',
			placeholder: 'e.g. Puerta del Sol, Madrid',
		},
		{
			displayName: 'Name',
			name: 'name',
			type: 'string',
			default: '',
			placeholder: 'e.g. Office',
			description: 'Name of the place',
		},
	),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['sendLocation'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const chatId = requireId(this.getNodeParameter('chatId', itemIndex), 'Chat ID');
	const latitude = requireNumberInRange(
		this.getNodeParameter('latitude', itemIndex),
		'Latitude',
		-90,
		90,
	);
	const longitude = requireNumberInRange(
		this.getNodeParameter('longitude', itemIndex),
		'Longitude',
		-180,
		180,
	);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const body: IDataObject = { chatId, latitude, longitude };
	const name = requireText(options.name, 'Name', {
		maxLength: 1000,
		optional: true,
	}).trim();
	if (name !== '') body.name = name;
	const address = requireText(options.address, 'Address', {
		maxLength: 1000,
		optional: true,
	}).trim();
	if (address !== '') body.address = address;
	return (await apiRequest.call(this, 'POST', path`/messenger/messages/send/location`, {
		body: { ...body, ...extraBody(options) },
		errorContext: { resource: 'Chat', id: chatId },
	})) as IDataObject;
}
