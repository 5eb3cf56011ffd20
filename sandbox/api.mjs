// Endpoint handlers, request validation and state transitions of the sandbox's Integration API.
import { createHash } from 'node:crypto';
import busboy from 'busboy';
import { balanceAnswer, listAnswer } from './alternatives.mjs';
import { INBOUND_TEXTS, createRandom, finishedCall, hashString } from './data.mjs';

/**
 * @typedef {import('./data.mjs').SandboxState} SandboxState
 * @typedef {import('./data.mjs').Campaign} Campaign
 * @typedef {import('./data.mjs').CampaignStatus} CampaignStatus
 * @typedef {import('./data.mjs').Chat} Chat
 * @typedef {import('./data.mjs').Message} Message
 * @typedef {import('./data.mjs').BroadcastMessage} BroadcastMessage
 * @typedef {import('./data.mjs').Random} Random
 *
 * What handlers need from the running sandbox.
 * @typedef {{
 *   options: import('./alternatives.mjs').Alternatives,
 *   state: SandboxState,
 *   seed: number,
 *   random: Random,
 *   newId: (prefix: string) => string,
 *   onSent?: (sent: import('./data.mjs').SentMessage) => void,
 *   maxUploadBytes: () => number,
 * }} ApiContext
 *
 * @typedef {{ params: Record<string, string>, query: Record<string, string>, body: unknown, req: import('node:http').IncomingMessage }} RequestInput
 * @typedef {{ status: number, body: unknown, headers?: Record<string, string> }} ApiResult
 * @typedef {(api: ApiContext, input: RequestInput) => ApiResult | Promise<ApiResult>} Handler
 * @typedef {{ method: string, segments: string[], scope?: 'voicebot' | 'messenger', body?: 'json' | 'multipart', handler: Handler }} Route
 */

/** The largest file a media upload takes, unless the sandbox is started with `maxUploadBytes`. */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 10;
const MAX_TREND_PERIODS = 1000;
const MAX_BROADCAST_RECIPIENTS = 1000;

const STATUS_NAMES = /** @type {Record<number, string>} */ ({
	400: 'Bad Request',
	401: 'Unauthorized',
	403: 'Forbidden',
	404: 'Not Found',
	409: 'Conflict',
	413: 'Payload Too Large',
	429: 'Too Many Requests',
	500: 'Internal Server Error',
});

/** An error that becomes the response `{ statusCode, message, error }`. */
export class HttpError extends Error {
	/**
	 * @param {number} statusCode
	 * @param {string | string[]} message an array for validation errors
	 * @param {Record<string, string>} [headers]
	 */
	constructor(statusCode, message, headers) {
		super(Array.isArray(message) ? message.join('; ') : message);
		this.statusCode = statusCode;
		this.responseMessage = message;
		this.headers = headers;
	}

	toBody() {
		return {
			statusCode: this.statusCode,
			message: this.responseMessage,
			error: STATUS_NAMES[this.statusCode] ?? 'Error',
		};
	}
}

/** @param {string[]} errors */
function failIfAny(errors) {
	if (errors.length > 0) throw new HttpError(400, errors);
}

const nowIso = () => new Date().toISOString();

// ---------------------------------------------------------------- lookup by id

/** @type {WeakMap<object[], { byId: Map<string, number>, length: number }>} */
const indexes = new WeakMap();

/**
 * Id lookup that stays O(1) for 10,000 records and still sees records tests push or replace.
 * @template {{ id: string }} T
 * @param {T[]} items @param {string} id
 * @returns {T | undefined}
 */
export function findById(items, id) {
	const index = indexes.get(items);
	if (index) {
		const position = index.byId.get(id);
		if (position !== undefined && items[position]?.id === id) return items[position];
		if (index.length === items.length && position === undefined) {
			// Same length and not indexed: a plain scan catches in-place replacements.
			const found = items.findIndex((item) => item.id === id);
			if (found === -1) return undefined;
		}
	}
	const byId = new Map();
	for (let i = 0; i < items.length; i++) byId.set(items[i].id, i);
	indexes.set(items, { byId, length: items.length });
	const position = byId.get(id);
	return position === undefined ? undefined : items[position];
}

/**
 * @template {{ id: string }} T
 * @param {T[]} items @param {T} item
 */
export function insert(items, item) {
	const index = indexes.get(items);
	items.push(item);
	if (index && index.length === items.length - 1) {
		index.byId.set(item.id, items.length - 1);
		index.length = items.length;
	}
	return item;
}

// ---------------------------------------------------------------- validation

const E164 = /^\+\d{8,15}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MEDIA_TYPES = ['image', 'video', 'audio', 'document'];
const CAMPAIGN_STATUSES = ['pending', 'in_progress', 'completed', 'cancelled', 'failed'];
const FINAL_CAMPAIGN_STATUSES = ['completed', 'cancelled', 'failed'];
const CHANNELS = ['whatsapp', 'sms', 'email'];
const GRANULARITIES = ['day', 'week', 'month'];
const PHONE_RULE = 'must be a valid E.164 phone number (+ and 8 to 15 digits)';

