// Lists typed into one field (chats, broadcast message IDs): one rule for how entries are
// separated, shared by every list field, its description and its errors.
import { InputError } from './errors';
import { parseJson, requireId } from './validation';

/** What separates the entries of a list typed as text; a space does not (phones contain spaces). */
const LIST_SEPARATORS = /[,;\r\n]+/;
/** The same, said by the description of every list field and in errors. */
export const LIST_SEPARATORS_TEXT = 'commas, semicolons or new lines';

/**
 * The entries of a list parameter: an array (from an expression), a JSON array written as text,
 * or text with entries separated by commas, semicolons or new lines, each trimmed. Not empty, and
 * at most `max` entries; `advice` says what to do instead when there are more.
 */
export function requireList(
	value: unknown,
	field: string,
	{ max, advice }: { max: number; advice?: string },
): unknown[] {
	const entries = listEntries(value);
	if (entries.length === 0) throw new InputError(`${field} is empty`);
	if (entries.length > max) {
		throw new InputError(`${field} has ${entries.length} entries; at most ${max}`, advice);
	}
	return entries;
}

function listEntries(value: unknown): unknown[] {
	if (Array.isArray(value)) return value;
	if (typeof value === 'number') return [value];
	if (typeof value !== 'string') return [];
	const text = value.trim();
	// JSON that is not an array (or not JSON after all) is read as a list below.
	const { parsed } = text.startsWith('[') ? parseJson(text) : {};
	if (Array.isArray(parsed)) return parsed;
	return text
		.split(LIST_SEPARATORS)
		.map((entry) => entry.trim())
		.filter((entry) => entry !== '');
}

/**
 * An ID given as an entry of a list: checked as requireId does, and without spaces, which in a
 * list mean that entries were separated by spaces rather than by LIST_SEPARATORS.
 */
export function requireListId(value: unknown, field: string): string {
	const id = requireId(value, field);
	if (/\s/.test(id)) {
		throw new InputError(
			`${field} "${id}" contains a space`,
			`Separate the entries of a list with ${LIST_SEPARATORS_TEXT}: spaces belong to an entry, as in a phone number written +52 1 55 1234 5678.`,
		);
	}
	return id;
}
