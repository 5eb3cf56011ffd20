// Call Finished, proven over generated API histories: calls start, end and are retried while the
// trigger reads the pages (also its first read), the API orders its data by number or by last
// change (newest or oldest first, so that pages shift under the reader), numbers are listed
// twice, records have the shapes docs/api.md allows (with or without attempts and calledAt),
// n8n restarts between polls and the API fails at any request. The trigger's own code runs poll
// by poll against a model that knows every attempt; each attempt that ended after watching began
// is reported once or counted in skippedAttempts, and nothing else is reported.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import fc from 'fast-check';

import { retrySettings } from '../../../../nodes/shared/transport.ts';
import { expectedAttempts, run, worldArbitrary } from '../../../support/callHistories.mjs';

/** Histories tried per property (each a whole run of polls); FC_RUNS sets another number. */
const RUNS = Number(process.env.FC_RUNS ?? 2000);

describe('Call Finished over generated histories', () => {
	// A 503 is asked again at once: the histories' time is the model's, not the clock's.
	const saved = { ...retrySettings };
	before(() => Object.assign(retrySettings, { baseDelayMs: 0, maxDelayMs: 0 }));
	after(() => Object.assign(retrySettings, saved));

	it(`Every Attempt: each attempt that ended after watching began is reported once or counted as skipped, nothing else (${RUNS} histories)`, async () => {
		await fc.assert(
			fc.asyncProperty(
				worldArbitrary({
					shapes: ['full', 'noCalledAt'],
					orders: ['stable', 'lastChangeDesc', 'lastChangeAsc'],
					duplicates: false,
				}),
				async (world) => {
					const { api, items, firstServed } = await run(world);
					const expected = expectedAttempts(world, api, firstServed);
					const keys = items.map((i) => `${i.phoneNumber}#${i.attempts}@${i.calledAt}`);
					assert.equal(new Set(keys).size, keys.length, `reported twice: ${keys}`);
					for (const number of new Set(api.listings.map((l) => l.number))) {
						const mine = items.filter((i) => i.phoneNumber === number);
						const listings = api.listings.filter((l) => l.number === number);
						if (listings.length === 1) {
							const skipped = mine.reduce((sum, i) => sum + (i.skippedAttempts ?? 0), 0);
							assert.equal(
								mine.length + skipped,
								expected.get(number).length,
								`${number}: ${JSON.stringify(mine)}`,
							);
							continue;
						}
						// Listed twice: which listing an unseen attempt belonged to is not known, but
						// each listing's last attempt is reported, and nothing is reported that did
						// not end after watching began.
						const known = new Set(expected.get(number).map((a) => new Date(a.start).toISOString()));
						for (const item of mine)
							assert.ok(known.has(item.calledAt), `${number}: ${item.calledAt}`);
						for (const l of listings) {
							const last = l.attempts[l.attempts.length - 1];
							const at = new Date(last.start).toISOString();
							if (known.has(at))
								assert.ok(
									mine.some((i) => i.calledAt === at),
									`${number}: ${at}`,
								);
						}
					}
				},
			),
			{ numRuns: RUNS },
		);
	});

	it(`records without attempts: never more items than attempts, none from before watching began (${RUNS} histories)`, async () => {
		await fc.assert(
			fc.asyncProperty(
				worldArbitrary({
					shapes: ['noAttempts', 'minimal'],
					orders: ['stable', 'lastChangeDesc', 'lastChangeAsc'],
					duplicates: false,
				}),
				async (world) => {
					const { api, items } = await run(world);
					for (const l of api.listings) {
						const after = l.attempts.filter((a) => a.end !== undefined && a.end > api.since);
						const mine = items.filter((i) => i.phoneNumber === l.number);
						assert.ok(mine.length <= after.length, `${l.number}: ${mine.length} > ${after.length}`);
					}
				},
			),
			{ numRuns: RUNS },
		);
	});
});
