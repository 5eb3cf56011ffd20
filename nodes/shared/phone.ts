// The one phone rule: every field that takes a phone (Messenger operations, broadcast recipients,
// the trigger's Chats) normalises and checks it here, and its description says so.
import { InputError } from './errors';
import { textOf } from './validation';

/**
 * What people write around the digits of a phone number and the API does not take: spaces of any
 * kind, dashes, dots, brackets, slashes, and the invisible direction marks that a number copied
 * from WhatsApp carries (`+52 1 55 1234-5678`).
 */
const PHONE_DECORATION = /[\s\p{Pd}.()/\p{Cf}]/gu;

/** A phone as written, without decoration, and with a leading international `00` as `+`. */
function phoneDigits(raw: string): string {
	const phone = raw.replace(PHONE_DECORATION, '');
	return phone.startsWith('00') ? `+${phone.slice(2)}` : phone;
}

/** How a phone may be written: said by the description of every field that takes one. */
export const PHONE_FORMAT_HINT =
	'international format (+ or 00, the country code and the number; spaces, dashes, dots and brackets are ignored, e.g. +52 1 55 1234 5678)';

/** Whether a list entry is meant as a phone number: it starts with `+` or `00`. */
export function isPhoneEntry(value: unknown): boolean {
	return phoneDigits(textOf(value)).startsWith('+');
}

/**
 * A phone number in E.164 (`+` and 8 to 15 digits): the one rule of every phone field. Decoration
 * (see PHONE_DECORATION) is dropped and a leading `00` becomes `+`; anything else is refused with
 * the value as written.
 */
export function normalizePhone(value: unknown, field: string): string {
	const raw = textOf(value);
	if (raw === '') {
		throw new InputError(
			`${field} is empty`,
			'Enter a phone number in international format, e.g. +34600123456.',
		);
	}
	const phone = phoneDigits(raw);
	if (!/^\+[1-9]\d{7,14}$/.test(phone)) {
		throw new InputError(
			`${field} "${raw}" is not a phone number in international format`,
			phoneAdvice(phone),
		);
	}
	return phone;
}

function phoneAdvice(phone: string): string {
	if (phone.lastIndexOf('+') > 0) {
		return 'It looks like more than one number: give one number per field, or per entry of a list.';
	}
	return phone.startsWith('+')
		? 'Use + followed by the country code and number, 8 to 15 digits in all, e.g. +34600123456.'
		: 'Add the + and the country code, e.g. +34600123456 instead of 600123456.';
}
