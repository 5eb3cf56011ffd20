// Call Finished, proven over generated API histories: calls start, end and are retried (up to 5
// attempts) while the trigger reads the pages (also its first read), in up to 3 campaigns that
// complete, are cancelled, fail or are deleted; the API orders its data by number or by last
// change (newest or oldest first, so that pages shift under the reader), numbers are listed twice,
// records have the shapes docs/api.md allows (with or without attempts and calledAt), the API
// answers 503, 429, 403 or not at all at any request, n8n's clock is up to an hour from the API's,
// and n8n restarts between polls or in the middle of one, loading only the static data it saved
// (callHistories.mjs, n8nStaticData). The trigger's own code runs poll by poll against a model
// that knows every attempt; each attempt that ended after watching began is reported once or
// counted in skippedAttempts, and nothing else is reported.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { createRequire } from 'node:module';

import fc from 'fast-check';

import {
	allowedAttempts,
	expectedAttempts,
	itemKey,
	run,
	shownCalledAt,
	worldArbitrary,
} from '../../../support/callHistories.mjs';

// The settings as the trigger's own modules hold them: it loads them through require, and an
// import of the same file would be another copy that the trigger never reads.
const require = createRequire(import.meta.url);
const { retrySettings } = require('../../../../nodes/shared/transport.ts');
const { calledAtSettings } = require('../../../../nodes/VoiceAi/trigger/calledAt.ts');
const { fnv1a } = require('../../../../nodes/VoiceAi/trigger/callRecords.ts');

/**
 * Histories tried per property (each a whole run of polls, about 17 ms): 600 fit CI's time; FC_RUNS
 * sets another number (20,000 before a release).
 */
const RUNS = Number(process.env.FC_RUNS ?? 600);
/** FC_SEED runs the histories of that seed; with FC_PATH, the failure fast-check printed. */
const SEED = {
	...(process.env.FC_SEED === undefined ? {} : { seed: Number(process.env.FC_SEED) }),
	...(process.env.FC_PATH === undefined ? {} : { path: process.env.FC_PATH, endOnFailure: true }),
};

