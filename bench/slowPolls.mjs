// Polls against a slow API (in this process, against the sandbox on loopback), on a schedule that
// starts each poll on time whatever the last one does, as n8n's default scheduler does. Time is
// scaled down (SCALE): a 1.5 s answer is 75 ms, the minute between polls 3 s, the poll's budget
// (n8n 2.41's getPollBudgetMs under its durable scheduler, about 40 s) 2 s, and that scheduler's
// timeout (45 s), past which it abandons a poll, 2.25 s. Per trigger: the longest poll against
// its budget, polls that would have been abandoned, polls skipped because the last one still ran,
// and events reported twice or never.
import { MessengerTrigger } from '../nodes/Messenger/MessengerTrigger.node.ts';
import { MAX_WATCHED_CHATS } from '../nodes/Messenger/trigger/messageSettings.ts';
import { isPolling } from '../nodes/shared/poll.ts';
import { VoiceAiTrigger } from '../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { DEMO_CLIENTS, startSandbox } from '../sandbox/server.mjs';
import { doubled, endedAttempts, itemKey } from '../tools/callTruth.mjs';
import { createPollContext, sandboxHttp } from '../tools/context.mjs';

const SCALE = 0.05;
const LATENCY_MS = 1_500 * SCALE;
const INTERVAL_MS = 60_000 * SCALE;
const BUDGET_MS = 40_000 * SCALE;
const ABANDONED_AFTER_MS = 45_000 * SCALE;

/**
 * Runs `ticks` polls of one trigger node on the schedule, calling `between(tick)` before each;
 * resolves to each poll's duration and items, once all have ended.
 */
async function onSchedule({ sandbox, NodeClass, client, params, ticks, between }) {
	const auth = sandboxHttp(sandbox, client, { requestsPerMinute: 0 });
	const staticData = {};
	const trigger = new NodeClass();
	const polls = [];
	const running = [];
	for (let tick = 0; tick < ticks; tick++) {
		between(tick);
		const { context } = createPollContext({
			params,
			http: auth.httpRequestWithAuthentication,
			credentials: auth.store.data,
			staticData,
			pollBudgetMs: BUDGET_MS,
			workflowId: `bench-${params.event}`,
		});
		const started = Date.now();
		// The last poll of the node still runs: this one is skipped (poll.ts).
		const poll = { ms: 0, items: [], skipped: isPolling(context), failed: undefined };
		polls.push(poll);
		running.push(
			trigger.poll
				.call(context)
				.then((result) => {
					poll.items = result ? result[0].map((item) => item.json) : [];
				})
				.catch((error) => (poll.failed = error.message ?? String(error)))
				.finally(() => (poll.ms = Date.now() - started)),
		);
		await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
	}
	await Promise.all(running);
	return { polls, staticData };
}

const summary = (polls) => {
	const ran = polls.filter((p) => !p.skipped);
	return {
		polls: polls.length,
		skipped: polls.length - ran.length,
		failed: polls.filter((p) => p.failed).length,
		longest: Math.max(...ran.map((p) => p.ms)),
		abandoned: ran.filter((p) => p.ms > ABANDONED_AFTER_MS).length,
	};
};

/** Call Finished, Data Requests per Poll at its most, a campaign of 3,000 numbers (30 pages). */
async function callFinished() {
	const sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 0, activeCampaignCount: 0 });
	try {
		sandbox.setFaults({ latencyMs: LATENCY_MS });
		const campaign = sandbox.startCallCampaign({ numbers: 3_000, lines: 600, retryDelaySteps: 4 });
		sandbox.stepCalls(1);
		let before;
		const { polls } = await onSchedule({
			sandbox,
			NodeClass: VoiceAiTrigger,
			client: DEMO_CLIENTS.full,
			params: { event: 'callFinished', dataRequestsPerPoll: 100 },
			ticks: 24,
			// The first results land once the baseline has been read (two polls).
			between: (tick) => {
				if (tick === 3) before = endedAttempts(sandbox, campaign);
				if (tick >= 3 && campaign.status !== 'completed') sandbox.stepCalls();
			},
		});
		const items = polls.flatMap((p) => p.items);
		const reported = new Set(items.map(itemKey));
		const truth = [...endedAttempts(sandbox, campaign).keys()].filter((key) => !before.has(key));
		return {
			...summary(polls),
			twice: doubled(items).length,
			lost: truth.filter((key) => !reported.has(key)).length,
			events: truth.length,
			completed: campaign.status === 'completed',
		};
	} finally {
		await sandbox.close();
	}
}

/** Message Received, the most watched chats (50, a request each), 10 customers writing a poll. */
async function messageReceived() {
	const sandbox = await startSandbox({ port: 0, rateLimitPerMinute: 0 });
	try {
		const chats = Array.from(
			{ length: MAX_WATCHED_CHATS },
			(_, i) => sandbox.customerWrites({ phone: `+3460077${String(i).padStart(4, '0')}` }).chat,
		);
		sandbox.setFaults({ latencyMs: LATENCY_MS });
		const written = [];
		const ticks = 12;
		const { polls } = await onSchedule({
			sandbox,
			NodeClass: MessengerTrigger,
			client: DEMO_CLIENTS.messengerOnly,
			params: {
				event: 'messageReceived',
				direction: 'inbound',
				messageTypes: [],
				chats: chats.map((c) => c.id).join('\n'),
			},
			ticks,
			// After the baseline, 10 chats get a message before each poll but the last four.
			between: (tick) => {
				if (tick < 2 || tick >= ticks - 4) return;
				for (let i = 0; i < 10; i++) {
					const chat = chats[(tick * 10 + i) % chats.length];
					written.push(sandbox.customerWrites({ chatId: chat.id }).items[0].id);
				}
			},
		});
		const items = polls.flatMap((p) => p.items);
		const ids = items.map((item) => item.messageId);
		const reported = new Set(ids);
		return {
			...summary(polls),
			twice: ids.length - reported.size,
			lost: written.filter((id) => !reported.has(id)).length,
			events: written.length,
		};
	} finally {
		await sandbox.close();
	}
}

/** Both triggers' figures. */
export async function measureSlowPolls() {
	return {
		scale: { latencyMs: LATENCY_MS, intervalMs: INTERVAL_MS, budgetMs: BUDGET_MS },
		callFinished: await callFinished(),
		messageReceived: await messageReceived(),
	};
}
