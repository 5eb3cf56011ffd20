import type { INodeProperties } from 'n8n-workflow';

import { valueOptions } from '../../shared/descriptions';
import { LIST_SEPARATORS_TEXT } from '../../shared/lists';
import { PHONE_FORMAT_HINT } from '../../shared/phone';
import { MAX_WATCHED_CHATS, MESSAGE_DIRECTIONS, MESSAGE_TYPES } from './messageSettings';

const show = { show: { event: ['messageReceived'] } };

/** The parameters of the Message Received event, shown only for it. */
export const messageReceivedProperties: INodeProperties[] = [
	{
		displayName:
			'The API has no webhooks and no list of chats, so this trigger reads the history of the chats you name, with one request per chat at every poll (more only when a chat received more than a page of new messages). Pick a poll interval that leaves room in the 100 requests a minute for your other workflows.',
		name: 'messagePollingNotice',
		type: 'notice',
		default: '',
		displayOptions: show,
	},
	{
		displayName: 'Chats',
		name: 'chats',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. cht_1a2b3c, +34 600 123 456',
		description: `Chat IDs and/or phone numbers in ${PHONE_FORMAT_HINT}, separated by ${LIST_SEPARATORS_TEXT}, or an expression giving an array (at most ${MAX_WATCHED_CHATS}). A phone is matched to its open chat with Check Existing; until it has one, it is checked again at every poll.`,
		displayOptions: show,
	},
	{
		displayName: 'Direction',
		name: 'direction',
		type: 'options',
		default: 'inbound',
		options: valueOptions(MESSAGE_DIRECTIONS, {
			labels: {
				inbound: 'Inbound (From the Customer)',
				outbound: 'Outbound (Sent to the Customer)',
			},
		}),
		description:
			'Which messages start the workflow: those the customer wrote, those sent to them, or both',
		displayOptions: show,
	},
	{
		displayName: 'Message Types',
		name: 'messageTypes',
		type: 'multiOptions',
		default: [],
		options: valueOptions(MESSAGE_TYPES),
		description: 'Start the workflow only for these types of message; none chosen means every type',
		displayOptions: show,
	},
];