describe('Call Finished over generated histories', () => {
	// A 503 is asked again at once: the histories' time is the model's, not the clock's. Its clocks
	// are exact but for the Date header's whole seconds: the meaning of calledAt is learned with
	// that error allowed for (its calls last seconds, not minutes).
	const saved = { ...retrySettings };
	const savedSlack = calledAtSettings.clockSlackMs;
	before(() => {
		Object.assign(retrySettings, { baseDelayMs: 0, maxDelayMs: 0 });
		calledAtSettings.clockSlackMs = 1000;
	});
	after(() => {
		Object.assign(retrySettings, saved);
		calledAtSettings.clockSlackMs = savedSlack;
	});

	const ended = (attempts) => attempts.length > 0 && attempts.at(-1).end !== undefined;

	it(`Every Attempt: each attempt that ended after watching began is reported once or counted as skipped, nothing else (${RUNS} histories)`, async () => {
		await fc.assert(
			fc.asyncProperty(
				worldArbitrary({
					shapes: ['full', 'noCalledAt'],
					orders: ['stable', 'lastChangeDesc', 'lastChangeAsc'],
					duplicates: false,
				}),
				async (world) => {
					const { api, items, firstServed, since } = await run(world);
					const expected = expectedAttempts(world, api, firstServed, { since });
					const allowed = allowedAttempts(world, api, firstServed, { since });
					const keys = items.map((i) => `${itemKey(i)}#${i.attempts}@${i.calledAt}`);
					assert.equal(new Set(keys).size, keys.length, `reported twice: ${keys}`);
					for (const l of api.listings) {
						const mine = items.filter((i) => itemKey(i) === l.key);
						const skipped = mine.reduce((sum, i) => sum + (i.skippedAttempts ?? 0), 0);
						const told = mine.length + skipped;
						const most = expected.get(l.key).length + allowed.get(l.key).length;
						// A deleted campaign's last calls may go unread: no fewer than none of them.
						const least = l.gone ? 0 : expected.get(l.key).length;
						assert.ok(
							told >= least && told <= most,
							`${l.key}: ${told} for ${least}: ${JSON.stringify(mine)}`,
						);
					}
				},
			),
			{ numRuns: RUNS, ...SEED },
		);
	});

	it(`Final Outcome Only: each number's last attempt once, and answered calls as they come, nothing else (${RUNS} histories)`, async () => {
		await fc.assert(
			fc.asyncProperty(
				worldArbitrary({
					shapes: ['full'],
					orders: ['stable', 'lastChangeDesc', 'lastChangeAsc'],
					duplicates: false,
				}),
				async (world) => {
					const { api, items, firstServed, since } = await run(world, {
						report: 'finalOutcome',
					});
					const expected = expectedAttempts(world, api, firstServed, { since });
					const either = allowedAttempts(world, api, firstServed, { since });
					const shown = (a) => new Date(shownCalledAt(world, a)).toISOString();
					const keys = items.map((i) => `${itemKey(i)}@${i.calledAt}`);
					assert.equal(new Set(keys).size, keys.length, `reported twice: ${keys}`);
					for (const l of api.listings) {
						const mine = items.filter((i) => itemKey(i) === l.key);
						const last = l.attempts.at(-1);
						const allowed = l.attempts.filter((a) => a === last || a.status === 'answered');
						for (const item of mine) {
							assert.ok(
								allowed.some(
									(a) =>
										shown(a) === item.calledAt &&
										(a.end > api.since || either.get(l.key).includes(a)),
								),
								`${l.key}: ${item.calledAt} is neither answered nor the last`,
							);
							assert.ok(!('skippedAttempts' in item));
						}
						if (!l.gone && expected.get(l.key).includes(last)) {
							assert.ok(
								mine.some((i) => i.calledAt === shown(last)),
								`${l.key}: the last`,
							);
						}
					}
				},
			),
			{ numRuns: RUNS, ...SEED },
		);
	});

	it(`numbers listed twice: each listing's last attempt is reported (${RUNS} histories)`, async () => {
		// Beyond docs/api.md (one record per number): which listing an attempt belongs to is told
		// only by the order and calledAt, so an attempt in between may be counted in the other
		// listing's skippedAttempts, or come twice (docs/triggers.md); each listing's last one comes.
		await fc.assert(
			fc.asyncProperty(
				worldArbitrary({
					shapes: ['full'],
					orders: ['stable', 'lastChangeDesc', 'lastChangeAsc'],
					duplicates: true,
				}),
				async (world) => {
					const { api, items, firstServed, since } = await run(world);
					const expected = expectedAttempts(world, api, firstServed, { since });
					const shown = (a) => new Date(shownCalledAt(world, a)).toISOString();
					for (const l of api.listings) {
						const last = l.attempts[l.attempts.length - 1];
						if (l.gone || !expected.get(l.key).includes(last)) continue;
						assert.ok(
							items.some((i) => itemKey(i) === l.key && i.calledAt === shown(last)),
							`${l.key}: ${shown(last)}`,
						);
					}
				},
			),
			{ numRuns: RUNS, ...SEED },
		);
	});

	/**
	 * Whether a record read ended tells an attempt that ended since the read before (the reads of
	 * polls whose state n8n kept): that read showed none ended, or, ended, another status; without
	 * attempts but with calledAt, another calledAt too (but two whose 19-bit hashes meet,
	 * docs/triggers.md).
	 */
	const toldApart = (world, read, before) => {
		if (!ended(before)) return true;
		const [now, then] = [read.at(-1), before.at(-1)];
		if (now.n === then.n) return false;
		if (now.status !== then.status) return true;
		if (world.shape === 'minimal') return false;
		const hash = (a) => fnv1a(new Date(shownCalledAt(world, a)).toISOString()) & 0x7ffff;
		return hash(now) !== hash(then);
	};

	it(`records without attempts: every end a read saw reported (an end after a read saw it called, or one calledAt tells apart), never more than ended (${RUNS} histories)`, async () => {
		await fc.assert(
			fc.asyncProperty(
				worldArbitrary({
					shapes: ['noAttempts', 'minimal'],
					orders: ['stable', 'lastChangeDesc', 'lastChangeAsc'],
					duplicates: false,
				}),
				async (world) => {
					const { api, items, served, firstServed, since } = await run(world);
					const allowed = allowedAttempts(world, api, firstServed, { since });
					for (const l of api.listings) {
						const after = l.attempts.filter((a) => a.end !== undefined && a.end > api.since);
						const most = after.length + allowed.get(l.key).length;
						const mine = items.filter((i) => itemKey(i) === l.key);
						assert.ok(mine.length <= most, `${l.key}: ${mine.length} > ${most}`);
						if (l.gone) continue;
						const reads = served.get(l.index) ?? [];
						const seenEnding = reads.filter(
							(read, i) => i > 0 && ended(read) && toldApart(world, read, reads[i - 1]),
						);
						assert.ok(
							mine.length >= seenEnding.length,
							`${l.key}: ${mine.length} items, ${seenEnding.length} ends seen`,
						);
					}
				},
			),
			{ numRuns: RUNS, ...SEED },
		);
	});
});
