#!/usr/bin/env node
// npm run bench: figures measured in one run against the sandbox on loopback, each with what
// it is compared against. Not a test: it never fails on a timing.
import { arch, cpus, totalmem } from 'node:os';

import {
	concurrentTokenRequests,
	messageTriggerRequestsPerPoll,
	packageFacts,
	returnAllRequests,
	tokenRequests,
	triggerRequestsPerPoll,
} from './requestCounts.mjs';
import {
	BEFORE_AT_SCALE,
	HASHED_AT_SCALE,
	measureCallFinishedScale,
	stateCharsPerNumber,
} from './callFinishedScale.mjs';
import { measureCallResults } from './callResults.mjs';
import { FAIR_SHARE_2518AEC, measureCallFinishedBusy } from './callFinishedBusy.mjs';
import { measureCpuPerItem } from './cpuPerItem.mjs';
import { conversationMinutes, LIVE_GOALS } from './conversations.mjs';
import { measureLiveConversations, measureOneChatFailing } from './liveConversations.mjs';
import { measureLiveConversationsInN8n } from './liveConversationsN8n.mjs';
import { measureLiveCycles } from './liveCycles.mjs';
import { measureLiveStormRecovery, STORM_RUN } from './liveStormRecovery.mjs';
import { measureSharedLimit } from './sharedLimit.mjs';
import { measureSlowPolls } from './slowPolls.mjs';
import { measureSustainedRate } from './sustainedRate.mjs';
import { measureUploadMemory } from './uploadMemory.mjs';
import { measureDownloadMemoryInN8n } from './downloadMemoryN8n.mjs';
import { measureUploadMemoryInN8n } from './uploadMemoryN8n.mjs';

const rows = [];
const add = (name, value, goal, note = '') => rows.push({ name, value: String(value), goal, note });
/** A latency's p50 / p95 in seconds, as the live rows show it. */
const seconds = ({ p50, p95 }) => `${p50.toFixed(1)} / ${p95.toFixed(1)}`;
/** The goal of a live row at `chats` for `latency` ('followUp' or 'first'): LIVE_GOALS', at its size. */
function liveGoal(chats, latency) {
	if (chats !== LIVE_GOALS.chats) return '';
	const { p50, p95 } = LIVE_GOALS[latency];
	return `<= ${p50} / ${p95 ?? '–'}`;
}

// `npm run bench -- --only-n8n-live`: the Messenger Live Trigger's real-n8n rows alone (about 55
// minutes), to measure again quickly after a change to its scheduling.
if (process.argv.includes('--only-n8n-live')) {
	await addLiveN8nRows();
	printTable();
	process.exit(0);
}

// First, while the process is fresh: RSS counts everything the process ever grew to.
const upload = await measureUploadMemory();
add(
	'Send Media File 20 MiB in memory (in process): peak extra Buffer memory / file size',
	upload.peakBufferRatio.toFixed(2),
	'<= 1.1',
	'the bytes decoded from the item’s base64 (1.0), sent without a copy; was 2.00 (plus a multipart copy)',
);
add(
	'Send Media File 20 MiB in memory (in process): peak extra RSS / file size',
	upload.peakRssRatio.toFixed(2),
	'<= 1.1',
	'whole process, after a warm-up upload of the same size (whose freed memory it reuses)',
);

/**
 * Whether the real-n8n rows of `what` are left out: --skip-n8n (all), --skip-n8n-upload,
 * --skip-n8n-download, --skip-n8n-live.
 */
const skipN8n = (what) =>
	process.argv.includes('--skip-n8n') || process.argv.includes(`--skip-n8n-${what}`);
const mb = (bytes) => `${bytes < 0 ? '−' : '+'}${(Math.abs(bytes) / 1e6).toFixed(0)} MB`;

// Real n8n, default binary mode (filesystem): a few minutes each.
if (!skipN8n('upload')) {
	for (const figures of await measureUploadMemoryInN8n()) {
		const mib = figures.sizeBytes / 2 ** 20;
		const extra = (variant) => figures[variant] - figures.baseline;
		add(
			`Send Media File ${mib} MiB, real n8n (filesystem mode): peak extra RSS / file size`,
			(extra('ours') / figures.sizeBytes).toFixed(2),
			'<= 0.1',
			`${mb(extra('ours'))}; HTTP Request node (multipart, this credential): ${(extra('httpRequest') / figures.sizeBytes).toFixed(2)}, ${mb(extra('httpRequest'))} (goal: ours <= it + 16 MB); baseline (Read File, No Operation) ${(figures.baseline / 1e6).toFixed(0)} MB, its runs ${(figures.baselineSpread / 1e6).toFixed(0)} MB apart; n8n 2.41.1, \`n8n execute\` max RSS by /usr/bin/time -v, median of ${figures.runs}`,
		);
	}
}

