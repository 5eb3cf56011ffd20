// The options of startSandbox: their defaults, and the ones a running sandbox may change.
import { MAX_UPLOAD_BYTES } from '../api.mjs';
import { ALTERNATIVES, DEFAULT_ALTERNATIVES, checkAlternative } from '../alternatives.mjs';

/**
 * @typedef {{
 *   port?: number,
 *   host?: string,
 *   tokenLifetimeSeconds?: number,
 *   rateLimitPerMinute?: number,
 *   tokenRateLimitPerMinute?: number,
 *   progressIntervalMs?: number,
 *   callStepMs?: number,
 *   callCampaigns?: number,
 *   callCampaignNumbers?: number,
 *   seed?: number,
 *   agentCount?: number,
 *   campaignCount?: number,
 *   activeCampaignCount?: number,
 *   maxLogEntries?: number,
 *   maxUploadBytes?: number,
 *   rateWindowMs?: number,
 *   countRefusedRequests?: boolean,
 *   faults?: import('./faults.mjs').FaultOptions,
 *   historyReorder?: HistoryReorder,
 *   clockAheadMs?: number,
 *   onSent?: (sent: import('../data.mjs').SentMessage | import('../data.mjs').SentChatMessage) => void,
 * } & Partial<import('../alternatives.mjs').Alternatives>} SandboxOptions
 */

/**
 * How chat history changes its order between requests (an opt-in for the triggers' tests; the
 * real API's order is `sort`, or the `historyOrder` alternative): `none`; `alternate`, each read
 * of a chat's history (a request for its first page) newest first and oldest first by turns,
 * whatever `sort` asks, its later pages in the order of their read; `shuffle`, each page holds the
 * messages its order gives it, in an order that changes from request to request.
 * @typedef {'none' | 'alternate' | 'shuffle'} HistoryReorder
 */
export const HISTORY_REORDERS = /** @type {const} */ (['none', 'alternate', 'shuffle']);

/** @param {unknown} value */
function checkHistoryReorder(value) {
	if (!HISTORY_REORDERS.includes(/** @type {HistoryReorder} */ (value))) {
		throw new Error(
			`Sandbox option historyReorder must be ${HISTORY_REORDERS.join(', ')}, got ${JSON.stringify(value)}`,
		);
	}
	return value;
}

/** @type {Required<SandboxOptions>} */
export const DEFAULT_OPTIONS = Object.freeze({
	port: 0,
	host: '127.0.0.1',
	tokenLifetimeSeconds: 3600,
	rateLimitPerMinute: 100,
	tokenRateLimitPerMinute: 10,
	progressIntervalMs: 0,
	// Call campaigns (api/calls.mjs): a step every callStepMs (0: only by stepCalls()), and how
	// many of callCampaignNumbers numbers to keep running (0: only those a test starts).
	callStepMs: 0,
	callCampaigns: 0,
	callCampaignNumbers: 40,
	seed: 1,
	agentCount: 25,
	campaignCount: 30,
	activeCampaignCount: 5,
	maxLogEntries: Infinity,
	maxUploadBytes: MAX_UPLOAD_BYTES,
	rateWindowMs: 60_000,
	countRefusedRequests: false,
	faults: {},
	historyReorder: 'none',
	// The API's clock against the machine's (records/apiNow): its Date header and the times it stamps.
	clockAheadMs: 0,
	// Where the API's description is silent: docs/api.md's choices (alternatives.mjs lists others).
	...DEFAULT_ALTERNATIVES,
});

/** What `setOptions()` changes on a running sandbox, besides the alternatives. */
export const SETTABLE_OPTIONS = /** @type {const} */ ([
	'tokenLifetimeSeconds',
	'rateLimitPerMinute',
	'rateWindowMs',
	'countRefusedRequests',
	'tokenRateLimitPerMinute',
	'progressIntervalMs',
	'callStepMs',
	'callCampaigns',
	'callCampaignNumbers',
	'maxLogEntries',
	'maxUploadBytes',
	'historyReorder',
	'clockAheadMs',
]);

/** @param {SandboxOptions} options */
export function withDefaults(options) {
	/** @type {Record<string, unknown>} */
	const merged = { ...DEFAULT_OPTIONS };
	for (const [key, value] of Object.entries(options ?? {})) {
		if (value === undefined) continue;
		merged[key] = key in ALTERNATIVES ? checkAlternative(/** @type {any} */ (key), value) : value;
		if (key === 'historyReorder') checkHistoryReorder(value);
	}
	return /** @type {Required<SandboxOptions>} */ (merged);
}

/**
 * Sets on `opts` what `partial` gives of SETTABLE_OPTIONS and the alternatives (checked).
 * @param {Required<SandboxOptions>} opts
 * @param {Pick<SandboxOptions, (typeof SETTABLE_OPTIONS)[number]> & Partial<import('../alternatives.mjs').Alternatives>} partial
 */
export function setOptions(opts, partial) {
	if (partial.historyReorder !== undefined) checkHistoryReorder(partial.historyReorder);
	for (const key of SETTABLE_OPTIONS) {
		if (partial[key] !== undefined) opts[key] = /** @type {any} */ (partial[key]);
	}
	for (const key of /** @type {Array<keyof import('../alternatives.mjs').Alternatives>} */ (
		Object.keys(ALTERNATIVES)
	)) {
		if (partial[key] !== undefined) opts[key] = checkAlternative(key, partial[key]);
	}
}
