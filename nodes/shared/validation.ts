import type { IDataObject, INode } from 'n8n-workflow';
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
