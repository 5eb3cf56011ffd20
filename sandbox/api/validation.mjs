// Request checks shared by the endpoints: bodies, strings, phones, media and paging. Problems
// are collected as the API's 400 message array (see errors.mjs).
import { listAnswer } from '../alternatives.mjs';
import { HttpError } from './errors.mjs';

/**
 * @typedef {import('../api.mjs').ApiContext} ApiContext
 * @typedef {import('../api.mjs').RequestInput} RequestInput
 */

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 10;

export const E164 = /^\+\d{8,15}$/;
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const MEDIA_TYPES = ['image', 'video', 'audio', 'document'];
export const PHONE_RULE = 'must be a valid E.164 phone number (+ and 8 to 15 digits)';

/** @param {unknown} value @returns {value is Record<string, unknown>} */
export const isObject = (value) =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** @param {unknown} value */
function isHttpUrl(value) {
	if (typeof value !== 'string') return false;
	try {
		const url = new URL(value);
		return url.protocol === 'http:' || url.protocol === 'https:';
	} catch {
		return false;
	}
}

/** @param {string} name @param {readonly string[]} values */
export const oneOf = (name, values) =>
	`${name} must be one of the following values: ${values.join(', ')}`;

/** @param {unknown} body @returns {Record<string, unknown>} */
export function requireObjectBody(body) {
	if (!isObject(body)) throw new HttpError(400, ['body must be a JSON object']);
	return body;
}

/**
 * @param {Record<string, unknown>} body @param {string} name @param {string[]} errors
 * @param {{ optional?: boolean }} [rules]
 */
export function checkString(body, name, errors, rules = {}) {
	const value = body[name];
	if (value === undefined || value === null) {
		if (!rules.optional) errors.push(`${name} must be a string`, `${name} should not be empty`);
		return;
	}
	if (typeof value !== 'string') errors.push(`${name} must be a string`);
	else if (!rules.optional && value.trim() === '') errors.push(`${name} should not be empty`);
}

/** @param {Record<string, unknown>} body @param {string} name @param {string[]} errors */
export function checkPhone(body, name, errors) {
	if (typeof body[name] !== 'string' || !E164.test(body[name]))
		errors.push(`${name} ${PHONE_RULE}`);
}

/** @param {Record<string, unknown>} body @param {string[]} errors */
export function checkMedia(body, errors) {
	if (!isHttpUrl(body.url)) errors.push('url must be a valid http(s) URL');
	if (!MEDIA_TYPES.includes(/** @type {string} */ (body.type)))
		errors.push(oneOf('type', MEDIA_TYPES));
	checkString(body, 'caption', errors, { optional: true });
	checkString(body, 'fileName', errors, { optional: true });
}

/**
 * @param {Record<string, string>} query
 * @param {{ sortable?: boolean }} [rules]
 */
export function parsePaging(query, rules = { sortable: true }) {
	/** @type {string[]} */
	const errors = [];
	let page = 1;
	let limit = DEFAULT_PAGE_SIZE;
	/** @type {'asc' | 'desc'} */
	let sort = 'desc';
	if (query.page !== undefined) {
		if (!/^\d+$/.test(query.page) || Number(query.page) < 1)
			errors.push('page must be a positive integer');
		else page = Number(query.page);
	}
	if (query.limit !== undefined) {
		if (!/^\d+$/.test(query.limit)) errors.push('limit must be a positive integer');
		else if (Number(query.limit) < 1) errors.push('limit must not be less than 1');
		else if (Number(query.limit) > MAX_PAGE_SIZE)
			errors.push(`limit must not be greater than ${MAX_PAGE_SIZE}`);
		else limit = Number(query.limit);
	}
	if (rules.sortable && query.sort !== undefined) {
		if (query.sort !== 'asc' && query.sort !== 'desc') errors.push(oneOf('sort', ['asc', 'desc']));
		else sort = query.sort;
	}
	return { errors, page, limit, sort };
}

/**
 * One page of records kept in ascending order, in the list shape the sandbox's options choose
 * (docs/api.md by default: `{ items, total, page, totalPages }`).
 * @template T
 * @param {ApiContext} api @param {RequestInput} input
 * @param {T[]} ascending @param {{ page: number, limit: number, sort: 'asc' | 'desc' }} paging
 */
export function pageOf(api, { req, query }, ascending, paging) {
	const path = String(req?.url ?? '').split('?')[0];
	return listAnswer(api.options, { path, query }, ascending, paging);
}
