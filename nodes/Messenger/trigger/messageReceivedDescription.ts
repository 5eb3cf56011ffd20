import type { INodeProperties } from 'n8n-workflow';

import { optionsCollection, valueOptions } from '../../shared/descriptions';
import { downloadMediaOptions } from '../../shared/mediaFiles';
import { LIST_SEPARATORS_TEXT } from '../../shared/lists';
import { PHONE_FORMAT_HINT } from '../../shared/phone';
import { MAX_HELD_MESSAGES, MAX_PAUSE_SECONDS } from './messageDelivery';
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
	{
		...optionsCollection([
			...downloadMediaOptions('new message'),
			{
				displayName: 'Group by Chat',
				name: 'groupByChat',
				type: 'boolean',
				default: false,
				description:
					"Whether to start the workflow once per chat and poll instead of once per message: the item holds the chat's new messages in order under messages, and their texts joined in text (one line each), for an AI Agent to answer once",
			},
			{
				displayName: 'Wait for a Pause (Seconds)',
				name: 'waitForPause',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: MAX_PAUSE_SECONDS },
				default: 0,
				description: `Hold a chat's new messages until the customer has written nothing for this long (measured from the poll that found the last one), then hand them over together; 0 hands them over at once. Held messages are kept with the trigger's state, so a restart loses or repeats none. A chat is released at ${MAX_HELD_MESSAGES} held messages.`,
			},
		]),
		displayOptions: show,
	},
];
