import type { IDataObject } from 'n8n-workflow';

import { UnexpectedAnswerError } from './errors';

/**
 * The fields a record came with, as `name (type)`, for an error's description: field names are
 * the server's words and may hold a system error code (`ratePerMinute`), so never the message.
 */
export function fieldsOf(record: unknown): string {
	if (record === null || typeof record !== 'object' || Array.isArray(record)) {
		return `no fields: the answer was ${Array.isArray(record) ? 'an array' : (JSON.stringify(record) ?? 'empty')}`;
	}
	const entries = Object.entries(record as IDataObject);
	if (entries.length === 0) return 'no fields: the answer was {}';
	const listed = entries
		.slice(0, 25)
		.map(([name, value]) => `${name} (${value === null ? 'null' : typeof value})`);
	return `${listed.join(', ')}${entries.length > 25 ? `, and ${entries.length - 25} more` : ''}`;
}

/** What a field check needs to say: which answer, and the way around it for the user. */
export interface FieldContext {
	/** e.g. 'The balance', 'A campaign in the list': the message starts with it. */
	subject: string;
	/** What to do when the API names or types the field differently. */
	workaround: string;
}

/** The error for a field missing or of another type: our words in the message, what came in the description. */
export function missingField(
	record: unknown,
	spellings: readonly string[],
	expected: string,
	context: FieldContext,
): UnexpectedAnswerError {
	const [name, ...others] = spellings;
	const also = others.length ? ` (also read as ${others.join(', ')})` : '';
	return new UnexpectedAnswerError(
		`${context.subject} has no ${expected} "${name}" field`,
		`Expected "${name}"${also}, ${expected}. Fields received: ${fieldsOf(record)}. ${context.workaround}`,
	);
}

/** The first of `spellings` the record has (not null or undefined). */
export function fieldValue(record: unknown, spellings: readonly string[]): unknown {
	if (record === null || typeof record !== 'object') return undefined;
	for (const name of spellings) {
		const value = (record as IDataObject)[name];
		if (value !== undefined && value !== null) return value;
	}
	return undefined;
}

/** A finite number (a numeric string counts) under one of `spellings`, or the error naming it. */
export function numberField(
	record: unknown,
	spellings: readonly string[],
	context: FieldContext,
): number {
	const value = fieldValue(record, spellings);
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number === 'number' && Number.isFinite(number)) return number;
	throw missingField(record, spellings, 'numeric', context);
}

/** A non-empty text (a number counts, as IDs may be numbers) under one of `spellings`. */
export function textField(
	record: unknown,
	spellings: readonly string[],
	context: FieldContext,
): string {
	const value = fieldValue(record, spellings);
	if ((typeof value === 'string' && value !== '') || typeof value === 'number') {
		return String(value);
	}
	throw missingField(record, spellings, 'text', context);
}

/** A timestamp under one of `spellings`, as the API wrote it, when it reads as a date. */
export function dateField(
	record: unknown,
	spellings: readonly string[],
	context: FieldContext,
): string {
	const value = fieldValue(record, spellings);
	if (typeof value === 'string' && !Number.isNaN(Date.parse(value))) return value;
	throw missingField(record, spellings, 'date', context);
}
