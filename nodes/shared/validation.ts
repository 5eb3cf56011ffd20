import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * An id from a parameter, trimmed and checked before any request: ids are opaque strings, but
 * path separators, query or fragment marks and dot segments never belong in one.
 */
export function requireId(node: INode, value: unknown, field: string, itemIndex: number): string {
	const id =
		typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
	if (id === '') {
		throw new NodeOperationError(node, `${field} is empty`, {
			itemIndex,
			description: `Enter the ${field}, or pick one from the list.`,
		});
	}
	if (/[/\\?#]/.test(id) || id === '.' || id === '..' || /\p{Cc}/u.test(id)) {
		throw new NodeOperationError(node, `${field} "${id}" is not a valid ID`, {
			itemIndex,
			description: `An ID cannot contain "/", "\\", "?", "#", control characters, or be "." or "..". Check the value or expression of ${field}.`,
		});
	}
	if (id.length > 200) {
		throw new NodeOperationError(
			node,
			`${field} is too long to be an ID (${id.length} characters)`,
			{
				itemIndex,
			},
		);
	}
	return id;
}

/**
 * A JSON object from a parameter that may arrive as text (typed by the user) or as an object
 * (from an expression). A parse error names the field and shows where the text went wrong.
 */
export function parseJsonObject(
	node: INode,
	value: unknown,
	field: string,
	itemIndex: number,
): IDataObject {
	if (value === undefined || value === null || value === '') return {};
	if (typeof value === 'object' && !Array.isArray(value)) return value as IDataObject;
	if (typeof value !== 'string') {
		throw new NodeOperationError(node, `${field} must be a JSON object`, { itemIndex });
	}
	const text = value.trim();
	if (text === '') return {};
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch (error) {
		const reason = (error as Error).message;
		const position = Number(/position (\d+)/.exec(reason)?.[1]);
		const near = Number.isFinite(position)
			? ` near "${text.slice(Math.max(0, position - 15), position + 15)}" (character ${position + 1})`
			: '';
		throw new NodeOperationError(node, `${field} is not valid JSON${near}`, {
			itemIndex,
			description: `${reason}. Example of a valid value: {"key": "value"}`,
		});
	}
	if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
		throw new NodeOperationError(node, `${field} must be a JSON object like {"key": "value"}`, {
			itemIndex,
		});
	}
	return parsed as IDataObject;
}

/** Name/value rows of an "Additional Query Parameters" collection as a query object. */
export function queryFromParameters(
	node: INode,
	rows: Array<{ name?: string; value?: unknown }> | undefined,
	itemIndex: number,
): IDataObject {
	const query: IDataObject = {};
	for (const row of rows ?? []) {
		const name = String(row.name ?? '').trim();
		if (!name) {
			throw new NodeOperationError(node, 'A row of Additional Query Parameters has no name', {
				itemIndex,
			});
		}
		query[name] = row.value === undefined || row.value === null ? '' : String(row.value);
	}
	return query;
}

/** An ISO 8601 date or date-time, or a clear error naming the field. */
export function requireDate(node: INode, value: unknown, field: string, itemIndex: number): string {
	const text = String(value ?? '').trim();
	if (text === '' || Number.isNaN(Date.parse(text))) {
		throw new NodeOperationError(node, `${field} "${text}" is not a date`, {
			itemIndex,
			description: 'Use an ISO 8601 date such as 2026-01-31 or 2026-01-31T08:00:00Z.',
		});
	}
	return text;
}

/**
 * A phone number in E.164 (`+` and 8 to 15 digits). Spaces, dashes, dots and brackets are
 * dropped and a leading international `00` becomes `+`; anything else is refused with the value.
 */
export function normalizePhone(
	node: INode,
	value: unknown,
	field: string,
	itemIndex: number,
): string {
	const raw =
		typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
	if (raw === '') {
		throw new NodeOperationError(node, `${field} is empty`, {
			itemIndex,
			description: 'Enter a phone number in international format, e.g. +34600123456.',
		});
	}
	let phone = raw.replace(/[\s\-.()/]/g, '');
	if (phone.startsWith('00')) phone = `+${phone.slice(2)}`;
	if (!/^\+[1-9]\d{7,14}$/.test(phone)) {
		throw new NodeOperationError(
			node,
			`${field} "${raw}" is not a phone number in international format`,
			{
				itemIndex,
				description: phone.startsWith('+')
					? 'Use + followed by the country code and number, 8 to 15 digits in all, e.g. +34600123456.'
					: 'Add the + and the country code, e.g. +34600123456 instead of 600123456.',
			},
		);
	}
	return phone;
}