if (!skipN8n('download')) {
	const figures = await measureDownloadMemoryInN8n();
	const mib = figures.sizeBytes / 2 ** 20;
	const extra = (variant) => figures[variant] - figures.baseline;
	add(
		`Download Media ${mib} MiB, real n8n (filesystem mode): peak extra RSS / file size`,
		(extra('ours') / figures.sizeBytes).toFixed(2),
		'<= 0.1',
		`${mb(extra('ours'))}; HTTP Request node (Response Format: File, this credential): ${(extra('httpRequest') / figures.sizeBytes).toFixed(2)}, ${mb(extra('httpRequest'))}; baseline (Message → Get) ${(figures.baseline / 1e6).toFixed(0)} MB, its runs ${(figures.baselineSpread / 1e6).toFixed(0)} MB apart; n8n 2.41.1, \`n8n execute\` max RSS by /usr/bin/time -v, median of ${figures.runs}`,
	);
}

const tokens = await tokenRequests();
add(
	'Token requests, 20 executions × 50 calls, one token lifetime',
	tokens.tokens,
	'1',
	`HTTP Request node pattern (a token request per execution): 20; calls made: ${tokens.calls}`,
);

const burst = await concurrentTokenRequests();
add(
	'Token requests, 20 executions of one process finding no token at once',
	burst.shared.requests,
	'1',
	`a request per execution: ${burst.perExecution.requests}, of which ${burst.perExecution.refused} refused (10 a minute) and ${burst.perExecution.failed} executions failed; shared: ${burst.shared.failed} failed`,
);

const rate = await measureSustainedRate();
add(
	'Sustained rate under the rate limit / the limit (400 sends, limit 100 per window)',
	rate.efficiency.toFixed(3),
	'>= 0.95',
	`lost ${rate.lost}, duplicated ${rate.duplicated}, 429 answers ${rate.refused}; window scaled to 10 s; ${(rate.elapsed / 1000).toFixed(1)} s`,
);

// Today's fixed pacing is measured beside the adaptive one; alone, the two are the same pacing.
for (const processes of [1, 2, 4]) {
	const adaptive = await measureSharedLimit({ processes, adaptive: true });
	const fixed =
		processes > 1 ? await measureSharedLimit({ processes, adaptive: false }) : undefined;
	const facts = (r) =>
		`${(r.refusedShare * 100).toFixed(1)} % answered 429, lost ${r.lost}, duplicated ${r.duplicated}`;
	add(
		`${processes} process${processes > 1 ? 'es' : ''} sharing one limit (1,000 sends, 100 per window, refusals count): completed per window / limit`,
		adaptive.perWindow.toFixed(3),
		processes > 1 ? '>= 0.9' : '>= 0.95',
		`${facts(adaptive)}; ${fixed ? `fixed pacing: ${fixed.perWindow.toFixed(3)}, ${facts(fixed)}` : 'window scaled to 2 s'}`,
	);
}

const returnAll = await returnAllRequests();
add(
	'Requests for Return All over 10,000 agents',
	returnAll.requests,
	'100',
	`floor: 10,000 / 100 per page; items: ${returnAll.items}`,
);

const trigger = await triggerRequestsPerPoll();
add(
	'Trigger requests per poll, 10,000 campaigns, 20 active',
	trigger.steady,
	'<= 4',
	`a poll after statuses moved: ${trigger.afterChanges} (+1 GET per campaign that finished)`,
);

const messages = await messageTriggerRequestsPerPoll();
add(
	'Message Received requests per poll, 50 watched chats, nothing new',
	messages.quiet,
	'50',
	`3 of the chats receiving 250 messages each: ${messages.burst} requests (goal 50 + 6 extra pages), ${messages.emitted} messages reported`,
);

