// The sandbox's Integration API: the route table (method, path, role, handler) and how a path
// finds its route. The handlers live by area in api/ (voice, messages, chats, contacts,
// broadcast), with the checks (validation), state transitions and what a send reports (sent).
import { getBroadcastMessage, sendBroadcast } from './api/broadcast.mjs';
import { checkExistingChat, markImportant, reopenChat } from './api/chats.mjs';
import {
	createContact,
	getContact,
	replaceContactAttributes,
	searchContacts,
	updateContactAttribute,
} from './api/contacts.mjs';
import {
	chatHistory,
	getMessage,
	listWhatsappNumbers,
	removeReaction,
	sendLocation,
	sendMedia,
	sendMediaFile,
	sendMediaToPhone,
} from './api/messages.mjs';
import {
	cancelCampaign,
	getAgent,
	getBalance,
	getCampaign,
	getCampaignData,
	getTrends,
	listAgents,
	listCampaigns,
} from './api/voice.mjs';

export { HttpError } from './api/errors.mjs';
export { findById, insert } from './api/records.mjs';
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, parsePaging } from './api/validation.mjs';
export { MAX_UPLOAD_BYTES } from './api/multipart.mjs';
export { advanceOnce, campaignFate, transitionCampaign } from './api/transitions.mjs';
export { CUSTOMER_MESSAGE_TYPES, MAX_CUSTOMER_MESSAGES, customerWrites } from './api/customer.mjs';
export { sentLines } from './api/sent.mjs';
export { newCampaign, startCallCampaign, stepCalls } from './api/calls.mjs';

/**
 * @typedef {import('./data.mjs').SandboxState} SandboxState
 * @typedef {import('./data.mjs').Campaign} Campaign
 * @typedef {import('./data.mjs').CampaignStatus} CampaignStatus
 * @typedef {import('./data.mjs').Chat} Chat
 * @typedef {import('./data.mjs').Message} Message
 * @typedef {import('./data.mjs').BroadcastMessage} BroadcastMessage
 * @typedef {import('./data.mjs').Random} Random
 *
 * What handlers need from the running sandbox.
 * @typedef {{
 *   options: import('./alternatives.mjs').Alternatives,
 *   state: SandboxState,
 *   seed: number,
 *   random: Random,
 *   newId: (prefix: string) => string,
 *   onSent?: (sent: import('./data.mjs').SentMessage | import('./data.mjs').SentChatMessage) => void,
 *   maxUploadBytes: () => number,
 * }} ApiContext
 *
 * @typedef {{ params: Record<string, string>, query: Record<string, string>, body: unknown, req: import('node:http').IncomingMessage }} RequestInput
 * @typedef {{ status: number, body: unknown, headers?: Record<string, string> }} ApiResult
 * @typedef {(api: ApiContext, input: RequestInput) => ApiResult | Promise<ApiResult>} Handler
 * @typedef {{ method: string, segments: string[], scope?: 'voicebot' | 'messenger', body?: 'json' | 'multipart', handler: Handler }} Route
 */

/**
 * @param {string} method @param {string} path `:name` marks a parameter
 * @param {Route['scope']} scope @param {Handler} handler @param {Route['body']} [body]
 * @returns {Route}
 */
const route = (method, path, scope, handler, body) => ({
	method,
	segments: path.split('/').slice(1),
	scope,
	body,
	handler,
});

/** Literal paths come before parameterised ones that could shadow them. @type {Route[]} */
export const ROUTES = [
	route('GET', '/api/v1/voice/agents', 'voicebot', listAgents),
	route('GET', '/api/v1/voice/agents/:id', 'voicebot', getAgent),
	route('GET', '/api/v1/voice/campaigns', 'voicebot', listCampaigns),
	route('GET', '/api/v1/voice/campaigns/:id', 'voicebot', getCampaign),
	route('POST', '/api/v1/voice/campaigns/:id/cancel', 'voicebot', cancelCampaign, 'json'),
	route('GET', '/api/v1/voice/campaigns/:id/data', 'voicebot', getCampaignData),
	route('GET', '/api/v1/voice/billing/balance', 'voicebot', getBalance),
	route('GET', '/api/v1/voice/reports/trends', 'voicebot', getTrends),
	route(
		'POST',
		'/api/v1/messenger/messages/send/media-file',
		'messenger',
		sendMediaFile,
		'multipart',
	),
	route(
		'POST',
		'/api/v1/messenger/messages/send/media-to-phone',
		'messenger',
		sendMediaToPhone,
		'json',
	),
	route('GET', '/api/v1/messenger/messages/whatsapp-numbers', 'messenger', listWhatsappNumbers),
	route('POST', '/api/v1/messenger/messages/send/media', 'messenger', sendMedia, 'json'),
	route('GET', '/api/v1/messenger/chats/check-existing', 'messenger', checkExistingChat),
	route('POST', '/api/v1/messenger/messages/send/location', 'messenger', sendLocation, 'json'),
	route('POST', '/api/v1/messenger/contacts', 'messenger', createContact, 'json'),
	route(
		'PATCH',
		'/api/v1/messenger/contacts/:id/attributes/:key',
		'messenger',
		updateContactAttribute,
		'json',
	),
	route('PATCH', '/api/v1/messenger/chats/:id/mark-important', 'messenger', markImportant, 'json'),
	route('GET', '/api/v1/messenger/contacts/search/:customer', 'messenger', searchContacts),
	route(
		'PUT',
		'/api/v1/messenger/contacts/:id/attributes',
		'messenger',
		replaceContactAttributes,
		'json',
	),
	route('GET', '/api/v1/messenger/broadcast/messages/:id', 'messenger', getBroadcastMessage),
	route('GET', '/api/v1/messenger/messages/chat/:chatId', 'messenger', chatHistory),
	route('DELETE', '/api/v1/messenger/messages/:id/react', 'messenger', removeReaction, 'json'),
	route('POST', '/api/v1/messenger/broadcast/messages', 'messenger', sendBroadcast, 'json'),
	route('PATCH', '/api/v1/messenger/chats/:id/reopen', 'messenger', reopenChat, 'json'),
	route('GET', '/api/v1/messenger/contacts/:id', 'messenger', getContact),
	route('GET', '/api/v1/messenger/messages/:id', 'messenger', getMessage),
];

/**
 * Matches already-decoded path segments; a `%2F` inside an id stays inside that one segment.
 * @param {string} method @param {string[]} segments
 * @returns {{ route: Route, params: Record<string, string> } | { route: undefined, params: undefined }}
 */
export function matchRoute(method, segments) {
	for (const candidate of ROUTES) {
		if (candidate.method !== method || candidate.segments.length !== segments.length) continue;
		/** @type {Record<string, string>} */
		const params = {};
		let matched = true;
		for (let i = 0; i < segments.length; i++) {
			const pattern = candidate.segments[i];
			if (pattern.startsWith(':')) params[pattern.slice(1)] = segments[i];
			else if (pattern !== segments[i]) {
				matched = false;
				break;
			}
		}
		if (matched) return { route: candidate, params };
	}
	return { route: undefined, params: undefined };
}
