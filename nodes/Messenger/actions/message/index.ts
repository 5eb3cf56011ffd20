import type { INodeProperties } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import * as downloadMedia from './downloadMedia.operation';
import * as get from './get.operation';
import * as removeReaction from './removeReaction.operation';
import * as sendAndWait from './sendAndWait.operation';
import * as sendLocation from './sendLocation.operation';
import * as sendMedia from './sendMedia.operation';
import * as sendMediaFile from './sendMediaFile.operation';
import * as sendMediaToPhone from './sendMediaToPhone.operation';

export {
	downloadMedia,
	get,
	removeReaction,
	sendAndWait,
	sendLocation,
	sendMedia,
	sendMediaFile,
	sendMediaToPhone,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['message'] } },
		options: [
			{
				name: 'Download Media',
				value: 'downloadMedia',
				description:
					'Download the file of an image, voice note, video or document message (by ID, or the message in the input item) into binary data, e.g. for transcription, OCR or storage',
				action: 'Download the media of a message',
			},
			{
				name: 'Get',
				value: 'get',
				description:
					'Get a message by ID (from a send or Chat → Get Messages): its chat, direction, type, content and status',
				action: 'Get a message',
			},
			{
				name: 'Remove Reaction',
				value: 'removeReaction',
				description: 'Remove the reaction from a message (ID from Chat → Get Messages)',
				action: 'Remove the reaction from a message',
			},
			{
				name: 'Send and Wait for Response',
				value: SEND_AND_WAIT_OPERATION,
				description:
					'Send a person a message on WhatsApp, SMS or email with a link, and wait until they approve, decline or answer on the page it opens: the workflow goes on with their answer',
				action: 'Send message and wait for response',
			},
			{
				name: 'Send Location',
				value: 'sendLocation',
				description:
					'Send a map location (latitude and longitude, optional name and address) to a chat (ID from Chat → Check Existing): returns the message sent',
				action: 'Send a location',
			},
			{
				name: 'Send Media by URL',
				value: 'sendMedia',
				description:
					'Send an image, video, audio or document from a public http(s) URL to a chat (ID from Chat → Check Existing), with an optional caption: returns the message sent',
				action: 'Send media by URL',
			},
			{
				name: 'Send Media File',
				value: 'sendMediaFile',
				description:
					'Upload a file from the binary data of the input item to a chat. Needs binary input from an earlier node; not for AI agents, which should send media by URL.',
				action: 'Send a media file',
			},
			{
				name: 'Send Media to Phone',
				value: 'sendMediaToPhone',
				description:
					'Send an image, video, audio or document from a public http(s) URL to a phone number in international format, in its open chat or a new one: returns the message sent',
				action: 'Send media to a phone number',
			},
		],
		default: 'sendMedia',
	},
	...downloadMedia.description,
	...get.description,
	...removeReaction.description,
	...sendAndWait.description,
	...sendLocation.description,
	...sendMedia.description,
	...sendMediaFile.description,
	...sendMediaToPhone.description,
];
