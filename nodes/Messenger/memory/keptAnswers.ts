import type { IDataObject } from 'n8n-workflow';

import { toListPage } from '../../shared/pagination';
import { normalizePhone } from '../../shared/phone';
import type { RequestContext } from '../../shared/transport';
import { apiRequest, path } from '../../shared/transport';
import { parseJson } from '../../shared/validation';

/**
 * The contact attribute that keeps the agent's answers for the next turn, where the API does not
 * show WhatsApp texts sent by Broadcast in the chat's history (docs/api.md, Broadcast in chat
 * history). One per contact, shared by every workflow that answers it: each answer is a turn of
 * the same conversation.
 */
export const KEPT_ANSWERS_ATTRIBUTE = 'chatMemoryAnswers';
/** Answers kept per contact, oldest dropped first: the largest window, all chats together. */
export const MAX_KEPT_ANSWERS = 100;
/** The attribute's size at most (characters of its JSON), oldest answers dropped first. */
export const MAX_KEPT_CHARS = 20_000;

/**
 * An answer kept: its chat, the API's time and ID of the newest message it answered (`after`,
 * `afterId`: it goes after that message and before anything newer, whatever n8n's clock says), and
 * its words.
 */
export interface KeptAnswer {
	chatId: string;
	after: string;
	afterId?: string;
	text: string;
}

/** The customer's contact as the memory found it: its ID and the answers it keeps. */
export interface KeptOnContact {
	contactId?: string;
	answers: KeptAnswer[];
}

const isRecord = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The answers an attribute value holds: a JSON array (or the array itself, where the API gives
 * back what it was sent). Entries that are not answers are left out; so is a value that is not
 * this memory's (someone else's use of the key), which the next answer replaces.
 */
export function keptAnswersOf(value: unknown): KeptAnswer[] {
	const parsed = typeof value === 'string' ? parseJson(value).parsed : value;
	if (!Array.isArray(parsed)) return [];
	return parsed.filter(isRecord).flatMap((entry) =>
		typeof entry.chatId === 'string' &&
		typeof entry.after === 'string' &&
		typeof entry.text === 'string'
			? [
					{
						chatId: entry.chatId,
						after: entry.after,
						...(typeof entry.afterId === 'string' ? { afterId: entry.afterId } : {}),
						text: entry.text,
					},
				]
			: [],
	);
}

/** The attribute's value with `answer` added: the newest kept within the count and size limits. */
export function withAnswer(kept: KeptAnswer[], answer: KeptAnswer): string {
	const answers = [...kept, answer].slice(-MAX_KEPT_ANSWERS);
	let value = JSON.stringify(answers);
	while (value.length > MAX_KEPT_CHARS && answers.length > 1) {
		answers.shift();
		value = JSON.stringify(answers);
	}
	return value;
}

/**
 * The contact of `phone` and the answers it keeps, in one search (docs/api.md, Contacts): the
 * contact whose phone is this one, not another that merely contains it. None: no answers yet.
 */
export async function readKeptAnswers(
	context: RequestContext,
	phone: string,
): Promise<KeptOnContact> {
	const found = toListPage(
		await apiRequest.call(context, 'GET', path`/messenger/contacts/search/${phone}`, {
			errorContext: { resource: 'Contact', id: phone },
		}),
	).items;
	const samePhone = (contact: IDataObject) => {
		try {
			return normalizePhone(contact.phone, 'phone') === phone;
		} catch {
			return false;
		}
	};
	const contact = found.filter(isRecord).find(samePhone);
	if (contact?.id === undefined) return { answers: [] };
	const attributes = isRecord(contact.attributes) ? contact.attributes : {};
	return {
		contactId: String(contact.id),
		answers: keptAnswersOf(attributes[KEPT_ANSWERS_ATTRIBUTE]),
	};
}

/**
 * Keeps `answer` on the contact of `phone` (one request), after the answers it already keeps. A
 * phone with no contact gets one, named by its phone, holding the answer: the chat of a customer
 * the workspace did not know yet.
 */
export async function keepAnswer(
	context: RequestContext,
	phone: string,
	found: KeptOnContact,
	answer: KeptAnswer,
): Promise<void> {
	const value = withAnswer(found.answers, answer);
	if (found.contactId === undefined) {
		await apiRequest.call(context, 'POST', path`/messenger/contacts`, {
			body: { name: phone, phone, attributes: { [KEPT_ANSWERS_ATTRIBUTE]: value } },
			errorContext: { resource: 'Contact', id: phone },
		});
		return;
	}
	await apiRequest.call(
		context,
		'PATCH',
		path`/messenger/contacts/${found.contactId}/attributes/${KEPT_ANSWERS_ATTRIBUTE}`,
		{ body: { value }, errorContext: { resource: 'Contact', id: found.contactId } },
	);
}
