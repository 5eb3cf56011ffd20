// Contact endpoints: create, get, search and attributes.
import { HttpError, failIfAny } from './errors.mjs';
import { findById, insert, nowIso } from './records.mjs';
import { EMAIL, checkPhone, checkString, isObject, requireObjectBody } from './validation.mjs';

/**
 * @typedef {import('../api.mjs').ApiContext} ApiContext
 * @typedef {import('../api.mjs').Handler} Handler
 */

/** @param {ApiContext} api @param {string} id */
function requireContact(api, id) {
	const contact = findById(api.state.contacts, id);
	if (!contact) throw new HttpError(404, 'Contact not found');
	return contact;
}

/** @type {Handler} */
export function createContact(api, { body: raw }) {
	const body = requireObjectBody(raw);
	/** @type {string[]} */
	const errors = [];
	checkString(body, 'name', errors);
	checkPhone(body, 'phone', errors);
	if (
		body.email !== undefined &&
		body.email !== null &&
		(typeof body.email !== 'string' || !EMAIL.test(body.email))
	) {
		errors.push('email must be an email');
	}
	if (body.attributes !== undefined && !isObject(body.attributes))
		errors.push('attributes must be an object');
	failIfAny(errors);
	const phone = /** @type {string} */ (body.phone);
	if (api.state.contacts.some((c) => c.phone === phone)) {
		throw new HttpError(409, `Contact with phone ${phone} already exists`);
	}
	const at = nowIso(api);
	const contact = insert(api.state.contacts, {
		id: api.newId('ctc'),
		name: /** @type {string} */ (body.name),
		phone,
		email: /** @type {string | null} */ (body.email ?? null),
		attributes: { .../** @type {Record<string, unknown>} */ (body.attributes ?? {}) },
		createdAt: at,
		updatedAt: at,
	});
	return { status: 201, body: contact };
}

/** @type {Handler} */
export function getContact(api, { params }) {
	return { status: 200, body: requireContact(api, params.id) };
}

/** @type {Handler} */
export function searchContacts(api, { params }) {
	const needle = params.customer.trim().toLowerCase();
	if (needle === '') throw new HttpError(400, ['customer should not be empty']);
	const found = api.state.contacts.filter(
		(c) =>
			c.name.toLowerCase().includes(needle) ||
			c.phone.includes(needle) ||
			(c.email ?? '').toLowerCase().includes(needle),
	);
	return { status: 200, body: found };
}

/** @type {Handler} */
export function updateContactAttribute(api, { params, body: raw }) {
	const contact = requireContact(api, params.id);
	const body = requireObjectBody(raw);
	if (!('value' in body)) throw new HttpError(400, ['value must be provided']);
	// defineProperty, not assignment, so a key like `__proto__` stays a plain attribute.
	Object.defineProperty(contact.attributes, params.key, {
		value: body.value,
		enumerable: true,
		writable: true,
		configurable: true,
	});
	contact.updatedAt = nowIso(api);
	return { status: 200, body: contact };
}

/** @type {Handler} */
export function replaceContactAttributes(api, { params, body: raw }) {
	const contact = requireContact(api, params.id);
	const body = requireObjectBody(raw);
	if (!isObject(body.attributes)) throw new HttpError(400, ['attributes must be an object']);
	contact.attributes = { ...body.attributes };
	contact.updatedAt = nowIso(api);
	return { status: 200, body: contact };
}