/** A number within [min, max], from a number or numeric text; the error names the field and range. */
export function requireNumberInRange(
	node: INode,
	value: unknown,
	field: string,
	min: number,
	max: number,
	itemIndex: number,
): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number) || number < min || number > max) {
		throw new NodeOperationError(
			node,
			`${field} must be a number from ${min} to ${max}, got "${String(value)}"`,
			{
				itemIndex,
			},
		);
	}
	return number;
}

/** One of the allowed values, or an error listing them. */
export function requireOneOf<T extends string>(
	node: INode,
	value: unknown,
	field: string,
	allowed: readonly T[],
	itemIndex: number,
): T {
	const text = String(value ?? '').trim();
	if (!(allowed as readonly string[]).includes(text)) {
		throw new NodeOperationError(node, `${field} "${text}" is not one of ${allowed.join(', ')}`, {
			itemIndex,
		});
	}
	return text as T;
}

/** Non-empty text up to `maxLength` characters. */
export function requireText(
	node: INode,
	value: unknown,
	field: string,
	itemIndex: number,
	{ maxLength = 4096, optional = false }: { maxLength?: number; optional?: boolean } = {},
): string {
	const text =
		typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
	if (text.trim() === '' && !optional) {
		throw new NodeOperationError(node, `${field} is empty`, { itemIndex });
	}
	if (text.length > maxLength) {
		throw new NodeOperationError(
			node,
			`${field} is too long: ${text.length} characters, at most ${maxLength}`,
			{
				itemIndex,
			},
		);
	}
	return text;
}

/** The ID picked in a resource locator parameter (any mode), checked as requireId does. */
export function locatorId(
	this: IExecuteFunctions,
	parameter: string,
	field: string,
	itemIndex: number,
): string {
	return requireId(
		this.getNode(),
		this.getNodeParameter(parameter, itemIndex, '', { extractValue: true }),
		field,
		itemIndex,
	);
}

/** An http(s) URL, or an error naming the field. */
export function requireUrl(node: INode, value: unknown, field: string, itemIndex: number): string {
	const text = String(value ?? '').trim();
	let ok = false;
	try {
		const parsed = new URL(text);
		ok = parsed.protocol === 'http:' || parsed.protocol === 'https:';
	} catch {
		ok = false;
	}
	if (!ok) {
		throw new NodeOperationError(node, `${field} "${text}" is not an http(s) URL`, {
			itemIndex,
			description:
				'The file must be reachable by the API at a public address, e.g. https://example.com/brochure.pdf.',
		});
	}
	return text;
}

/** An email address by the simple `name@domain.tld` shape, or an error naming the field. */
export function requireEmail(
	node: INode,
	value: unknown,
	field: string,
	itemIndex: number,
): string {
	const text = value === undefined || value === null ? '' : String(value).trim();
	if (text === '') {
		throw new NodeOperationError(node, `${field} is empty`, { itemIndex });
	}
	if (text.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text)) {
		throw new NodeOperationError(node, `${field} "${text}" is not an email address`, {
			itemIndex,
			description: 'Use an address like name@example.com.',
		});
	}
	return text;
}

/**
 * A key (e.g. a contact attribute name) that goes into an API path as one segment: non-empty,
 * no "/", no control characters, not "." or "..".
 */
export function requireKey(node: INode, value: unknown, field: string, itemIndex: number): string {
	const key =
		typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
	if (key === '') {
		throw new NodeOperationError(node, `${field} is empty`, { itemIndex });
	}
	if (key.includes('/') || key === '.' || key === '..' || /\p{Cc}/u.test(key)) {
		throw new NodeOperationError(node, `${field} "${key}" is not a valid key`, {
			itemIndex,
			description: 'A key cannot contain "/" or control characters, or be "." or "..".',
		});
	}
	if (key.length > 200) {
		throw new NodeOperationError(
			node,
			`${field} is too long (${key.length} characters, at most 200)`,
			{
				itemIndex,
			},
		);
	}
	return key;
}

/**
 * A list of ids from a parameter: an array (from an expression), a JSON array written as text,
 * or text with ids separated by commas, spaces, semicolons or new lines.
 */
export function idList(value: unknown): unknown[] {
	if (Array.isArray(value)) return value;
	if (typeof value === 'number') return [value];
	if (typeof value !== 'string') return [];
	const text = value.trim();
	if (text.startsWith('[')) {
		try {
			const parsed = JSON.parse(text) as unknown;
			if (Array.isArray(parsed)) return parsed;
		} catch {
			// Not JSON after all: read it as a list below.
		}
	}
	return text.split(/[\s,;]+/).filter((id) => id !== '');
}
