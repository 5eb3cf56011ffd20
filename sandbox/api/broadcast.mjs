// Broadcast endpoints: a transactional send to many recipients, and one message's status.
import { HttpError, failIfAny } from './errors.mjs';
import { chatOfPhone } from './chats.mjs';
import { checkWhatsappNumber } from './messages.mjs';
import { findById, insert, nowIso } from './records.mjs';
import { recordSent } from './sent.mjs';
import {
	E164,
	EMAIL,
	PHONE_RULE,
	checkString,
	isObject,
	oneOf,
	requireObjectBody,
} from './validation.mjs';

/**
 * @typedef {import('../api.mjs').Handler} Handler
 * @typedef {import('../data.mjs').BroadcastMessage} BroadcastMessage
 */

const MAX_BROADCAST_RECIPIENTS = 1000;
const CHANNELS = ['whatsapp', 'sms', 'email'];

/** @type {Handler} */
export function sendBroadcast(api, { body: raw }) {
	const body = requireObjectBody(raw);
	/** @type {string[]} */
	const errors = [];
	const channel = /** @type {BroadcastMessage['channel']} */ (body.channel);
	if (!CHANNELS.includes(channel)) errors.push(oneOf('channel', CHANNELS));
	const recipients = body.recipients;
	if (!Array.isArray(recipients) || recipients.length === 0)
		errors.push('recipients must be a non-empty array');
	else if (recipients.length > MAX_BROADCAST_RECIPIENTS) {
		errors.push(`recipients must contain no more than ${MAX_BROADCAST_RECIPIENTS} elements`);
	} else {
		recipients.forEach((recipient, i) => {
			if (!isObject(recipient)) {
				errors.push(`recipients.${i} must be an object`);
				return;
			}
			if (channel === 'email') {
				if (typeof recipient.email !== 'string' || !EMAIL.test(recipient.email)) {
					errors.push(`recipients.${i}.email must be an email`);
				}
			} else if (channel === 'whatsapp' || channel === 'sms') {
				if (typeof recipient.phone !== 'string' || !E164.test(recipient.phone)) {
					errors.push(`recipients.${i}.phone ${PHONE_RULE}`);
				}
			}
			if (recipient.variables !== undefined && !isObject(recipient.variables)) {
				errors.push(`recipients.${i}.variables must be an object`);
			}
		});
	}
	checkString(body, 'templateId', errors, { optional: true });
	checkString(body, 'text', errors, { optional: true });
	const hasTemplate = typeof body.templateId === 'string' && body.templateId.trim() !== '';
	const hasText = typeof body.text === 'string' && body.text.trim() !== '';
	if (!hasTemplate && !hasText) errors.push('templateId or text must be provided');
	failIfAny(errors);
	checkWhatsappNumber(api, body.whatsappNumberId);
	const at = nowIso(api);
	const items = /** @type {Record<string, unknown>[]} */ (recipients).map((recipient) => {
		const message = insert(api.state.broadcastMessages, {
			id: api.newId('bcm'),
			channel,
			recipient: /** @type {string} */ (channel === 'email' ? recipient.email : recipient.phone),
			status: /** @type {const} */ ('queued'),
			createdAt: at,
			updatedAt: at,
		});
		const sent = {
			messageId: message.id,
			channel,
			recipient: message.recipient,
			text: hasText ? /** @type {string} */ (body.text) : null,
			templateId: hasTemplate ? /** @type {string} */ (body.templateId) : null,
			variables: /** @type {Record<string, unknown>} */ (recipient.variables ?? {}),
			whatsappNumberId: typeof body.whatsappNumberId === 'string' ? body.whatsappNumberId : null,
			createdAt: at,
		};
		recordSent(api, sent);
		if (channel === 'whatsapp' && hasText && api.options.broadcastHistory === 'shown') {
			showInChat(api, message.recipient, /** @type {string} */ (body.text), at);
		}
		return message;
	});
	return { status: 200, body: { items } };
}

/**
 * The `broadcastHistory: 'shown'` reading: a WhatsApp text sent by broadcast is in the chat of its
 * phone, as the team's outbound text message.
 * @param {import('../api.mjs').ApiContext} api @param {string} phone @param {string} text @param {string} at
 */
function showInChat(api, phone, text, at) {
	const chat = chatOfPhone(api, phone);
	insert(api.state.messages, {
		id: api.newId('msg'),
		chatId: chat.id,
		direction: /** @type {const} */ ('outbound'),
		type: /** @type {const} */ ('text'),
		content: text,
		status: /** @type {const} */ ('sent'),
		reaction: null,
		createdAt: at,
	});
	chat.updatedAt = at;
}

/** @type {Handler} */
export function getBroadcastMessage(api, { params }) {
	const message = findById(api.state.broadcastMessages, params.id);
	if (!message) throw new HttpError(404, 'Broadcast message not found');
	return { status: 200, body: message };
}
