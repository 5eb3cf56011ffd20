// Polls that hold, against the sandbox over loopback: a slow API (every answer held back), one
// that takes requests and never answers, and two polls of one node at once. Each poll keeps to
// its time (a short one here, as n8n's getPollBudgetMs() would give), reads on from where the
// last one stopped, and reports every event once; a poll that cannot read fails with its cause.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { MessengerTrigger } from '../../../nodes/Messenger/MessengerTrigger.node.ts';
import { VoiceAi } from '../../../nodes/VoiceAi/VoiceAi.node.ts';
import { VoiceAiTrigger } from '../../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { doubled, endedAttempts, itemKey } from '../../../tools/callTruth.mjs';
import { retrySettings } from '../../../tools/nodeShared.mjs';
import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { sandboxSuite, unpacedRunner, watcher } from '../../support/integration.mjs';

/** What n8n would give as the poll's budget: short, so that a slow API fills it. */
const BUDGET_MS = 2_000;
/** Slack for the event loop and the last answer's bytes on a loaded machine. */
const SLACK_MS = 400;
const UNPACED = { credentials: { requestsPerMinute: 0 } };

/** Polls once, timing it; the result, or the error it threw, and how long it took. */
async function timedPoll(w) {
	const started = Date.now();
	try {
		return { ...(await w.poll()), ms: Date.now() - started };
	} catch (error) {
		return { error, items: [], ms: Date.now() - started };
	}
}

const dataReads = (sandbox, mark, campaign) =>
	sandbox.log.slice(mark).filter((e) => e.path === `/api/v1/voice/campaigns/${campaign.id}/data`)
		.length;

describe('polls keep to their time against a slow API', () => {
	const env = sandboxSuite(
		{ campaignCount: 6, activeCampaignCount: 0, rateLimitPerMinute: 0 },
		undefined,
		{ each: true },
	);

	it('Call Finished: the baseline is read over several polls in their time, then every attempt once', async () => {
		const { sandbox } = env;
		// 30 pages of call data; each answer takes 80 ms, so a poll of 2 s reads about 20.
		sandbox.setFaults({ latencyMs: 80 });
		const campaign = sandbox.startCallCampaign({ numbers: 3_000, lines: 300 });
		sandbox.stepCalls(2);
		const before = endedAttempts(sandbox, campaign);
		const w = watcher(
			VoiceAiTrigger,
			sandbox,
			{ event: 'callFinished', dataRequestsPerPoll: 100 },
			{ ...UNPACED, pollBudgetMs: BUDGET_MS },
		);
		const polls = [];
		const mark = sandbox.log.length;
		// The baseline: silent, and spread over polls until the campaign's data was read once.
		do {
			polls.push(await timedPoll(w));
			assert.equal(polls.at(-1).error, undefined, polls.at(-1).error?.message);
			assert.deepEqual(polls.at(-1).items, [], 'the baseline reports nothing');
		} while (w.staticData.poll.state.watched[campaign.id]?.silent);
		assert.ok(polls.length >= 2, `the baseline took ${polls.length} poll(s)`);
		assert.ok(dataReads(sandbox, mark, campaign) >= 30, 'every page was read once');

		const items = [];
		const watched = () => w.staticData.poll.state.watched[campaign.id];
		// Calls move on once the last sweep has read every page: an attempt that a retry follows
		// before its page is read again is not seen, whatever the poll's time (a slow machine
		// reads fewer pages a poll).
		for (let i = 0; i < 200 && watched(); i++) {
			if (campaign.status !== 'completed' && !watched().cursor) sandbox.stepCalls();
			const poll = await timedPoll(w);
			assert.equal(poll.error, undefined, poll.error?.message);
			polls.push(poll);
			items.push(...poll.items);
		}
		assert.equal(watched(), undefined, 'the ended campaign was read a last time and dropped');
		const truth = endedAttempts(sandbox, campaign);
		const expected = [...truth.keys()].filter((key) => !before.has(key));
		assert.deepEqual(doubled(items), [], 'nothing twice');
		assert.deepEqual(items.map(itemKey).sort(), expected.sort(), 'every attempt once');
		const longest = Math.max(...polls.map((p) => p.ms));
		assert.ok(longest <= BUDGET_MS + SLACK_MS, `the longest poll took ${longest} ms`);
	});

	it('Message Received: more chats than a poll can read are read in turn; each message once', async () => {
		const { sandbox } = env;
		// 40 chats, one request each: a poll of 2 s reads about 20 of them.
		const chats = Array.from(
			{ length: 40 },
			(_, i) => sandbox.customerWrites({ phone: `+3460055${String(i).padStart(4, '0')}` }).chat,
		);
		sandbox.setFaults({ latencyMs: 80 });
		const w = watcher(
			MessengerTrigger,
			sandbox,
			{
				event: 'messageReceived',
				direction: 'inbound',
				messageTypes: [],
				chats: chats.map((c) => c.id).join('\n'),
			},
			{ client: DEMO_CLIENTS.messengerOnly, ...UNPACED, pollBudgetMs: BUDGET_MS },
		);
		const polls = [];
		const watched = () => Object.keys(w.staticData.poll?.state.chats ?? {}).length;
		do {
			polls.push(await timedPoll(w));
			assert.equal(polls.at(-1).error, undefined, polls.at(-1).error?.message);
		} while (watched() < chats.length && polls.length < 10);
		assert.ok(w.staticData.poll.state.next, 'a poll stops before the last chat');
		assert.ok(polls.length >= 2, `the baseline took ${polls.length} poll(s)`);
		assert.deepEqual(
			polls.flatMap((p) => p.items),
			[],
		);
		const written = chats.map(
			(chat, i) => sandbox.customerWrites({ chatId: chat.id, text: `order ${i}` }).items[0].id,
		);
		const items = [];
		for (let i = 0; i < 8 && items.length < written.length; i++) {
			const poll = await timedPoll(w);
			assert.equal(poll.error, undefined, poll.error?.message);
			polls.push(poll);
			items.push(...poll.items);
		}
		assert.deepEqual(items.map((i) => i.messageId).sort(), [...written].sort());
		const longest = Math.max(...polls.map((p) => p.ms));
		assert.ok(longest <= BUDGET_MS + SLACK_MS, `the longest poll took ${longest} ms`);
	});

	it('two polls of one node at once: the second returns nothing and sends nothing', async () => {
		const { sandbox } = env;
		sandbox.setFaults({ latencyMs: 300 });
		const w = watcher(VoiceAiTrigger, sandbox, { event: 'newCampaign' }, UNPACED);
		await w.poll();
		sandbox.addCampaign();
		const mark = sandbox.log.length;
		const [first, second] = await Promise.all([w.poll(), w.poll()]);
		assert.equal(first.items.length, 1);
		assert.deepEqual(second.items, []);
		assert.equal(
			sandbox.log.slice(mark).filter((e) => e.path === '/api/v1/voice/campaigns').length,
			1,
			'one poll asked',
		);
		assert.deepEqual((await w.poll()).items, [], 'and it is not reported again');
	});
});