// Messenger Live Trigger, customers in conversation (about 5 minutes in all, time run 5× faster).
for (const chats of [5, LIVE_GOALS.chats, 50]) {
	const minutes = conversationMinutes(chats, 4);
	const live = await measureLiveConversations({ chats, minutes, speedup: 5 });
	const spent = `${live.readsPerMinute.toFixed(1)} chat reads a minute (budget 60), ${live.requestsPerMinute.toFixed(1)} requests a minute with the answers, ${live.refused} × 429; ${live.written} messages, lost ${live.lost}, doubled ${live.doubled}; Poll Times every minute (real n8n 2.41.1, 10 chats): 30.1 / 63.7 s; time scaled ×0.2`;
	add(
		`Messenger Live Trigger, ${chats} chats in conversation: follow-ups, message → workflow start p50 / p95 (s)`,
		seconds(live.followUp),
		liveGoal(chats, 'followUp'),
		`${live.followUp.n} follow-ups; ${spent}; ${minutes} minutes of conversation`,
	);
	add(
		`Messenger Live Trigger, ${chats} chats in conversation: first messages, message → workflow start p50 / p95 (s)`,
		seconds(live.first),
		liveGoal(chats, 'first'),
		`${live.first.n} first messages`,
	);
}

// Messenger Live Trigger with one of 20 chats failing, against the same run without (about 5 minutes).
const oneFailing = await measureOneChatFailing({
	chats: LIVE_GOALS.chats,
	minutes: LIVE_GOALS.minutes,
});
{
	const { healthy, faulty } = oneFailing;
	add(
		`Messenger Live Trigger, 1 of ${LIVE_GOALS.chats} chats answering 500 on every read: the other chats' follow-ups p50, with the fault / without`,
		oneFailing.ratio.toFixed(2),
		'<= 1.2',
		`follow-ups p50 / p95 ${seconds(faulty.followUp)} s against ${seconds(healthy.followUp)} s, first messages ${seconds(faulty.first)} s against ${seconds(healthy.first)} s (${faulty.followUp.n} and ${healthy.followUp.n} follow-ups; the failing chat has no customer, in both runs); ${faulty.failedReads} requests to the failing chat, ${faulty.failedExecutions} failed executions; ${faulty.readsPerMinute.toFixed(1)} and ${healthy.readsPerMinute.toFixed(1)} other reads a minute; lost ${faulty.lost}, doubled ${faulty.doubled}; ${LIVE_GOALS.minutes} minutes of conversation, time scaled ×0.2`,
	);
}

// Messenger Live Trigger activated and deactivated 200 times (in process, about 10 s).
const cycles = await measureLiveCycles();
add(
	`Messenger Live Trigger, ${cycles.cycles} activations and deactivations: triggers left in memory after a full GC`,
	cycles.retained,
	'0',
	`requests sent after closeFunction resolved: ${cycles.afterStop} (goal 0); heap ${(cycles.bytesPerCycle / 1000).toFixed(1)} kB a cycle after warming up (the sandbox's own messages, about 3.5 kB, included); ${cycles.handedOver} messages handed over`,
);

// Messenger Live Trigger after a storm of 429s (in process, time run 6 times faster, about 2
// minutes a load). Saturated: the trigger's reads and the workflow's answers use all of the API's
// 100 a minute, so what the storm held back drains only from the reads' share; with headroom, from
// what is left.
for (const load of ['headroom', 'saturated']) {
	const storm = await measureLiveStormRecovery({ load });
	const { min, max } = STORM_RUN.writeEverySeconds[load];
	const ratios = (values) => values.map((ratio) => ratio.toFixed(2)).join(', ');
	add(
		`Messenger Live Trigger, 20 chats writing every ${min}–${max} s (${load}), after ${STORM_RUN.storm} minutes of 429s: p50 latency in each minute after the storm / before it`,
		ratios(storm.ratios),
		load === 'headroom' ? '<= 1.2 from the 2nd minute' : '',
		`p50 ${storm.normal.toFixed(1)} s before the storm, ${storm.minutes.map((p50) => p50.toFixed(1)).join(', ')} s in the minutes after it; message to answer sent, after / before: ${ratios(storm.answerRatios)} (p50 ${storm.normalAnswer.toFixed(1)} s before); reads ${storm.reads.join(', ')} and answers ${storm.answers.join(', ')} in those minutes (${storm.readsBefore.toFixed(0)} reads a minute before); ${storm.refused} × 429; ${storm.written} messages, lost ${storm.lost}, doubled ${storm.doubled}; time scaled ×1/6`,
	);
}

// The same customers in a real n8n, in real time: 2.41.1 and 1.123.81, about 55 minutes.
if (!skipN8n('live')) await addLiveN8nRows();

