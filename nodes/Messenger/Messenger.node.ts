import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { runOperation } from '../shared/router';
import * as broadcast from './actions/broadcast';
import * as chat from './actions/chat';
import * as contact from './actions/contact';
import * as message from './actions/message';
import { operations } from './actions/operations';
import * as whatsappNumber from './actions/whatsappNumber';
import { searchContacts } from './methods/listSearch';
import { getWhatsappNumbers } from './methods/loadOptions';
import { sendAndWaitWebhook } from './sendAndWait/webhook';
import { waitingWebhooks, WAITING_TOOLTIP } from './sendAndWait/webhookDescription';

export class Messenger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messenger',
		name: 'messenger',
		icon: { light: 'file:messenger.svg', dark: 'file:messenger.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description:
			'Send WhatsApp media and locations, manage chats and contacts, and send transactional WhatsApp, SMS and email broadcasts',
		defaults: { name: 'Messenger' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'voiceMessagingApi', required: true }],
		// Send and Wait for Response: the signed link resumes the waiting execution here.
		webhooks: waitingWebhooks,
		waitingNodeTooltip: WAITING_TOOLTIP,
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Broadcast', value: 'broadcast' },
					{ name: 'Chat', value: 'chat' },
					{ name: 'Contact', value: 'contact' },
					{ name: 'Message', value: 'message' },
					{ name: 'WhatsApp Number', value: 'whatsappNumber' },
				],
				default: 'message',
			},
			...broadcast.description,
			...chat.description,
			...contact.description,
			...message.description,
			...whatsappNumber.description,
		],
	};

	methods = {
		listSearch: { searchContacts },
		loadOptions: { getWhatsappNumbers },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runOperation.call(this, operations);
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await sendAndWaitWebhook.call(this);
	}
}
