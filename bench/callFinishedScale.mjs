// Call Finished on a campaign of 100,000 numbers (in this process, against the sandbox on
// loopback), with the API's limits as they are: 100 requests a minute (the sandbox refuses more,
// the credential paces itself to it) and a poll's 40 s. Time is scaled down (SCALE): a minute is
// 1.2 s, a poll's budget 0.8 s. Each minute 5 % of the numbers end a call (a call step), a no
// answer or busy is retried 30 minutes later, and a poll starts, as n8n's default scheduler starts
// them (one still running: that one is skipped). Data Requests per Poll is at its most (100), so
// what bounds a poll's reads is its time and the API's limit. Measured: the polls the silent first
// read takes, requests and duration per poll, the node's static data (as n8n stores it) per ended
// number, and how many polls after the last call ended every result is in; each attempt held to
// what the sandbox really did (tools/callTruth.mjs).
import { pacingSettings } from '../nodes/shared/pacing.ts';
import { isPolling } from '../nodes/shared/poll.ts';
import { VoiceAiTrigger } from '../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { CAMPAIGN_LIST_REQUESTS } from '../nodes/VoiceAi/trigger/callFinishedDescription.ts';
import { readCall } from '../nodes/VoiceAi/trigger/callRecords.ts';
import { CallTable } from '../nodes/VoiceAi/trigger/callState.ts';
import { DEMO_CLIENTS, startSandbox } from '../sandbox/server.mjs';
import {
	CALL_OUTCOMES,
	attemptKey,
	endedSinceWatching,
	heldToTruth,
	itemKey,
	recordsNow,
	unaccounted,
} from '../tools/callTruth.mjs';
import { createPollContext, sandboxHttp } from '../tools/context.mjs';

const SCALE = 0.02;
const MINUTE_MS = 60_000 * SCALE;
const BUDGET_MS = 40_000 * SCALE;
const PAGE = 100;
/** The API's requests a minute (the sandbox refuses more; the credential paces itself to it). */
const RATE_LIMIT = 100;
const mean = (values) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One run: the campaign started and called for three minutes before activation, then a call step
 * and a poll each minute until the trigger has dropped the ended campaign (or `maxMinutes`).
 * @param {{ numbers?: number, retryDelaySteps?: number, maxMinutes?: number }} [options]
 */
export async function measureCallFinishedScale({
	numbers = 100_000,
	retryDelaySteps = 30,
	maxMinutes = 200,
} = {}) {
	const windowMs = pacingSettings.windowMs;
	pacingSettings.windowMs = MINUTE_MS;
	const sandbox = await startSandbox({
		port: 0,
		activeCampaignCount: 0,
		rateLimitPerMinute: RATE_LIMIT,
		rateWindowMs: MINUTE_MS,
		countRefusedRequests: true,
	});
	try {
		const campaign = sandbox.startCallCampaign({
			numbers,
			lines: Math.round(numbers * 0.05),
			retryDelaySteps,
		});
		const run = sandbox.state.callRuns.get(campaign.id);
		sandbox.stepCalls(3);
		// Watching begins once the calls so far lie in the past (the sandbox's clock runs a second a step).
		await sleep(Math.max(0, run.clockMs - Date.now()) + 50);
		const before = recordsNow(sandbox, campaign);
		const from = Date.now();

		const auth = sandboxHttp(sandbox, DEMO_CLIENTS.full, { requestsPerMinute: RATE_LIMIT });
		const staticData = {};
		const trigger = new VoiceAiTrigger();
		const path = `/api/v1/voice/campaigns/${campaign.id}/data`;
		const lastPage = String(Math.ceil(run.records.length / PAGE));
		/** Per minute: the poll's duration, requests, items, the state's size and the numbers ended. */
		const polls = [];
		const running = [];
		const landed = new Map();
		let seen = run.changes;
		let lastLanding = 0;
		const watched = () => Boolean(staticData.poll?.state?.watched?.[campaign.id]);
		for (let minute = 0; minute < maxMinutes; minute++) {
			if (minute > 0 && !watched() && running.length === 0) break;
			if (minute > 0 && campaign.status !== 'completed') sandbox.stepCalls();
			// What ended this minute, to tell how long a result waited.
			for (let i = 0; i < run.records.length; i++) {
				if (run.changedAt[i] <= seen) continue;
				const record = run.records[i];
				if (!CALL_OUTCOMES.includes(record.status)) continue;
				landed.set(attemptKey(record.phoneNumber, record.attempts), minute);
				lastLanding = minute;
			}
			seen = run.changes;
			const { context } = createPollContext({
				params: { event: 'callFinished', dataRequestsPerPoll: 100 },
				http: auth.httpRequestWithAuthentication,
				credentials: auth.store.data,
				staticData,
				pollBudgetMs: BUDGET_MS,
				workflowId: 'bench-call-finished-scale',
			});
			// The last poll still runs: this one is skipped (poll.ts), as in n8n.
			const poll = { minute, ms: 0, requests: 0, items: [], failed: undefined };
			poll.skipped = isPolling(context);
			const mark = sandbox.log.length;
			const started = performance.now();
			const cpu = process.cpuUsage();
			const done = trigger.poll
				.call(context)
				.then((result) => {
					poll.items = result ? result[0].map((item) => item.json) : [];
				})
				.catch((error) => (poll.failed = error.message ?? String(error)))
				.finally(() => {
					poll.ms = performance.now() - started;
					const { user, system } = process.cpuUsage(cpu);
					poll.cpuMs = (user + system) / 1000;
					const entries = sandbox.log.slice(mark).filter((e) => !e.path.endsWith('/token'));
					poll.requests = entries.length;
					poll.firstRead = entries.some((e) => e.path === path && e.query.page === lastPage);
					const json = JSON.stringify(staticData);
					poll.stateBytes = Buffer.byteLength(json);
					poll.watched = watched();
					poll.endedNumbers = run.records.filter(
						(r) => CALL_OUTCOMES.includes(r.status) || r.attempts > 1,
					).length;
					running.splice(running.indexOf(done), 1);
				});
			running.push(done);
			polls.push(poll);
			await sleep(MINUTE_MS);
		}
		await Promise.all(running);

		const items = polls.flatMap((p) => p.items);
		const truth = endedSinceWatching(sandbox, campaign, before, { from });
		const { missing, extra } = heldToTruth(items, truth);
		const wrong = unaccounted(items, truth);
		const lags = [];
		for (const poll of polls) {
			for (const item of poll.items) {
				const at = landed.get(itemKey(item));
				if (at !== undefined) lags.push(poll.minute - at + 1);
			}
		}
		const ran = polls.filter((p) => !p.skipped);
		const withItems = polls.filter((p) => p.items.length > 0);
		const lastWatched = polls.filter((p) => p.watched).at(-1);
		const pages = Math.ceil(run.records.length / PAGE);
		return {
			numbers,
			scale: SCALE,
			polls: polls.length,
			// One read of every page, at the API's limit less the requests that find the campaigns.
			sweepPolls: Math.ceil(pages / (RATE_LIMIT - CAMPAIGN_LIST_REQUESTS)),
			refused: sandbox.log.filter((e) => e.status === 429).length,
			skipped: polls.length - ran.length,
			failed: polls.filter((p) => p.failed).length,
			firstReadPolls: polls.findIndex((p) => p.firstRead) + 1,
			requests: mean(ran.map((p) => p.requests)),
			maxRequests: Math.max(...ran.map((p) => p.requests)),
			// Not scaled: a poll's time in this process (no API latency), and the process's CPU while
			// it ran (the trigger, and the sandbox answering it).
			meanMs: mean(ran.map((p) => p.ms)),
			maxMs: Math.max(...ran.map((p) => p.ms)),
			cpuMs: mean(ran.map((p) => p.cpuMs)),
			maxCpuMs: Math.max(...ran.map((p) => p.cpuMs)),
			stateBytes: lastWatched?.stateBytes ?? 0,
			maxStateBytes: Math.max(...polls.map((p) => p.stateBytes)),
			endedNumbers: lastWatched?.endedNumbers ?? 0,
			bytesPerEndedNumber: lastWatched ? lastWatched.stateBytes / lastWatched.endedNumbers : NaN,
			lag: mean(lags),
			maxLag: Math.max(0, ...lags),
			resultsInAfter: (withItems.at(-1)?.minute ?? 0) - lastLanding + 1,
			attempts: [...truth.expected.values()].reduce((a, b) => a + b, 0),
			reported: items.length,
			skippedAttempts: items.reduce((n, item) => n + (Number(item.skippedAttempts) || 0), 0),
			missing: missing.length,
			twice: extra.length,
			lost: wrong.filter(([, got, expected]) => got < expected).length,
		};
	} finally {
		pacingSettings.windowMs = windowMs;
		await sandbox.close();
	}
}

