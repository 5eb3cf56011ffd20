// Call Finished's cost (in this process, against the sandbox on loopback): a running campaign of
// 500 and of 5,000 numbers with 5 % of its numbers ending per minute (a call step and a poll a
// minute; retries 30 minutes later), polled until it has ended and been read a last time. Beside
// it: reading every page at every poll (Data Requests per Poll at its most), and the floor, one
// read of each page that changed, which only an API sorting its data by last change allows.
import { VoiceAiTrigger } from '../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { CAMPAIGN_LIST_REQUESTS } from '../nodes/VoiceAi/trigger/callFinishedDescription.ts';
import { DEMO_CLIENTS, startSandbox } from '../sandbox/server.mjs';
import { doubled, endedAttempts, itemKey } from '../tools/callTruth.mjs';
import { createPollContext, sandboxHttp } from '../tools/context.mjs';

const PAGE = 100;
const mean = (values) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/**
 * One run: the campaign started and run a few minutes before activation, then a step and a poll
 * each minute until the trigger has dropped it. Per poll: the requests it made and, for the
 * floor, the records that changed since the poll before (last changed first: the first pages).
 */
async function run(numbers, dataRequestsPerPoll) {
	const sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 0, activeCampaignCount: 0 });
	try {
		const lines = Math.round(numbers * 0.05);
		const campaign = sandbox.startCallCampaign({ numbers, lines, retryDelaySteps: 30 });
		sandbox.stepCalls(3);
		const auth = sandboxHttp(sandbox, DEMO_CLIENTS.full, { requestsPerMinute: 0 });
		const staticData = {};
		const trigger = new VoiceAiTrigger();
		const poll = async () => {
			const { context } = createPollContext({
				params: { event: 'callFinished', dataRequestsPerPoll },
				http: auth.httpRequestWithAuthentication,
				credentials: auth.store.data,
				staticData,
			});
			const result = await trigger.poll.call(context);
			return result ? result[0].map((item) => item.json) : [];
		};
		await poll();
		const before = endedAttempts(sandbox, campaign);
		const landed = new Map();
		const items = [];
		const requests = [];
		const lags = [];
		const floor = [];
		const runState = sandbox.state.callRuns.get(campaign.id);
		let seen = runState.changes;
		for (let minute = 1; staticData.poll.state.watched[campaign.id] && minute < 2000; minute++) {
			if (campaign.status !== 'completed') sandbox.stepCalls();
			for (const key of endedAttempts(sandbox, campaign).keys()) {
				if (!before.has(key) && !landed.has(key)) landed.set(key, minute);
			}
			const changed = runState.changedAt.filter((at) => at > seen).length;
			seen = runState.changes;
			floor.push(CAMPAIGN_LIST_REQUESTS + Math.max(1, Math.ceil((changed + 1) / PAGE)));
			const mark = sandbox.log.length;
			for (const item of await poll()) {
				items.push(item);
				lags.push(minute - (landed.get(itemKey(item)) ?? minute) + 1);
			}
			requests.push(sandbox.log.slice(mark).filter((e) => !e.path.endsWith('/token')).length);
		}
		const truth = [...endedAttempts(sandbox, campaign).keys()].filter((key) => !before.has(key));
		const reported = new Set(items.map(itemKey));
		return {
			polls: requests.length,
			requests: mean(requests),
			maxRequests: Math.max(...requests),
			lag: mean(lags),
			maxLag: Math.max(...lags),
			floor: mean(floor),
			lost: truth.filter((key) => !reported.has(key)).length,
			doubled: doubled(items).length,
			attempts: truth.length,
		};
	} finally {
		await sandbox.close();
	}
}

/** The rows for campaigns of 500 and 5,000 numbers: the trigger, every page, the floor. */
export async function measureCallResults() {
	const results = [];
	for (const numbers of [500, 5000]) {
		results.push({
			numbers,
			trigger: await run(numbers, 20),
			everyPage: await run(numbers, 100),
		});
	}
	return results;
}