/** The Messenger Live Trigger's rows measured in a real n8n (liveConversationsN8n.mjs). */
async function addLiveN8nRows() {
	for (const live of await measureLiveConversationsInN8n()) {
		const label = `Messenger Live Trigger, real n8n ${live.version}, ${live.chats} chats in conversation`;
		add(
			`${label}: follow-ups, message → execution start p50 / p95 (s)`,
			seconds(live.followUp),
			liveGoal(live.chats, 'followUp'),
			`${live.followUp.n} follow-ups; ${live.readsPerMinute.toFixed(1)} chat reads a minute (at most ${live.mostReadsInAMinute} in any minute; budget 60), ${live.requestsPerMinute.toFixed(1)} requests a minute with the answers, ${live.refused} × 429; ${live.written} messages, lost ${live.lost}, doubled ${live.doubled}; ${live.executions} executions, ${live.failed} failed; a follow-up's read to its execution's start p50 ${live.split.toStart.p50.toFixed(2)} s${live.unreadAtStart ? `; ${live.unreadAtStart} chats not yet read when the customers started` : ''}${live.readsAfterDeactivation ? `; ${live.readsAfterDeactivation} reads after deactivation` : ''}; ${live.minutes} minutes of conversation, real time`,
		);
		add(
			`${label}: first messages, message → execution start p50 / p95 (s)`,
			seconds(live.first),
			liveGoal(live.chats, 'first'),
			`${live.first.n} first messages`,
		);
	}
}

for (const { numbers, trigger: calls, everyPage } of await measureCallResults()) {
	const label = `Call Finished, a running campaign of ${numbers.toLocaleString('en-US')} numbers (5 % ending a minute)`;
	add(
		`${label}: requests per poll / reading every page`,
		(calls.requests / everyPage.requests).toFixed(2),
		'<= 1',
		`${calls.requests.toFixed(1)} (at most ${calls.maxRequests}) vs ${everyPage.requests.toFixed(1)} a poll; floor (one read of each page that changed, an API sorting by last change): ${calls.floor.toFixed(1)}, ${(calls.requests / calls.floor).toFixed(1)}× it`,
	);
	add(
		`${label}: polls until a result is reported`,
		calls.lag.toFixed(2),
		'<= 3',
		`at most ${calls.maxLag}; every page each poll: ${everyPage.lag.toFixed(2)}; ${calls.attempts} attempts over ${calls.polls} polls, lost ${calls.lost}, doubled ${calls.doubled} (every page: lost ${everyPage.lost}, doubled ${everyPage.doubled})`,
	);
}

for (const busy of await measureCallFinishedBusy()) {
	const before = FAIR_SHARE_2518AEC[busy.idle];
	const skipped = (figures) =>
		figures.skipped ? `, ${figures.skipped} counted as skipped (retried before being read)` : '';
	add(
		`Call Finished, a busy workspace (2,000 + 40 numbers calling, ${busy.idle} idle open campaigns): polls until every result of a step is in`,
		busy.polls.toFixed(2),
		'<= 2',
		`at most ${busy.maxPolls} over ${busy.perStep.length} steps; ${busy.requests.toFixed(1)} requests a poll (at most ${busy.maxRequests}); ${busy.attempts} attempts, lost ${busy.lost}, doubled ${busy.doubled}${skipped(busy)}; fair share of 2518aec: ${before.polls.toFixed(2)} polls, max ${before.maxPolls}, ${before.requests.toFixed(1)} requests a poll (at most ${before.maxRequests}), lost ${before.lost}, doubled ${before.doubled}${skipped(before)}`,
	);
}

