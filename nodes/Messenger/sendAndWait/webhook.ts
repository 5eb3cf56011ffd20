import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { InputError } from '../../shared/errors';
import { isEmail } from '../../shared/validation';
import { fieldName, PAGE_CSP, RECORDED_PAGE, responsePage } from './pages';
import type { FormField, ResponseSettings } from './settings';
import { responseSettings } from './settings';

/** The most characters one answer field keeps. */
export const MAX_ANSWER_LENGTH = 10_000;

/** The posted fields: n8n puts a multipart body's fields under `data`, a urlencoded one at the top. */
function postedFields(body: IDataObject): Record<string, string> {
	const source = (body.data && typeof body.data === 'object' ? body.data : body) as IDataObject;
	const fields: Record<string, string> = {};
	for (const [name, value] of Object.entries(source)) {
		const first = Array.isArray(value) ? value[0] : value;
		if (typeof first === 'string' || typeof first === 'number') fields[name] = String(first);
	}
	return fields;
}

function fieldValue(field: FormField, raw: string): string | number | null {
	const value = raw.trim();
	if (value === '') {
		if (field.required) throw new InputError(`"${field.label}" is required`);
		return field.type === 'number' ? null : '';
	}
	if (value.length > MAX_ANSWER_LENGTH) {
		throw new InputError(`"${field.label}" is too long: at most ${MAX_ANSWER_LENGTH} characters`);
	}
	if (field.type === 'number') {
		const number = Number(value);
		if (!Number.isFinite(number)) throw new InputError(`"${field.label}" must be a number`);
		return number;
	}
	if (field.type === 'email' && !isEmail(value)) {
		throw new InputError(`"${field.label}" must be an email address`);
	}
	if (field.type === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(value)) {
		throw new InputError(`"${field.label}" must be a date`);
	}
	if (field.type === 'dropdown' && !field.options.includes(value)) {
		throw new InputError(`"${field.label}" must be one of the choices`);
	}
	return value;
}

/** The answer as the node outputs it under `data`, or an InputError saying what is missing. */
export function readAnswer(
	settings: ResponseSettings,
	posted: Record<string, string>,
): IDataObject {
	if (settings.responseType === 'approval') {
		const approved = posted.approved;
		if (approved === 'true') return { approved: true };
		if (approved === 'false' && settings.disapproveLabel !== undefined) return { approved: false };
		throw new InputError('Choose one of the buttons');
	}
	if (settings.responseType === 'freeText') {
		const text = posted[fieldName(0)] ?? '';
		if (text.trim() === '') throw new InputError('Write a response');
		if (text.length > MAX_ANSWER_LENGTH) {
			throw new InputError(`The response is too long: at most ${MAX_ANSWER_LENGTH} characters`);
		}
		return { text };
	}
	const data: IDataObject = {};
	settings.fields.forEach((field, index) => {
		data[field.label] = fieldValue(field, posted[fieldName(index)] ?? '');
	});
	return data;
}

function sendPage(context: IWebhookFunctions, status: number, html: string): IWebhookResponseData {
	const res = context.getResponseObject();
	res.status(status);
	res.setHeader('Content-Type', 'text/html; charset=utf-8');
	res.setHeader('Content-Security-Policy', PAGE_CSP);
	res.setHeader('Cache-Control', 'no-store');
	res.setHeader('X-Content-Type-Options', 'nosniff');
	res.end(html);
	return { noWebhookResponse: true };
}

/**
 * The signed link of Send and Wait for Response (n8n has checked the signature and that the
 * execution still waits here): GET shows the page and changes nothing, so link previews and
 * scanners cannot answer; POST records the answer and the execution goes on with `{ data }`. A
 * submission that lacks something shows the page again and the execution keeps waiting.
 */
export async function sendAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const message = String(this.getNodeParameter('message', '') ?? '');
	const settings = responseSettings(
		(name, fallback) => this.getNodeParameter(name, fallback),
		message,
	);
	if (this.getRequestObject().method !== 'POST') {
		return sendPage(this, 200, responsePage(settings));
	}
	const posted = postedFields((this.getBodyData() ?? {}) as IDataObject);
	let answer: IDataObject;
	try {
		answer = readAnswer(settings, posted);
	} catch (error) {
		// readAnswer throws InputError only: what the person must fix, shown on the page.
		const problem = (error as Error).message;
		return sendPage(this, 400, responsePage(settings, { error: problem, values: posted }));
	}
	// respondedAt last, so that a form field of that name cannot replace it (as n8n's nodes do).
	const data = { ...answer, respondedAt: new Date().toISOString() };
	return { webhookResponse: RECORDED_PAGE, workflowData: [[{ json: { data } }]] };
}