describe('an API that takes requests and never answers', () => {
	const saved = { ...retrySettings };
	before(() => Object.assign(retrySettings, { requestTimeoutMs: 1_000, baseDelayMs: 1 }));
	after(() => Object.assign(retrySettings, saved));
	const env = sandboxSuite({ campaignCount: 6, rateLimitPerMinute: 0 }, undefined, {
		each: true,
	});

	it('a poll ends in its time with temporarily-unavailable; the next poll reports what it missed, once', async () => {
		const { sandbox } = env;
		const w = watcher(
			VoiceAiTrigger,
			sandbox,
			{ event: 'newCampaign' },
			{ ...UNPACED, pollBudgetMs: BUDGET_MS },
		);
		await w.poll();
		const state = JSON.stringify(w.staticData);
		sandbox.setFaults({ hangRate: 1 });
		const created = sandbox.addCampaign();
		const hung = await timedPoll(w);
		assert.ok(hung.error, 'the poll failed');
		assert.match(hung.error.message, /time budget \(2 s\) while waiting for the API to answer/);
		assert.deepEqual(hung.error.failure, { cause: 'temporarily-unavailable' });
		assert.ok(hung.ms <= BUDGET_MS + SLACK_MS, `it took ${hung.ms} ms`);
		assert.equal(JSON.stringify(w.staticData), state, 'the state as it was');
		sandbox.setFaults({});
		assert.deepEqual(
			(await w.poll()).items.map((c) => c.id),
			[created.id],
		);
		assert.deepEqual((await w.poll()).items, []);
	});

	it('outside a poll, a request fails after its timeout instead of holding the execution', async () => {
		const { sandbox } = env;
		sandbox.setFaults({ hangRate: 1 });
		const voice = unpacedRunner(VoiceAi, sandbox);
		const started = Date.now();
		const [item] = await voice.run(() => ({ resource: 'billing', operation: 'getBalance' }), {
			continueOnFail: true,
		});
		const took = Date.now() - started;
		assert.match(item.json.error, /did not answer within 1 s, also when asked again/);
		assert.ok(took < 3 * 1_000 + 2_000, `three attempts of 1 s, took ${took} ms`);
	});
});