const scale = await measureCallFinishedScale();
{
	const label = 'Call Finished, 100,000 numbers, 100 data requests a poll';
	const before = BEFORE_AT_SCALE;
	const mbOf = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;
	add(
		`${label}: state bytes per ended number`,
		scale.bytesPerEndedNumber.toFixed(2),
		'<= 12',
		`a running campaign, 5 % of its numbers ending a minute; the node's static data as n8n stores it, ${mbOf(scale.stateBytes)} at ${scale.endedNumbers.toLocaleString('en-US')} ended numbers: one text per campaign, numbers kept exactly; keys hashed to 36 bits (two numbers could meet): ${HASHED_AT_SCALE.bytesPerEndedNumber.toFixed(2)}; before: ${before.bytesPerEndedNumber.toFixed(2)} (${mbOf(before.stateBytes)}, an object per number, copied whole at every poll)`,
	);
	const spread = stateCharsPerNumber(100_000, true);
	add(
		`${label}: state bytes per number, numbers spread over every country`,
		spread.toFixed(2),
		'<= 12',
		`the worst case for keys kept as distances: 100,000 numbers anywhere in E.164's range; one country's (the sandbox's): ${stateCharsPerNumber(100_000).toFixed(2)}`,
	);
	add(
		`${label}: polls until every result is in, after the last call`,
		scale.resultsInAfter,
		`<= ${scale.sweepPolls + 1}`,
		`one read of every page: ${scale.sweepPolls} polls; the first read (silent) over ${scale.firstReadPolls} polls; ${scale.requests.toFixed(1)} requests a poll (at most ${scale.maxRequests}; the API's 100 a minute, ${scale.refused} refused); a poll ${scale.meanMs.toFixed(0)} ms in process (longest ${scale.maxMs.toFixed(0)}), ${scale.cpuMs.toFixed(0)} ms of CPU with the sandbox answering; a result waits ${scale.lag.toFixed(1)} polls (at most ${scale.maxLag}); ${scale.attempts.toLocaleString('en-US')} attempts, lost ${scale.lost}, twice ${scale.twice}, ${scale.skippedAttempts} counted as skipped; keys hashed: ${HASHED_AT_SCALE.meanMs} ms (${HASHED_AT_SCALE.cpuMs} ms of CPU); before: every result in after ${before.resultsInAfter}, first read over ${before.firstReadPolls}, ${before.requests} requests a poll, ${before.meanMs} ms (${before.cpuMs} ms of CPU), lost ${before.lost}, twice ${before.twice}; time scaled ×${scale.scale}`,
	);
}

const slow = await measureSlowPolls();
const slowNote = (figures, extra) =>
	`longest ${((figures.longest / slow.scale.budgetMs) * 40).toFixed(1)} s of 40 s; ${figures.polls} polls started each minute whatever the last did, ${figures.skipped} skipped while the last ran, ${figures.failed} failed; abandoned (past 45 s): ${figures.abandoned}; events twice: ${figures.twice}, lost: ${figures.lost} of ${figures.events}; ${extra}; time scaled ×${slow.scale.latencyMs / 1500}`;
add(
	'Call Finished, slow API (1.5 s an answer), 3,000 numbers, 100 data requests a poll: longest poll / its budget',
	(slow.callFinished.longest / slow.scale.budgetMs).toFixed(2),
	'<= 1',
	slowNote(slow.callFinished, 'one read of its 30 pages alone takes 45 s'),
);
add(
	'Message Received, slow API (1.5 s an answer), 50 watched chats: longest poll / its budget',
	(slow.messageReceived.longest / slow.scale.budgetMs).toFixed(2),
	'<= 1',
	slowNote(slow.messageReceived, 'one read of every chat takes 75 s'),
);

const cpu = await measureCpuPerItem({ items: 1000, runs: 3 });
add(
	'CPU per item, Voice AI node / HTTP Request node, same calls and credential, real n8n',
	cpu.ratio.toFixed(2),
	'<= 1.0',
	`${cpu.ours.toFixed(2)} vs ${cpu.httpRequest.toFixed(2)} ms per item; n8n 2.41.1, ${cpu.items} items, median of ${cpu.runs}`,
);

const facts = packageFacts();
add(
	'Packed package size (kB)',
	(facts.packedBytes / 1000).toFixed(1),
	'< 150',
	`${facts.files} files`,
);
add('Runtime dependencies', facts.dependencies, '0', `peer: ${facts.peers.join(', ')}`);

printTable();

/** Prints the machine and the rows as a Markdown table. */
function printTable() {
	const width = Math.max(...rows.map((r) => r.name.length));
	const valueWidth = Math.max(5, ...rows.map((r) => r.value.length));
	process.stdout.write(
		`machine: ${cpus().length} × ${cpus()[0]?.model ?? arch()}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}\n\n`,
	);
	process.stdout.write(
		`| ${'measure'.padEnd(width)} | ${'value'.padEnd(valueWidth)} | goal  | compared with |\n`,
	);
	process.stdout.write(`|${'-'.repeat(width + 2)}|${'-'.repeat(valueWidth + 2)}|-------|---|\n`);
	for (const row of rows) {
		process.stdout.write(
			`| ${row.name.padEnd(width)} | ${row.value.padEnd(valueWidth)} | ${row.goal.padEnd(5)} | ${row.note} |\n`,
		);
	}
}