/**
 * The same run with the trigger as it was before its state was packed (commit 1c2969f: an object
 * per number, copied whole at every poll), measured once on the machine of this bench's rows in
 * docs/testing.md: what they compare with.
 */
export const BEFORE_AT_SCALE = {
	firstReadPolls: 11,
	requests: 94.1,
	meanMs: 137,
	maxMs: 269,
	cpuMs: 144,
	stateBytes: 3_493_522,
	bytesPerEndedNumber: 34.94,
	resultsInAfter: 11,
	lost: 600,
	twice: 0,
};

/**
 * The previous release's trigger (d6940d7: 8 bytes a record, a 36-bit hash of the number as its
 * key), measured by this bench on the machine of the rows in docs/testing.md.
 */
export const HASHED_AT_SCALE = {
	bytesPerEndedNumber: 10.67,
	meanMs: 138,
	cpuMs: 92,
};

/**
 * The stored state of one campaign's records, in characters per record, for `count` numbers:
 * Spanish mobiles as the sandbox makes them (`+346` and 8 digits), or numbers anywhere in
 * E.164's range (the worst case for keys kept as the distance from the one before).
 */
export function stateCharsPerNumber(count, spread = false) {
	const digits = (n) => String(Math.floor(Math.random() * 10 ** n)).padStart(n, '0');
	const number = () =>
		spread ? `+${1 + Math.floor(Math.random() * 9)}${digits(14)}` : `+346${digits(8)}`;
	const numbers = [...new Set(Array.from({ length: count }, number))];
	const table = new CallTable();
	table.startSweep();
	const signature = readCall({
		phoneNumber: numbers[0],
		status: 'answered',
		attempts: 1,
	}).signature;
	for (const phone of numbers) {
		table.set(table.find(phone, signature).slot, { signature, held: false, lastEnded: 1 });
	}
	return JSON.stringify(table.encode()).length / numbers.length;
}

// `node --import tsx bench/callFinishedScale.mjs [numbers]` prints one run's figures.
if (import.meta.url === `file://${process.argv[1]}`) {
	const numbers = Number(process.argv[2] ?? 100_000);
	const started = Date.now();
	const figures = await measureCallFinishedScale({ numbers });
	console.log(JSON.stringify({ ...figures, benchSeconds: (Date.now() - started) / 1000 }, null, 1));
}
