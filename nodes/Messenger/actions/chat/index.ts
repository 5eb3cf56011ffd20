import type { INodeProperties } from 'n8n-workflow';

import * as checkExisting from './checkExisting.operation';
import * as getMessages from './getMessages.operation';
import * as markImportant from './markImportant.operation';
import * as reopen from './reopen.operation';

export { checkExisting, getMessages, markImportant, reopen };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['chat'] } },
		options: [
			{
				name: 'Check Existing',
				value: 'checkExisting',
				description:
					'Check whether a phone number (international format, e.g. +34600123456) has an open chat, and get the chat ID the chat and message operations take',
				action: 'Check for an open chat',
			},
			{
				name: 'Get Messages',
				value: 'getMessages',
				description:
					'Get the message history of a chat (ID from Chat → Check Existing): one item per message, up to Limit unless Return All is on',
				action: 'Get the messages of a chat',
			},
			{
				name: 'Mark Important',
				value: 'markImportant',
				description: 'Mark a chat (ID from Chat → Check Existing) as important, or remove the mark',
				action: 'Mark a chat as important',
			},
			{
				name: 'Reopen',
				value: 'reopen',
				description:
					'Reopen a closed chat by ID (from Chat → Check Existing); an open chat cannot be reopened',
				action: 'Reopen a chat',
			},
		],
		default: 'checkExisting',
	},
	...checkExisting.description,
	...getMessages.description,
	...markImportant.description,
	...reopen.description,
];
