import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionsCollection } from '../../../shared/descriptions';
import { InputError } from '../../../shared/errors';
import {
	attachFiles,
	binaryPropertyOption,
	maxFileSizeOption,
	mediaLinkOf,
	mediaSettings,
} from '../../../shared/mediaFiles';
import { OutputItems } from '../../../shared/router';
import { apiRequest, path } from '../../../shared/transport';
import { requireId, requireOneOf } from '../../../shared/validation';
import { messageIdProperty } from '../common';

const SOURCES = ['messageId', 'inputItem'] as const;

const properties: INodeProperties[] = [
	{
		displayName: 'Message From',
		name: 'source',
		type: 'options',
		default: 'messageId',
		options: [
			{
				name: 'Message ID',
				value: 'messageId',
				description: 'Read the message by its ID, then download its file',
			},
			{
				name: 'Input Item',
				value: 'inputItem',
				description:
					'The message record in the input item (from Message Received, Chat → Get Messages or Message → Get): no extra request',
			},
		],
	},
	{ ...messageIdProperty, displayOptions: { show: { source: ['messageId'] } } },
	{ ...binaryPropertyOption, required: true },
	optionsCollection([maxFileSizeOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['message'], operation: ['downloadMedia'] } },
	properties,
);

/** The message record an input item holds: the item itself, or its `message` (Message Received). */
function inputMessage(json: IDataObject): IDataObject {
	const nested = json.message;
	const record =
		nested && typeof nested === 'object' && !Array.isArray(nested) ? (nested as IDataObject) : json;
	if (record.content === undefined) {
		throw new InputError(
			'The input item holds no message record (no "content" field)',
			'Connect Message Received, Chat → Get Messages or Message → Get before this node, or set Message From to Message ID.',
		);
	}
	return record;
}

/** The message JSON with its file as binary data; a message without media is an error. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OutputItems> {
	const source = requireOneOf(this.getNodeParameter('source', itemIndex), 'Message From', SOURCES);
	const settings = mediaSettings(
		{
			...(this.getNodeParameter('options', itemIndex, {}) as IDataObject),
			binaryPropertyName: this.getNodeParameter('binaryPropertyName', itemIndex, 'data'),
		},
		true,
	);
	const input = this.getInputData()[itemIndex];
	let json: IDataObject;
	let message: IDataObject;
	if (source === 'inputItem') {
		json = { ...input.json };
		message = inputMessage(json);
	} else {
		const id = requireId(this.getNodeParameter('messageId', itemIndex), 'Message ID');
		message = (await apiRequest.call(this, 'GET', path`/messenger/messages/${id}`, {
			errorContext: { resource: 'Message', id },
		})) as IDataObject;
		json = { ...message };
	}
	if (!mediaLinkOf(message)) {
		throw new InputError(
			`Message ${String(message.id ?? '')} has no media to download (type "${String(message.type ?? 'unknown')}")`,
			'Only image, video, audio and document messages carry a file (content.url). Filter on the message type before this node.',
		);
	}
	const binary = await attachFiles(this, [json], settings, false);
	return new OutputItems([{ json, binary: { ...(input?.binary ?? {}), ...binary } }]);
}
