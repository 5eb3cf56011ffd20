// What tests and demos steer a running sandbox with, outside the API: the control endpoint where
// a customer writes, the progress timer, and the methods of the object startSandbox returns.
import {
	HttpError,
	advanceOnce,
	customerWrites,
	newCampaign,
	startCallCampaign,
	stepCalls,
} from '../api.mjs';
import { parseJson, readBody } from './body.mjs';
import { createFaultInjector } from './faults.mjs';
import { setOptions } from './options.mjs';
import { TOKEN_PATH } from './auth.mjs';
import { addMediaFile, mediaSha256 } from '../api/media.mjs';

/**
 * @typedef {import('../api.mjs').ApiContext} ApiContext
 * @typedef {import('../data.mjs').Campaign} Campaign
 * @typedef {import('../server.mjs').Sandbox} Sandbox
 * @typedef {import('../server.mjs').LogEntry} LogEntry
 */

/** Control endpoint (not part of the API, outside its log, faults and limits): a customer writes. */
export const CUSTOMER_MESSAGES_PATH = '/sandbox/customer-messages';

/**
 * POST CUSTOMER_MESSAGES_PATH with the options of customerWrites (api/customer.mjs): 201 `{ chat, items }`.
 * @param {ApiContext} api
 * @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res
 */
export async function writeAsCustomer(api, req, res) {
	/** @type {import('../api.mjs').ApiResult} */
	let result;
	try {
		if (req.method !== 'POST')
			throw new HttpError(404, `Cannot ${req.method} ${CUSTOMER_MESSAGES_PATH}`);
		result = { status: 201, body: customerWrites(api, parseJson(await readBody(req))) };
	} catch (error) {
		if (!(error instanceof HttpError)) throw error;
		result = { status: error.statusCode, body: error.toBody() };
	}
	const payload = JSON.stringify(result.body);
	res.writeHead(result.status, {
		'Content-Type': 'application/json; charset=utf-8',
		'Content-Length': Buffer.byteLength(payload),
	});
	res.end(payload);
}

/**
 * Campaigns and broadcast messages move on every `progressIntervalMs`, call campaigns every
 * `callStepMs` (0: only by `advance()` and `stepCalls()`).
 * @param {ApiContext} api @param {{ progressIntervalMs: number, callStepMs: number }} opts
 */
export function createProgressTimer(api, opts) {
	/** @type {NodeJS.Timeout[]} */
	let timers = [];
	const stop = () => {
		for (const timer of timers) clearInterval(timer);
		timers = [];
	};
	/** @param {number} ms @param {() => void} move */
	const every = (ms, move) => {
		if (ms <= 0) return;
		const timer = setInterval(move, ms);
		timer.unref();
		timers.push(timer);
	};
	return {
		/** (Re)starts the timers with the intervals the options say now. */
		restart() {
			stop();
			every(opts.progressIntervalMs, () => advanceOnce(api));
			every(opts.callStepMs, () => stepCalls(api));
		},
		stop,
	};
}

/**
 * The object startSandbox returns: where it listens, its state and log, and its controls.
 * @param {{
 *   api: ApiContext,
 *   opts: Required<import('./options.mjs').SandboxOptions>,
 *   listening: { url: string, port: number, close: () => Promise<void> },
 *   log: LogEntry[],
 *   tokens: import('./auth.mjs').TokenService,
 *   limits: ReturnType<typeof import('./rateLimit.mjs').createRateLimits>,
 *   faults: { injector: import('./faults.mjs').FaultInjector },
 *   progress: ReturnType<typeof createProgressTimer>,
 *   chatModel: ReturnType<typeof import('../chatModel.mjs').createChatModel>,
 *   storage: Awaited<ReturnType<typeof import('./media.mjs').startStorage>>,
 * }} parts
 * @returns {Sandbox}
 */
export function sandboxControls({
	api,
	opts,
	listening,
	log,
	tokens,
	limits,
	faults,
	progress,
	chatModel,
	storage,
}) {
	/** @param {string} id */
	const mediaFile = (id) => {
		const file = api.state.mediaFiles.get(id);
		if (!file) throw new Error(`no media file ${id}`);
		return file;
	};
	return {
		url: listening.url,
		port: listening.port,
		state: api.state,
		log,
		clearLog() {
			log.length = 0;
		},
		get tokensIssued() {
			return tokens.issued;
		},
		tokenRequests() {
			return log.filter((entry) => entry.path === TOKEN_PATH || entry.path === `${TOKEN_PATH}/`);
		},
		advance(steps = 1) {
			for (let i = 0; i < steps; i++) advanceOnce(api);
		},
		customerWrites(options = {}) {
			return customerWrites(api, options);
		},
		addCampaign(partial = {}) {
			return newCampaign(api, partial);
		},
		startCallCampaign(options = {}) {
			return startCallCampaign(api, options);
		},
		stepCalls(steps = 1, campaignId = undefined) {
			for (let i = 0; i < steps; i++) stepCalls(api, campaignId);
		},
		/** From now on every read of the campaign's data answers `status`; `null` heals it. */
		failCampaignData(campaignId, status = 500) {
			if (status === null) api.state.campaignDataFailures.delete(campaignId);
			else api.state.campaignDataFailures.set(campaignId, status);
		},
		expireTokens() {
			tokens.expireAll();
		},
		resetRateLimits() {
			limits.api.reset();
			limits.token.reset();
		},
		/** Switches faults on (or off with `{}`) from now on; `faultCounts` says how many were injected. */
		setFaults(faultOptions = {}) {
			faults.injector = createFaultInjector(faultOptions);
		},
		get faultCounts() {
			return { ...faults.injector.counts };
		},
		setOptions(partial) {
			setOptions(opts, partial);
			if (partial.progressIntervalMs !== undefined || partial.callStepMs !== undefined)
				progress.restart();
		},
		options: opts,
		chatModel,
		/** The storage origin: its URL, its request log, and how many requests carried a token. */
		storage,
		/** A file for a media message (see api/media.mjs): `{ type, size?, fileName?, mimeType?, bytes? }`. */
		addMediaFile: (spec) => addMediaFile(api, spec),
		mediaFile,
		mediaSha256: (id) => mediaSha256(mediaFile(id)),
		/** From now on the file's links answer 403, as an expired signed link does. */
		expireMedia(id) {
			mediaFile(id).status = 'expired';
		},
		/** From now on the links to the file issued so far answer 403; a message read again gets a fresh one (`mediaLinks: 'storage'`). */
		expireMediaLinks(id) {
			mediaFile(id).linksValidFrom = Date.now() + 1;
		},
		/** From now on the file's links answer 404: the file is gone. */
		deleteMedia(id) {
			mediaFile(id).status = 'deleted';
		},
		async close() {
			progress.stop();
			await storage.close();
			return listening.close();
		},
	};
}
