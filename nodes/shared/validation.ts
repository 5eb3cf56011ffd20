import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { InputError } from './errors';

/** Text of a parameter that may arrive as text or as a number (from an expression). */
export function textOf(value: unknown): string {
	return typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
}

/**
 * Whether text can go into an API path as one (percent-encoded) segment: not empty, no control
 * characters, and not `.` or `..`, which URL parsing would resolve away even when encoded. The
 * one place that rule lives; IDs, keys, search terms and the path builder all use it.
 */
export function isPathSegment(text: string): boolean {
	return text !== '' && text !== '.' && text !== '..' && !/\p{Cc}/u.test(text);
}

/**
 * An id from a parameter, trimmed and checked before any request: ids are opaque strings, but
 * path separators, query or fragment marks and dot segments never belong in one.
 */
export function requireId(value: unknown, field: string): string {
	const id = textOf(value);
	if (id === '') {
		throw new InputError(`${field} is empty`, `Enter the ${field}, or pick one from the list.`);
	}
	if (/[/\\?#]/.test(id) || !isPathSegment(id)) {
		throw new InputError(
			`${field} "${id}" is not a valid ID`,
			`An ID cannot contain "/", "\\", "?", "#", control characters, or be "." or "..". Check the value or expression of ${field}.`,
		);
	}
	if (id.length > 200) {
		throw new InputError(`${field} is too long to be an ID (${id.length} characters)`);
	}
	return id;
}

/** A key (e.g. a contact attribute name) that goes into an API path as one segment. */
export function requireKey(value: unknown, field: string): string {
	const key = textOf(value);
	if (key === '') throw new InputError(`${field} is empty`);
	if (key.includes('/') || !isPathSegment(key)) {
		throw new InputError(
			`${field} "${key}" is not a valid key`,
			'A key cannot contain "/" or control characters, or be "." or "..".',
		);
	}
	if (key.length > 200) {
		throw new InputError(`${field} is too long (${key.length} characters, at most 200)`);
	}
	return key;
}

/** The ID picked in a resource locator parameter (any mode), checked as requireId does. */
export function locatorId(
	this: IExecuteFunctions,
	parameter: string,
	field: string,
	itemIndex: number,
): string {
	return requireId(this.getNodeParameter(parameter, itemIndex, '', { extractValue: true }), field);
}

/** JSON text parsed, or the parser's reason why it is not JSON. */
export function parseJson(text: string): { parsed?: unknown; reason?: string } {
	try {
		return { parsed: JSON.parse(text) as unknown };
	} catch (error) {
		return { reason: (error as Error).message };
	}
}

/**
 * A JSON object from a parameter that may arrive as text (typed by the user) or as an object
 * (from an expression). A parse error names the field and shows where the text went wrong.
 */
export function parseJsonObject(value: unknown, field: string): IDataObject {
	if (value === undefined || value === null || value === '') return {};
	if (typeof value === 'object' && !Array.isArray(value)) return value as IDataObject;
	if (typeof value !== 'string') throw new InputError(`${field} must be a JSON object`);
	const text = value.trim();
	if (text === '') return {};
	const { parsed, reason } = parseJson(text);
	if (reason !== undefined) {
		const position = Number(/position (\d+)/.exec(reason)?.[1]);
		const near = Number.isFinite(position)
			? ` near "${text.slice(Math.max(0, position - 15), position + 15)}" (character ${position + 1})`
			: '';
		throw new InputError(
			`${field} is not valid JSON${near}`,
			`${reason}. Example of a valid value: {"key": "value"}`,
		);
	}
	if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
		throw new InputError(`${field} must be a JSON object like {"key": "value"}`);
	}
	return parsed as IDataObject;
}

/** Name/value rows of an "Additional Query Parameters" collection as a query object. */
export function queryFromParameters(
	rows: Array<{ name?: string; value?: unknown }> | undefined,
): IDataObject {
	const query: IDataObject = {};
	for (const row of rows ?? []) {
		const name = String(row.name ?? '').trim();
		if (!name) throw new InputError('A row of Additional Query Parameters has no name');
		query[name] = row.value === undefined || row.value === null ? '' : String(row.value);
	}
	return query;
}

/** An ISO 8601 date or date-time, or a clear error naming the field. */
export function requireDate(value: unknown, field: string): string {
	const text = String(value ?? '').trim();
	if (text === '' || Number.isNaN(Date.parse(text))) {
		throw new InputError(
			`${field} "${text}" is not a date`,
			'Use an ISO 8601 date such as 2026-01-31 or 2026-01-31T08:00:00Z.',
		);
	}
	return text;
}

/** A number within [min, max], from a number or numeric text; the error names the field and range. */
export function requireNumberInRange(
	value: unknown,
	field: string,
	min: number,
	max: number,
): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number) || number < min || number > max) {
		throw new InputError(`${field} must be a number from ${min} to ${max}, got "${String(value)}"`);
	}
	return number;
}

/** One of the allowed values, or an error listing them. */
export function requireOneOf<T extends string>(
	value: unknown,
	field: string,
	allowed: readonly T[],
): T {
	const text = String(value ?? '').trim();
	if (!(allowed as readonly string[]).includes(text)) {
		throw new InputError(`${field} "${text}" is not one of ${allowed.join(', ')}`);
	}
	return text as T;
}

/** Non-empty text up to `maxLength` characters. */
export function requireText(
	value: unknown,
	field: string,
	{ maxLength = 4096, optional = false }: { maxLength?: number; optional?: boolean } = {},
): string {
	const text =
		typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
	if (text.trim() === '' && !optional) throw new InputError(`${field} is empty`);
	if (text.length > maxLength) {
		throw new InputError(`${field} is too long: ${text.length} characters, at most ${maxLength}`);
	}
	return text;
}

/** An http(s) URL, or an error naming the field. */
export function requireUrl(value: unknown, field: string): string {
	const text = String(value ?? '').trim();
	const protocol = URL.canParse(text) ? new URL(text).protocol : '';
	if (protocol !== 'http:' && protocol !== 'https:') {
		throw new InputError(
			`${field} "${text}" is not an http(s) URL`,
			'The file must be reachable by the API at a public address, e.g. https://example.com/brochure.pdf.',
		);
	}
	return text;
}

/** Whether text is an email address by the simple `name@domain.tld` shape. */
export function isEmail(text: string): boolean {
	return text.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text);
}

/** An email address by the simple `name@domain.tld` shape, or an error naming the field. */
export function requireEmail(value: unknown, field: string): string {
	const text = value === undefined || value === null ? '' : String(value).trim();
	if (text === '') throw new InputError(`${field} is empty`);
	if (!isEmail(text)) {
		throw new InputError(
			`${field} "${text}" is not an email address`,
			'Use an address like name@example.com.',
		);
	}
	return text;
}