/** @param {unknown} value @returns {value is Record<string, unknown>} */
const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

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
const oneOf = (name, values) => `${name} must be one of the following values: ${values.join(', ')}`;

/** @param {unknown} body @returns {Record<string, unknown>} */
function requireObjectBody(body) {
	if (!isObject(body)) throw new HttpError(400, ['body must be a JSON object']);
	return body;
}

/**
 * @param {Record<string, unknown>} body @param {string} name @param {string[]} errors
 * @param {{ optional?: boolean }} [rules]
 */
function checkString(body, name, errors, rules = {}) {
	const value = body[name];
	if (value === undefined || value === null) {
		if (!rules.optional) errors.push(`${name} must be a string`, `${name} should not be empty`);
		return;
	}
	if (typeof value !== 'string') errors.push(`${name} must be a string`);
	else if (!rules.optional && value.trim() === '') errors.push(`${name} should not be empty`);
}

/** @param {Record<string, unknown>} body @param {string} name @param {string[]} errors */
function checkPhone(body, name, errors) {
	if (typeof body[name] !== 'string' || !E164.test(body[name]))
		errors.push(`${name} ${PHONE_RULE}`);
}

/** @param {Record<string, unknown>} body @param {string[]} errors */
function checkMedia(body, errors) {
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
function pageOf(api, { req, query }, ascending, paging) {
	const path = String(req?.url ?? '').split('?')[0];
	return listAnswer(api.options, { path, query }, ascending, paging);
}

// ---------------------------------------------------------------- state transitions

/**
 * How a running campaign ends, fixed per id so runs repeat: about 1 in 7 fails, and always when
 * the name contains `[fail]`.
 * @param {ApiContext} api @param {Campaign} campaign
 * @returns {'completed' | 'failed'}
 */
export function campaignFate(api, campaign) {
	if (campaign.name.includes('[fail]')) return 'failed';
	return hashString(`${api.seed}:fate:${campaign.id}`) % 100 < 15 ? 'failed' : 'completed';
}

/**
 * Moves a campaign to `status` and keeps its per-number data (if built) consistent.
 * @param {ApiContext} api @param {Campaign} campaign @param {CampaignStatus} status
 */
export function transitionCampaign(api, campaign, status) {
	const at = nowIso();
	campaign.status = status;
	campaign.updatedAt = at;
	const records = api.state.campaignData.built?.(campaign.id) ?? undefined;
	if (!records) return;
	const random = createRandom(hashString(`${api.seed}:progress:${campaign.id}:${status}`));
	for (let i = 0; i < records.length; i++) {
		const record = records[i];
		if (status === 'in_progress') {
			if (record.status === 'pending') {
				records[i] = { ...record, status: 'calling', attempts: 1, calledAt: at };
				return;
			}
		} else if (status === 'completed') {
			if (record.status === 'pending' || record.status === 'calling') {
				records[i] = finishedCall(random, record.phoneNumber, record.calledAt ?? at);
			}
		} else if (status === 'failed') {
			if (record.status === 'calling')
				records[i] = { ...record, status: 'failed', result: 'network_error' };
			else if (record.status === 'pending')
				records[i] = { ...record, status: 'failed', result: 'campaign_failed' };
		} else if (status === 'cancelled' && record.status === 'calling') {
			records[i] = { ...record, status: 'failed', result: 'cancelled' };
		}
	}
}

/**
 * Broadcast messages to a phone ending in `0000` or an email starting with `fail` fail at once;
 * about 1 in 10 others fail after `sent`; the rest reach `read`.
 * @param {ApiContext} api @param {BroadcastMessage} message
 * @returns {'failNow' | 'failAfterSent' | 'read'}
 */
function broadcastFate(api, message) {
	if (/0000$/.test(message.recipient) || /^fail/i.test(message.recipient)) return 'failNow';
	return hashString(`${api.seed}:fate:${message.id}`) % 10 === 0 ? 'failAfterSent' : 'read';
}

/**
 * One progression step for every non-final campaign and broadcast message.
 * @param {ApiContext} api
 */
export function advanceOnce(api) {
	for (const campaign of api.state.campaigns) {
		if (campaign.status === 'pending') transitionCampaign(api, campaign, 'in_progress');
		else if (campaign.status === 'in_progress')
			transitionCampaign(api, campaign, campaignFate(api, campaign));
	}
	for (const message of api.state.broadcastMessages) {
		if (message.status === 'read' || message.status === 'failed') continue;
		const fate = broadcastFate(api, message);
		/** @type {BroadcastMessage['status']} */
		let next;
		if (message.status === 'queued') next = fate === 'failNow' ? 'failed' : 'sent';
		else if (message.status === 'sent') next = fate === 'failAfterSent' ? 'failed' : 'delivered';
		else next = 'read';
		message.status = next;
		message.updatedAt = nowIso();
		if (next === 'failed')
			message.error = fate === 'failNow' ? 'Recipient unreachable' : 'Delivery failed';
	}
}

// ---------------------------------------------------------------- voice

/** @type {Handler} */
function listAgents(api, input) {
	const paging = parsePaging(input.query);
	failIfAny(paging.errors);
	return { status: 200, body: pageOf(api, input, api.state.agents, paging) };
}

/** @type {Handler} */
function getAgent(api, { params }) {
	const agent = findById(api.state.agents, params.id);
	if (!agent) throw new HttpError(404, 'Agent not found');
	return { status: 200, body: agent };
}

/** @type {Handler} */
function listCampaigns(api, input) {
	const { query } = input;
	const paging = parsePaging(query);
	if (api.options.campaignOrder === 'asc') paging.sort = 'asc';
	if (query.status !== undefined && !CAMPAIGN_STATUSES.includes(query.status)) {
		paging.errors.push(oneOf('status', CAMPAIGN_STATUSES));
	}
	failIfAny(paging.errors);
	const campaigns = api.state.campaigns;
	const matching =
		query.status === undefined || api.options.ignoreStatusFilter
			? campaigns
			: campaigns.filter((c) => c.status === query.status);
	return { status: 200, body: pageOf(api, input, matching, paging) };
}

/** @param {ApiContext} api @param {string} id */
function requireCampaign(api, id) {
	const campaign = findById(api.state.campaigns, id);
	if (!campaign) throw new HttpError(404, 'Campaign not found');
	return campaign;
}

/** @type {Handler} */
function getCampaign(api, { params }) {
	return { status: 200, body: requireCampaign(api, params.id) };
}

/** @type {Handler} */
function cancelCampaign(api, { params }) {
	const campaign = requireCampaign(api, params.id);
	if (FINAL_CAMPAIGN_STATUSES.includes(campaign.status)) {
		throw new HttpError(409, `Campaign is already ${campaign.status}`);
	}
	transitionCampaign(api, campaign, 'cancelled');
	return { status: 200, body: campaign };
}

/** @type {Handler} */
function getCampaignData(api, input) {
	const campaign = requireCampaign(api, input.params.id);
	const paging = parsePaging(input.query, { sortable: false });
	failIfAny(paging.errors);
	const records = api.state.campaignData.get(campaign.id) ?? [];
	return { status: 200, body: pageOf(api, input, records, { ...paging, sort: 'asc' }) };
}

/** @type {Handler} */
function getBalance(api) {
	return { status: 200, body: balanceAnswer(api.options, api.state.balance) };
}

const DAY_MS = 86_400_000;

/** @param {number} ms @param {string} granularity start of the UTC period containing ms */
function periodStart(ms, granularity) {
	const d = new Date(ms);
	const day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
	if (granularity === 'day') return day;
	if (granularity === 'week') return day - ((d.getUTCDay() + 6) % 7) * DAY_MS;
	return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** @param {number} start @param {string} granularity */
function nextPeriod(start, granularity) {
	if (granularity === 'day') return start + DAY_MS;
	if (granularity === 'week') return start + 7 * DAY_MS;
	const d = new Date(start);
	return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/**
 * Daily figures from a hash of the day, so weeks and months are exact sums of their days.
 * @param {number} seed @param {number} dayMs
 */
function dayTrend(seed, dayMs) {
	const random = createRandom(hashString(`${seed}:trend:${dayMs}`));
	const weekday = new Date(dayMs).getUTCDay();
	const calls = weekday === 0 || weekday === 6 ? random.int(0, 40) : random.int(40, 220);
	const answered = Math.round(calls * (0.45 + random.next() * 0.35));
	const minutes = Math.round(answered * (1.2 + random.next() * 3) * 10) / 10;
	return { calls, answered, minutes };
}

/** @param {string | undefined} value @param {string} name @param {string[]} errors */
function parseDate(value, name, errors) {
	if (value === undefined) return undefined;
	const ms = Date.parse(value);
	if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms)) {
		errors.push(`${name} must be a valid ISO 8601 date string`);
		return undefined;
	}
	return ms;
}

/** @type {Handler} */
function getTrends(api, { query }) {
	/** @type {string[]} */
	const errors = [];
	const granularity = query.granularity ?? 'day';
	if (!GRANULARITIES.includes(granularity)) errors.push(oneOf('granularity', GRANULARITIES));
	const from = parseDate(query.from, 'from', errors);
	const to = parseDate(query.to, 'to', errors);
	failIfAny(errors);
	const toMs = to ?? Date.now();
	const fromMs = from ?? toMs - 29 * DAY_MS;
	if (fromMs > toMs) throw new HttpError(400, ['from must not be later than to']);
	const starts = [];
	for (
		let start = periodStart(fromMs, granularity);
		start <= toMs;
		start = nextPeriod(start, granularity)
	) {
		starts.push(start);
		if (starts.length > MAX_TREND_PERIODS) {
			throw new HttpError(400, [
				`the range from..to must not span more than ${MAX_TREND_PERIODS} periods of one ${granularity}`,
			]);
		}
	}
	const rate = api.state.balance.ratePerMinute;
	const items = starts.map((start) => {
		const end = nextPeriod(start, granularity);
		let calls = 0;
		let answered = 0;
		let minutes = 0;
		for (let day = start; day < end; day += DAY_MS) {
			const figures = dayTrend(api.seed, day);
			calls += figures.calls;
			answered += figures.answered;
			minutes += figures.minutes;
		}
		minutes = Math.round(minutes * 10) / 10;
		return {
			period: new Date(start).toISOString().slice(0, 10),
			calls,
			answered,
			minutes,
			cost: Math.round(minutes * rate * 100) / 100,
		};
	});
	return { status: 200, body: { items } };
}

// ---------------------------------------------------------------- messenger: messages

/** @param {ApiContext} api @param {string} id */
function requireChat(api, id) {
	const chat = findById(api.state.chats, id);
	if (!chat) throw new HttpError(404, 'Chat not found');
	return chat;
}

/**
 * Records an outbound message; every send endpoint goes through here.
 * @param {ApiContext} api @param {Chat} chat @param {Message['type']} type @param {Record<string, unknown>} content
 */
function recordSend(api, chat, type, content) {
	const at = nowIso();
	/** @type {Message} */
	const message = {
		id: api.newId('msg'),
		chatId: chat.id,
		direction: 'outbound',
		type,
		content,
		status: 'sent',
		reaction: null,
		createdAt: at,
	};
	insert(api.state.messages, message);
	chat.updatedAt = at;
	return message;
}

/**
 * Copies the named optional string fields that are present.
 * @param {Record<string, unknown>} body @param {string[]} names
 */
function pickPresent(body, names) {
	/** @type {Record<string, unknown>} */
	const out = {};
	for (const name of names)
		if (body[name] !== undefined && body[name] !== null) out[name] = body[name];
	return out;
}

/** @param {ApiContext} api @param {unknown} id */
function checkWhatsappNumber(api, id) {
	if (id === undefined || id === null) return;
	if (typeof id !== 'string') throw new HttpError(400, ['whatsappNumberId must be a string']);
	if (!findById(api.state.whatsappNumbers, id))
		throw new HttpError(404, 'WhatsApp number not found');
}

/** @type {Handler} */
function sendMedia(api, { body: raw }) {
	const body = requireObjectBody(raw);
	/** @type {string[]} */
	const errors = [];
	checkString(body, 'chatId', errors);
	checkMedia(body, errors);
	failIfAny(errors);
	const chat = requireChat(api, /** @type {string} */ (body.chatId));
	const type = /** @type {Message['type']} */ (body.type);
	return {
		status: 200,
		body: recordSend(api, chat, type, pickPresent(body, ['url', 'caption', 'fileName'])),
	};
}

/**
 * The chat of a phone: its open chat, else its latest chat, else a new open chat.
 * @param {ApiContext} api @param {string} phone
 */
function chatOfPhone(api, phone) {
	const chats = api.state.chats;
	const chat =
		chats.find((c) => c.phone === phone && c.status === 'open') ??
		chats.findLast((c) => c.phone === phone);
	if (chat) return chat;
	const contact = api.state.contacts.find((c) => c.phone === phone);
	/** @type {Chat} */
	const created = {
		id: api.newId('cht'),
		contactId: contact?.id ?? null,
		phone,
		status: 'open',
		important: false,
		updatedAt: nowIso(),
	};
	return insert(chats, created);
}

/** @type {Handler} */
function sendMediaToPhone(api, { body: raw }) {
	const body = requireObjectBody(raw);
	/** @type {string[]} */
	const errors = [];
	checkPhone(body, 'phone', errors);
	checkMedia(body, errors);
	failIfAny(errors);
	checkWhatsappNumber(api, body.whatsappNumberId);
	const chat = chatOfPhone(api, /** @type {string} */ (body.phone));
	const type = /** @type {Message['type']} */ (body.type);
	return {
		status: 200,
		body: recordSend(api, chat, type, pickPresent(body, ['url', 'caption', 'fileName'])),
	};
}

/** @type {Handler} */
function sendLocation(api, { body: raw }) {
	const body = requireObjectBody(raw);
	/** @type {string[]} */
	const errors = [];
	checkString(body, 'chatId', errors);
	const { latitude, longitude } = body;
	if (typeof latitude !== 'number' || !(latitude >= -90 && latitude <= 90)) {
		errors.push('latitude must be a number between -90 and 90');
	}
	if (typeof longitude !== 'number' || !(longitude >= -180 && longitude <= 180)) {
		errors.push('longitude must be a number between -180 and 180');
	}
	checkString(body, 'name', errors, { optional: true });
	checkString(body, 'address', errors, { optional: true });
	failIfAny(errors);
	const chat = requireChat(api, /** @type {string} */ (body.chatId));
	const content = pickPresent(body, ['latitude', 'longitude', 'name', 'address']);
	return { status: 200, body: recordSend(api, chat, 'location', content) };
}

/**
 * Streams the multipart body through busboy, hashing the `file` part instead of buffering it.
 * @param {import('node:http').IncomingMessage} req @param {number} maxFileBytes
 * @returns {Promise<{ fields: Record<string, string>, file: { fileName: string, mimeType: string, size: number, sha256: string } | undefined, tooLarge: boolean }>}
 */
function readMultipart(req, maxFileBytes) {
	return new Promise((resolve, reject) => {
		const contentType = req.headers['content-type'] ?? '';
		if (!/^multipart\/form-data/i.test(contentType)) {
			req.resume();
			reject(new HttpError(400, ['Content-Type must be multipart/form-data']));
			return;
		}
		let parser;
		try {
			parser = busboy({
				headers: req.headers,
				// Clients (browsers, n8n) send file names as raw UTF-8, as RFC 7578 says.
				defParamCharset: 'utf8',
				limits: {
					// busboy reports a limit when a file reaches it: one byte more is the first too many.
					fileSize: maxFileBytes + 1,
					files: 5,
					fields: 20,
					fieldSize: 1024 * 1024,
					parts: 30,
				},
			});
		} catch {
			req.resume();
			reject(new HttpError(400, ['Malformed multipart/form-data body']));
			return;
		}
		/** @type {Record<string, string>} */
		const fields = Object.create(null);
		/** @type {{ fileName: string, mimeType: string, size: number, sha256: string } | undefined} */
		let file;
		let tooLarge = false;
		parser.on('file', (name, stream, info) => {
			if (name !== 'file' || file) {
				stream.resume();
				return;
			}
			const hash = createHash('sha256');
			const current = {
				fileName: info.filename ?? 'file',
				mimeType: info.mimeType,
				size: 0,
				sha256: '',
			};
			file = current;
			stream.on('data', (chunk) => {
				hash.update(chunk);
				current.size += chunk.length;
			});
			stream.on('limit', () => {
				tooLarge = true;
			});
			stream.on('end', () => {
				current.sha256 = hash.digest('hex');
			});
		});
		parser.on('field', (name, value) => {
			fields[name] = value;
		});
		parser.on('close', () => resolve({ fields, file, tooLarge }));
		parser.on('error', () => {
			req.unpipe(parser);
			req.resume();
			reject(new HttpError(400, ['Malformed multipart/form-data body']));
		});
		req.pipe(parser);
	});
}

/** @param {string} mimeType @returns {Message['type']} */
function messageTypeOf(mimeType) {
	const major = mimeType.split('/')[0];
	return major === 'image' || major === 'video' || major === 'audio' ? major : 'document';
}

/**
 * @param {ApiContext} api @param {RequestInput} input
 * @returns {Promise<ApiResult>}
 */
async function sendMediaFile(api, { req }) {
	const limit = api.maxUploadBytes();
	const { fields, file, tooLarge } = await readMultipart(req, limit);
	if (tooLarge) {
		const mb = Math.round((limit / 2 ** 20) * 10) / 10;
		throw new HttpError(413, `file must not be larger than ${limit} bytes (${mb} MB)`);
	}
	/** @type {string[]} */
	const errors = [];
	if (!file) errors.push('file must be provided');
	checkString(fields, 'chatId', errors);
	failIfAny(errors);
	const uploaded = /** @type {NonNullable<typeof file>} */ (file);
	const chat = requireChat(api, fields.chatId);
	const caption = fields.caption ?? null;
	/** @type {Record<string, unknown>} */
	const content = { fileName: uploaded.fileName, mimeType: uploaded.mimeType, size: uploaded.size };
	if (caption !== null) content.caption = caption;
	const message = recordSend(api, chat, messageTypeOf(uploaded.mimeType), content);
	insert(api.state.uploads, {
		id: api.newId('upl'),
		fileName: uploaded.fileName,
		mimeType: uploaded.mimeType,
		size: uploaded.size,
		sha256: uploaded.sha256,
		chatId: chat.id,
		caption,
		messageId: message.id,
		createdAt: message.createdAt,
	});
	return { status: 200, body: message };
}

/** @type {Handler} */
function listWhatsappNumbers(api) {
	return { status: 200, body: api.state.whatsappNumbers };
}

/** @param {ApiContext} api @param {string} id */
function requireMessage(api, id) {
	const message = findById(api.state.messages, id);
	if (!message) throw new HttpError(404, 'Message not found');
	return message;
}

/** @type {Handler} */
function getMessage(api, { params }) {
	return { status: 200, body: requireMessage(api, params.id) };
}

/** @type {Handler} */
function removeReaction(api, { params }) {
	requireMessage(api, params.id).reaction = null;
	return { status: 200, body: { success: true } };
}

/** @type {Handler} */
function chatHistory(api, input) {
	const chat = requireChat(api, input.params.chatId);
	const paging = parsePaging(input.query);
	if (api.options.historyOrder === 'asc') paging.sort = 'asc';
	failIfAny(paging.errors);
	// By createdAt, then id: messages may share a createdAt (docs/api.md).
	const history = api.state.messages
		.filter((m) => m.chatId === chat.id)
		.sort((a, b) => compare(a.createdAt, b.createdAt) || compare(a.id, b.id));
	return { status: 200, body: pageOf(api, input, history, paging) };
}

/** @param {string} a @param {string} b */
const compare = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/** Types a customer can write through the control endpoint: every message type. */
export const CUSTOMER_MESSAGE_TYPES = Object.freeze(['text', ...MEDIA_TYPES, 'location']);
/** Most messages one control call adds. */
export const MAX_CUSTOMER_MESSAGES = 1000;

/**
 * The content a customer writes: the text, a media object with the text as caption, or a place.
 * @param {ApiContext} api @param {Message['type']} type @param {string} text
 * @returns {Message['content']}
 */
function customerContent(api, type, text) {
	if (type === 'text') return text;
	if (type === 'location') return { latitude: 40.4168, longitude: -3.7038, name: text };
	const extension = { image: 'jpg', video: 'mp4', audio: 'ogg', document: 'pdf' }[type];
	return { url: `https://example.com/media/${api.random.hex(8)}.${extension}`, caption: text };
}

/**
 * Control (sandbox only, not an API endpoint): a customer writes `count` inbound messages (1 to
 * MAX_CUSTOMER_MESSAGES) into the chat `chatId`, or the chat of `phone` (a closed one is reopened,
 * none opens one), or else the demo chat (the first one). `type` (text) and `text` (a seeded
 * customer text; numbered when there are several) make the content; the first `createdAt` is
 * `createdAt` (default now), each next one 1 ms later, or the same with `sameCreatedAt: true`.
 * @param {ApiContext} api @param {unknown} raw
 * @returns {{ chat: Chat, items: Message[] }}
 */
export function customerWrites(api, raw) {
	const body = raw === undefined || raw === null ? {} : requireObjectBody(raw);
	/** @type {string[]} */
	const errors = [];
	for (const name of ['chatId', 'text', 'createdAt'])
		checkString(body, name, errors, { optional: true });
	if (body.phone !== undefined) checkPhone(body, 'phone', errors);
	const type = /** @type {Message['type']} */ (body.type ?? 'text');
	if (!CUSTOMER_MESSAGE_TYPES.includes(type)) errors.push(oneOf('type', CUSTOMER_MESSAGE_TYPES));
	const count = body.count ?? 1;
	if (!Number.isInteger(count) || Number(count) < 1 || Number(count) > MAX_CUSTOMER_MESSAGES)
		errors.push(`count must be an integer from 1 to ${MAX_CUSTOMER_MESSAGES}`);
	const first = body.createdAt === undefined ? Date.now() : Date.parse(String(body.createdAt));
	if (Number.isNaN(first)) errors.push('createdAt must be an ISO 8601 date');
	failIfAny(errors);
	const chat = body.chatId
		? requireChat(api, String(body.chatId))
		: body.phone
			? chatOfPhone(api, String(body.phone))
			: api.state.chats[0];
	chat.status = 'open';
	const base = typeof body.text === 'string' ? body.text : api.random.pick(INBOUND_TEXTS);
	const items = Array.from({ length: Number(count) }, (_, i) => {
		const text = Number(count) > 1 ? `${base} (${i + 1}/${count})` : base;
		/** @type {Message} */
		const message = {
			id: api.newId('msg'),
			chatId: chat.id,
			direction: 'inbound',
			type,
			content: customerContent(api, type, text),
			status: 'delivered',
			reaction: null,
			createdAt: new Date(body.sameCreatedAt === true ? first : first + i).toISOString(),
		};
		return insert(api.state.messages, message);
	});
	chat.updatedAt = items[items.length - 1].createdAt;
	return { chat, items };
}

// ---------------------------------------------------------------- messenger: chats

/** @type {Handler} */
function checkExistingChat(api, { query }) {
	/** @type {string[]} */
	const errors = [];
	checkPhone(query, 'phone', errors);
	failIfAny(errors);
	const chat = api.state.chats.find((c) => c.phone === query.phone && c.status === 'open');
	return { status: 200, body: { exists: chat !== undefined, chatId: chat?.id ?? null } };
}

/** @type {Handler} */
function markImportant(api, { params, body }) {
	const chat = requireChat(api, params.id);
	let important = true;
	if (body !== undefined) {
		const object = requireObjectBody(body);
		if (object.important !== undefined) {
			if (typeof object.important !== 'boolean')
				throw new HttpError(400, ['important must be a boolean value']);
			important = object.important;
		}
	}
	chat.important = important;
	chat.updatedAt = nowIso();
	return { status: 200, body: chat };
}

/** @type {Handler} */
function reopenChat(api, { params }) {
	const chat = requireChat(api, params.id);
	if (chat.status === 'open') throw new HttpError(409, 'Chat is already open');
	chat.status = 'open';
	chat.updatedAt = nowIso();
	return { status: 200, body: chat };
}

// ---------------------------------------------------------------- messenger: contacts

/** @param {ApiContext} api @param {string} id */
function requireContact(api, id) {
	const contact = findById(api.state.contacts, id);
	if (!contact) throw new HttpError(404, 'Contact not found');
	return contact;
}

/** @type {Handler} */
function createContact(api, { body: raw }) {
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
	const at = nowIso();
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
function getContact(api, { params }) {
	return { status: 200, body: requireContact(api, params.id) };
}

/** @type {Handler} */
function searchContacts(api, { params }) {
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
function updateContactAttribute(api, { params, body: raw }) {
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
	contact.updatedAt = nowIso();
	return { status: 200, body: contact };
}

/** @type {Handler} */
function replaceContactAttributes(api, { params, body: raw }) {
	const contact = requireContact(api, params.id);
	const body = requireObjectBody(raw);
	if (!isObject(body.attributes)) throw new HttpError(400, ['attributes must be an object']);
	contact.attributes = { ...body.attributes };
	contact.updatedAt = nowIso();
	return { status: 200, body: contact };
}

// ---------------------------------------------------------------- messenger: broadcast

/** The most sends `state.sent` keeps (the oldest go first). */
const MAX_SENT = 1000;

/**
 * Lines that show one recorded send to a person reading the sandbox's output: who got what, and
 * each link in it on a line of its own, to open or copy.
 * @param {import('./data.mjs').SentMessage} sent
 * @returns {string[]}
 */
export function sentLines(sent) {
	const content =
		sent.text !== null
			? JSON.stringify(sent.text)
			: `template ${sent.templateId} ${JSON.stringify(sent.variables)}`;
	const links = `${sent.text ?? ''} ${Object.values(sent.variables).join(' ')}`.match(
		/https?:\/\/[^\s"'<>]+/g,
	);
	return [
		`${sent.createdAt} sent ${sent.messageId} by ${sent.channel} to ${sent.recipient}: ${content}`,
		...(links ?? []).map((link) => `    link: ${link}`),
	];
}

/** @type {Handler} */
function sendBroadcast(api, { body: raw }) {
	const body = requireObjectBody(raw);
	/** @type {string[]} */
	const errors = [];
	const channel = /** @type {BroadcastMessage['channel']} */ (body.channel);
	if (!CHANNELS.includes(channel)) errors.push(oneOf('channel', CHANNELS));
	const recipients = body.recipients;
	if (!Array.isArray(recipients) || recipients.length === 0)
		errors.push('recipients must be a non-empty array');
	else if (recipients.length > MAX_BROADCAST_RECIPIENTS) {
		errors.push(`recipients must contain no more than ${MAX_BROADCAST_RECIPIENTS} elements`);
	} else {
		recipients.forEach((recipient, i) => {
			if (!isObject(recipient)) {
				errors.push(`recipients.${i} must be an object`);
				return;
			}
			if (channel === 'email') {
				if (typeof recipient.email !== 'string' || !EMAIL.test(recipient.email)) {
					errors.push(`recipients.${i}.email must be an email`);
				}
			} else if (channel === 'whatsapp' || channel === 'sms') {
				if (typeof recipient.phone !== 'string' || !E164.test(recipient.phone)) {
					errors.push(`recipients.${i}.phone ${PHONE_RULE}`);
				}
			}
			if (recipient.variables !== undefined && !isObject(recipient.variables)) {
				errors.push(`recipients.${i}.variables must be an object`);
			}
		});
	}
	checkString(body, 'templateId', errors, { optional: true });
	checkString(body, 'text', errors, { optional: true });
	const hasTemplate = typeof body.templateId === 'string' && body.templateId.trim() !== '';
	const hasText = typeof body.text === 'string' && body.text.trim() !== '';
	if (!hasTemplate && !hasText) errors.push('templateId or text must be provided');
	failIfAny(errors);
	checkWhatsappNumber(api, body.whatsappNumberId);
	const at = nowIso();
	const items = /** @type {Record<string, unknown>[]} */ (recipients).map((recipient) => {
		const message = insert(api.state.broadcastMessages, {
			id: api.newId('bcm'),
			channel,
			recipient: /** @type {string} */ (channel === 'email' ? recipient.email : recipient.phone),
			status: /** @type {const} */ ('queued'),
			createdAt: at,
			updatedAt: at,
		});
		const sent = {
			messageId: message.id,
			channel,
			recipient: message.recipient,
			text: hasText ? /** @type {string} */ (body.text) : null,
			templateId: hasTemplate ? /** @type {string} */ (body.templateId) : null,
			variables: /** @type {Record<string, unknown>} */ (recipient.variables ?? {}),
			whatsappNumberId: typeof body.whatsappNumberId === 'string' ? body.whatsappNumberId : null,
			createdAt: at,
		};
		api.state.sent.push(sent);
		if (api.state.sent.length > MAX_SENT)
			api.state.sent.splice(0, api.state.sent.length - MAX_SENT);
		api.onSent?.(sent);
		return message;
	});
	return { status: 200, body: { items } };
}

/** @type {Handler} */
function getBroadcastMessage(api, { params }) {
	const message = findById(api.state.broadcastMessages, params.id);
	if (!message) throw new HttpError(404, 'Broadcast message not found');
	return { status: 200, body: message };
}

// ---------------------------------------------------------------- routes

/**
 * @param {string} method @param {string} path `:name` marks a parameter
 * @param {Route['scope']} scope @param {Handler} handler @param {Route['body']} [body]
 * @returns {Route}
 */
const route = (method, path, scope, handler, body) => ({
	method,
	segments: path.split('/').slice(1),
	scope,
	body,
	handler,
});

/** Literal paths come before parameterised ones that could shadow them. @type {Route[]} */
export const ROUTES = [
	route('GET', '/api/v1/voice/agents', 'voicebot', listAgents),
	route('GET', '/api/v1/voice/agents/:id', 'voicebot', getAgent),
	route('GET', '/api/v1/voice/campaigns', 'voicebot', listCampaigns),
	route('GET', '/api/v1/voice/campaigns/:id', 'voicebot', getCampaign),
	route('POST', '/api/v1/voice/campaigns/:id/cancel', 'voicebot', cancelCampaign, 'json'),
	route('GET', '/api/v1/voice/campaigns/:id/data', 'voicebot', getCampaignData),
	route('GET', '/api/v1/voice/billing/balance', 'voicebot', getBalance),
	route('GET', '/api/v1/voice/reports/trends', 'voicebot', getTrends),
	route(
		'POST',
		'/api/v1/messenger/messages/send/media-file',
		'messenger',
		sendMediaFile,
		'multipart',
	),
	route(
		'POST',
		'/api/v1/messenger/messages/send/media-to-phone',
		'messenger',
		sendMediaToPhone,
		'json',
	),
	route('GET', '/api/v1/messenger/messages/whatsapp-numbers', 'messenger', listWhatsappNumbers),
	route('POST', '/api/v1/messenger/messages/send/media', 'messenger', sendMedia, 'json'),
	route('GET', '/api/v1/messenger/chats/check-existing', 'messenger', checkExistingChat),
	route('POST', '/api/v1/messenger/messages/send/location', 'messenger', sendLocation, 'json'),
	route('POST', '/api/v1/messenger/contacts', 'messenger', createContact, 'json'),
	route(
		'PATCH',
		'/api/v1/messenger/contacts/:id/attributes/:key',
		'messenger',
		updateContactAttribute,
		'json',
	),
	route('PATCH', '/api/v1/messenger/chats/:id/mark-important', 'messenger', markImportant, 'json'),
	route('GET', '/api/v1/messenger/contacts/search/:customer', 'messenger', searchContacts),
	route(
		'PUT',
		'/api/v1/messenger/contacts/:id/attributes',
		'messenger',
		replaceContactAttributes,
		'json',
	),
	route('GET', '/api/v1/messenger/broadcast/messages/:id', 'messenger', getBroadcastMessage),
	route('GET', '/api/v1/messenger/messages/chat/:chatId', 'messenger', chatHistory),
	route('DELETE', '/api/v1/messenger/messages/:id/react', 'messenger', removeReaction, 'json'),
	route('POST', '/api/v1/messenger/broadcast/messages', 'messenger', sendBroadcast, 'json'),
	route('PATCH', '/api/v1/messenger/chats/:id/reopen', 'messenger', reopenChat, 'json'),
	route('GET', '/api/v1/messenger/contacts/:id', 'messenger', getContact),
	route('GET', '/api/v1/messenger/messages/:id', 'messenger', getMessage),
];

/**
 * Matches already-decoded path segments; a `%2F` inside an id stays inside that one segment.
 * @param {string} method @param {string[]} segments
 * @returns {{ route: Route, params: Record<string, string> } | { route: undefined, params: undefined }}
 */
export function matchRoute(method, segments) {
	for (const candidate of ROUTES) {
		if (candidate.method !== method || candidate.segments.length !== segments.length) continue;
		/** @type {Record<string, string>} */
		const params = {};
		let matched = true;
		for (let i = 0; i < segments.length; i++) {
			const pattern = candidate.segments[i];
			if (pattern.startsWith(':')) params[pattern.slice(1)] = segments[i];
			else if (pattern !== segments[i]) {
				matched = false;
				break;
			}
		}
		if (matched) return { route: candidate, params };
	}
	return { route: undefined, params: undefined };
}
