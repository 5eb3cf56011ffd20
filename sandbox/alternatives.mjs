// Other answers the real API could give where its description says "not shown": one sandbox
// option (and one CLI flag) each. The defaults are the choices of docs/api.md; the integration
// suite runs the affected operations and triggers under each one (test/integration/shared/alternatives.*).

/**
 * @typedef {{
 *   listEnvelope: 'items' | 'data-meta' | 'total-only' | 'bare' | 'next-link',
 *   fixedPageSize: number,
 *   ignoreStatusFilter: boolean,
 *   historyOrder: 'sort' | 'asc',
 *   broadcastHistory: 'hidden' | 'shown',
 *   campaignOrder: 'sort' | 'asc',
 *   balanceShape: 'decisions' | 'available' | 'strings' | 'unknown',
 *   expiresInUnit: 's' | 'ms',
 *   opaqueToken: boolean,
 *   errorShape: 'decisions' | 'problem' | 'text',
 *   sendAnswer: 'message' | 'empty',
 *   mediaLinks: 'own' | 'storage' | 'redirect',
 *   mediaHeaders: 'full' | 'bare',
 *   callRecordShape: 'decisions' | 'snake' | 'minimal' | 'unknown',
 *   callDataOrder: 'upload' | 'last-change',
 *   calledAtStamps: 'start' | 'end',
 *   callDataPaging: 'pages' | 'all',
 * }} Alternatives
 */

/**
 * An alternative with a list of values, the first of them the default.
 * @param {string} flag @param {readonly string[]} values @param {string} says
 */
const choice = (flag, values, says) => ({ flag, default: values[0], values, says });

/**
 * option → its CLI flag, default (docs/api.md), allowed values (or kind) and what it changes.
 * @type {Readonly<Record<keyof Alternatives, { flag: string, default: unknown, values?: readonly string[], kind?: 'number' | 'boolean', says: string }>>}
 */
export const ALTERNATIVES = Object.freeze({
	listEnvelope: choice(
		'list-envelope',
		['items', 'data-meta', 'total-only', 'bare', 'next-link'],
		'paginated lists (agents, campaigns, campaign data, chat history) as { items, total, page, totalPages }, { data, meta: { currentPage, perPage, total, lastPage } }, { items, total }, a bare array, or { items, next } with a cursor link (page is then ignored)',
	),
	fixedPageSize: {
		flag: 'fixed-page-size',
		default: 0,
		kind: 'number',
		says: 'every page of a paginated list holds this many records, whatever limit asks (0: as asked)',
	},
	ignoreStatusFilter: {
		flag: 'ignore-status-filter',
		default: false,
		kind: 'boolean',
		says: 'the campaign list ignores its status filter and answers campaigns of every status',
	},
	historyOrder: choice(
		'history-order',
		['sort', 'asc'],
		'chat history in the order sort asks for, or always oldest first',
	),
	broadcastHistory: choice(
		'broadcast-history',
		['hidden', 'shown'],
		"a WhatsApp broadcast text stays out of the recipient's chat history, or shows there as an outbound text message",
	),
	campaignOrder: choice(
		'campaign-order',
		['sort', 'asc'],
		'the campaign list in the order sort asks for, or always oldest first',
	),
	balanceShape: choice(
		'balance-shape',
		['decisions', 'available', 'strings', 'unknown'],
		'balance as { credit, currency, minutes, ratePerMinute }, as { availableCredit, availableMinutes, ratePerMinute }, with numbers as strings, or as { amountLeft, currency, ratePerMinute } (names no trigger reads)',
	),
	expiresInUnit: choice(
		'expires-in-unit',
		['s', 'ms'],
		'expires_in of the token answer in seconds or in milliseconds',
	),
	opaqueToken: {
		flag: 'opaque-token',
		default: false,
		kind: 'boolean',
		says: 'access tokens are opaque strings, not JWTs (no exp claim to read)',
	},
	errorShape: choice(
		'error-shape',
		['decisions', 'problem', 'text'],
		'error bodies as { statusCode, message, error }, as RFC 9457 problem details { type, title, status, detail }, or as plain text',
	),
	sendAnswer: choice(
		'send-answer',
		['message', 'empty'],
		'message sends answer 200 with the message, or 201 with no body',
	),
	mediaLinks: choice(
		'media-links',
		['own', 'storage', 'redirect'],
		"a media message's content.url is on the API's own origin (token required), a signed link on a second origin standing in for storage (no token accepted), or on the own origin answering 302 to that storage link",
	),
	mediaHeaders: choice(
		'media-headers',
		['full', 'bare'],
		'media files come with Content-Type, Content-Length and Content-Disposition (the file name), or only as application/octet-stream, chunked, without a length or a name',
	),
	callRecordShape: choice(
		'call-record-shape',
		['decisions', 'snake', 'minimal', 'unknown'],
		'campaign data records as { phoneNumber, status, attempts, durationSeconds, result, calledAt }, as { phone, status, attempts, duration_seconds, result, called_at }, without attempts and calledAt, or as { msisdn, outcome, tries } (names no trigger reads)',
	),
	callDataOrder: choice(
		'call-data-order',
		['upload', 'last-change'],
		'campaign data in the order the numbers were uploaded, or the last changed first (pages shift while they are read); sort is ignored either way',
	),
	calledAtStamps: choice(
		'called-at-stamps',
		['start', 'end'],
		"what a campaign data record's calledAt stamps: the call's start (calledAt + durationSeconds is its end), or its end (while the number is called, the end of the attempt before, null on the first)",
	),
	callDataPaging: choice(
		'call-data-paging',
		['pages', 'all'],
		'campaign data in pages as page and limit ask, or every record in one answer whatever they ask',
	),
});

