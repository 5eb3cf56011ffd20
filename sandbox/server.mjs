// Local in-memory implementation of the provider's Integration API, for tests, benchmarks and demos.
// startSandbox puts the parts in server/ together: options, auth (tokens), rateLimit, faults,
// http (the server and the order of checks) and controls (what tests steer it with).
import { ROUTES, findById, startCallCampaign } from './api.mjs';
import { serveSeedMedia } from './api/media.mjs';
import { createChatModel } from './chatModel.mjs';
import { createIdFactory, createRandom, createSeedState, hashString } from './data.mjs';
import { TOKEN_PATH, createTokenService } from './server/auth.mjs';
import { createProgressTimer, sandboxControls, writeAsCustomer } from './server/controls.mjs';
import { createFaultInjector } from './server/faults.mjs';
import { createRequestHandler, listen } from './server/http.mjs';
import { startStorage } from './server/media.mjs';
import { withDefaults } from './server/options.mjs';
import { createRateLimits } from './server/rateLimit.mjs';

export { DEMO_CLIENTS, TOKEN_PATH } from './server/auth.mjs';
export { CUSTOMER_MESSAGES_PATH } from './server/controls.mjs';
export { DEFAULT_OPTIONS } from './server/options.mjs';

/**
 * @typedef {import('./data.mjs').SandboxState} SandboxState
 * @typedef {import('./data.mjs').Campaign} Campaign
 * @typedef {import('./server/options.mjs').SandboxOptions} SandboxOptions
 *
 * @typedef {{ method: string, path: string, query: Record<string, string>, status: number, clientId: string | undefined, at: string, fault?: string }} LogEntry
 *
 * @typedef {{
 *   url: string,
 *   port: number,
 *   state: SandboxState,
 *   log: LogEntry[],
 *   clearLog: () => void,
 *   readonly tokensIssued: number,
 *   tokenRequests: () => LogEntry[],
 *   advance: (steps?: number) => void,
 *   addCampaign: (partial?: Partial<Campaign>) => Campaign,
 *   startCallCampaign: (options?: { numbers?: number, lines?: number, name?: string, retryDelaySteps?: number, duplicates?: number, endsWhileCalling?: boolean }) => Campaign,
 *   stepCalls: (steps?: number, campaignId?: string) => void,
 *   failCampaignData: (campaignId: string, status?: number | null) => void,
 *   customerWrites: (options?: Record<string, unknown>) => ReturnType<typeof import('./api.mjs').customerWrites>,
 *   expireTokens: () => void,
 *   resetRateLimits: () => void,
 *   setFaults: (faults?: import('./server/faults.mjs').FaultOptions) => void,
 *   readonly faultCounts: Record<string, number>,
 *   setOptions: (partial: Pick<SandboxOptions, (typeof import('./server/options.mjs').SETTABLE_OPTIONS)[number]> & Partial<import('./alternatives.mjs').Alternatives>) => void,
 *   options: Readonly<Required<SandboxOptions>>,
 *   chatModel: ReturnType<typeof createChatModel>,
 *   close: () => Promise<void>,
 * }} Sandbox
 */

/**
 * Starts the sandbox and resolves once it listens.
 * @param {SandboxOptions} [options]
 * @returns {Promise<Sandbox>}
 */
export async function startSandbox(options = {}) {
	const opts = withDefaults(options);
	const faults = { injector: createFaultInjector(opts.faults) };
	const seed = Number(opts.seed) >>> 0;
	const newId = createIdFactory(createRandom(hashString(`${seed}:ids`)));
	const random = createRandom(hashString(`${seed}:runtime`));
	/** @type {SandboxState} */
	const state = createSeedState({ ...opts, seed }, newId, (id) => findById(state.campaigns, id));
	state.mediaFiles = new Map();
	/** What the handlers need of this sandbox (api.mjs's ApiContext). */
	const api = {
		state,
		seed,
		random,
		newId,
		// Media files have IDs of their own, so the seed's other IDs stay as they were.
		newMediaId: createIdFactory(createRandom(hashString(`${seed}:media`))),
		baseUrl: '',
		storageUrl: '',
		options: opts,
		onSent: opts.onSent,
		maxUploadBytes: () => opts.maxUploadBytes,
	};
	/** @type {LogEntry[]} */
	const log = [];
	/** The OpenAI-compatible model under /v1 (scripted by tests; outside the API's log, faults and limits). */
	const chatModel = createChatModel();
	const limits = createRateLimits(opts);
	const tokens = createTokenService(opts, limits.token);
	const handle = createRequestHandler({
		api,
		options: opts,
		tokens,
		limiter: limits.api,
		faults: () => faults.injector,
		log,
		chatModel,
		control: (req, res) => writeAsCustomer(api, req, res),
	});
	const listening = await listen(handle, opts);
	const storage = await startStorage(api, opts);
	api.baseUrl = listening.url;
	api.storageUrl = storage.url;
	serveSeedMedia(api);
	const progress = createProgressTimer(api, opts);
	progress.restart();
	// The call campaigns the options keep running start now, pending until the first step.
	for (let i = 0; i < opts.callCampaigns; i++) {
		startCallCampaign(api, { numbers: opts.callCampaignNumbers, lines: 2 });
	}
	return sandboxControls({
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
	});
}

/** Method and path of every API endpoint the sandbox serves (the token endpoint first). */
export const ENDPOINTS = Object.freeze([
	{ method: 'POST', path: TOKEN_PATH, scope: undefined },
	...ROUTES.map((r) => ({
		method: r.method,
		path: `/${r.segments.map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s)).join('/')}`,
		scope: r.scope,
	})),
]);