/** @type {Alternatives} */
export const DEFAULT_ALTERNATIVES = /** @type {Alternatives} */ (
	Object.freeze(Object.fromEntries(Object.entries(ALTERNATIVES).map(([k, v]) => [k, v.default])))
);

/**
 * A value for an alternative, checked: an unknown value is refused with what is allowed.
 * @param {keyof Alternatives} option @param {unknown} value
 */
export function checkAlternative(option, value) {
	const spec = ALTERNATIVES[option];
	const ok = spec.values
		? spec.values.includes(/** @type {string} */ (value))
		: spec.kind === 'boolean'
			? typeof value === 'boolean'
			: Number.isInteger(value) && /** @type {number} */ (value) >= 0;
	if (!ok) {
		const allowed = spec.values
			? spec.values.join(', ')
			: spec.kind === 'boolean'
				? 'true or false'
				: 'a whole number ≥ 0';
		throw new Error(`Sandbox option ${option} must be ${allowed}, got ${JSON.stringify(value)}`);
	}
	return value;
}

/** @param {Record<string, string>} query @param {string} name */
function offsetOf(query, name) {
	const value = Number(query[name]);
	return Number.isInteger(value) && value > 0 ? value : 0;
}

/**
 * One page of a list kept in ascending order, in the shape `listEnvelope` chooses and with
 * `fixedPageSize` records a page when set. `desc` pages run from the newest.
 * @template T
 * @param {Alternatives} options
 * @param {{ path: string, query: Record<string, string> }} request
 * @param {T[]} ascending
 * @param {{ page: number, limit: number, sort: 'asc' | 'desc' }} paging
 */
export function listAnswer(options, request, ascending, paging) {
	const limit = options.fixedPageSize > 0 ? options.fixedPageSize : paging.limit;
	const ordered = paging.sort === 'asc' ? ascending : [...ascending].reverse();
	const total = ordered.length;
	if (options.listEnvelope === 'next-link') {
		const offset = offsetOf(request.query, 'cursor');
		const items = ordered.slice(offset, offset + limit);
		const end = offset + items.length;
		const query = new URLSearchParams(request.query);
		query.delete('page');
		query.set('cursor', String(end));
		query.set('limit', String(limit));
		return { items, next: end < total ? `${request.path}?${query}` : null };
	}
	const items = ordered.slice((paging.page - 1) * limit, paging.page * limit);
	const totalPages = Math.ceil(total / limit);
	switch (options.listEnvelope) {
		case 'data-meta':
			return {
				data: items,
				meta: { currentPage: paging.page, perPage: limit, total, lastPage: totalPages },
			};
		case 'total-only':
			return { items, total };
		case 'bare':
			return items;
		default:
			return { items, total, page: paging.page, totalPages };
	}
}

/**
 * The balance in the shape `balanceShape` chooses.
 * @param {Alternatives} options
 * @param {{ credit: number, currency: string, minutes: number, ratePerMinute: number }} balance
 */
export function balanceAnswer(options, { credit, currency, minutes, ratePerMinute }) {
	if (options.balanceShape === 'available') {
		return { availableCredit: credit, availableMinutes: minutes, ratePerMinute };
	}
	if (options.balanceShape === 'unknown') return { amountLeft: credit, currency, ratePerMinute };
	if (options.balanceShape === 'strings') {
		return {
			credit: credit.toFixed(2),
			currency,
			minutes: String(minutes),
			ratePerMinute: String(ratePerMinute),
		};
	}
	return { credit, currency, minutes, ratePerMinute };
}

/**
 * The answer as it goes on the wire, in the error and send shapes the options choose.
 * @param {Alternatives} options
 * @param {{ method: string, path: string, status: number, body: unknown }} answer
 * @returns {{ status: number, text: string, contentType: string }}
 */
export function wireAnswer(options, { method, path, status, body }) {
	const json = 'application/json; charset=utf-8';
	const error = /** @type {{ statusCode?: number, message?: unknown, error?: string }} */ (body);
	if (status >= 400 && error && typeof error === 'object' && 'message' in error) {
		const detail = [].concat(/** @type {any} */ (error.message)).join('; ');
		if (options.errorShape === 'problem') {
			const problem = { type: 'about:blank', title: error.error, status, detail };
			return { status, text: JSON.stringify(problem), contentType: 'application/problem+json' };
		}
		if (options.errorShape === 'text') {
			return { status, text: detail, contentType: 'text/plain; charset=utf-8' };
		}
	}
	const send = method === 'POST' && path.startsWith('/api/v1/messenger/messages/send/');
	if (send && status < 300 && options.sendAnswer === 'empty') {
		return { status: 201, text: '', contentType: json };
	}
	return { status, text: JSON.stringify(body), contentType: json };
}
