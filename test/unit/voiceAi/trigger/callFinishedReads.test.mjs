// Where Call Finished spends Data Requests per Poll (callFinished.ts readData): first where calls
// land, while campaigns where nothing happens are read in turn with a share kept for them, and a
// campaign the list shows changed is read at once. A busy workspace, poll by poll, against a
// scripted API.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { at, callWatcher, campaignsApi, record } from '../../../support/callApi.mjs';

const PAGES = 20;
const QUIET = 26;
const dataReads = (calls) => {
	const reads = new Map();
	for (const { url } of calls) {
		const [, id] = /\/campaigns\/([^/]+)\/data$/.exec(url) ?? [];
		if (id) reads.set(id, (reads.get(id) ?? 0) + 1);
	}
	return reads;
};

/** 26 campaigns whose calls all ended and one of 2,000 numbers being called, 100 a page. */
function busyWorkspace() {
	const campaigns = {};
	for (let q = 0; q < QUIET; q++) {
		const id = `q${String(q).padStart(2, '0')}`;
		const records = [1, 2, 3].map((n) => record(`+3460${q}00000${n}`, 'answered'));
		campaigns[id] = { status: 'in_progress', records: () => records };
	}
	const big = Array.from({ length: PAGES * 100 }, (_, i) =>
		record(`+4915100${100000 + i}`, 'calling'),
	);
	campaigns.busy = { status: 'in_progress', records: () => big };
	/** A step: one call on each page of the busy campaign ends. */
	const step = (n) =>
		Array.from({ length: PAGES }, (_, page) => {
			const i = page * 100 + n;
			big[i] = { ...big[i], status: 'answered', durationSeconds: 30 };
			return big[i].phoneNumber;
		});
	return { campaigns, step };
}

describe('Call Finished in a busy workspace: reads go where calls land', () => {
	it('every result of a step comes within 2 polls; quiet campaigns are all read within a few polls; never over Data Requests per Poll', async () => {
		const { campaigns, step } = busyWorkspace();
		const watcher = callWatcher(campaignsApi(campaigns));
		await watcher.poll(); // the baseline, read silently
		const due = new Map(); // number → the poll by which it must have come
		const quietReads = new Map();
		const busyReads = [];
		for (let poll = 1; poll <= 8; poll++) {
			for (const number of step(poll)) due.set(number, poll + 1);
			const { items, calls } = await watcher.poll();
			for (const item of items) {
				assert.ok(due.has(item.phoneNumber), `${item.phoneNumber} reported twice or unasked`);
				assert.ok(poll <= due.get(item.phoneNumber), `${item.phoneNumber} came at poll ${poll}`);
				due.delete(item.phoneNumber);
			}
			const reads = dataReads(calls);
			const spent = [...reads.values()].reduce((a, b) => a + b, 0);
			assert.ok(spent <= 20, `poll ${poll}: ${spent} data requests`);
			busyReads.push(reads.get('busy') ?? 0);
			for (const [id, count] of reads) if (id !== 'busy') quietReads.set(id, count);
		}
		assert.deepEqual(
			[...due.entries()].filter(([, by]) => by <= 8),
			[],
			'results not reported within 2 polls',
		);
		// A quarter of the budget kept for the 26 quiet campaigns: up to 15 pages a poll for the busy
		// one (a sweep a poll at most), all its 20 pages in every two polls.
		assert.ok(
			busyReads.every((n, i) => n <= 15 && (i === 0 || n + busyReads[i - 1] >= PAGES)),
			`busy campaign pages a poll: ${busyReads}`,
		);
		assert.equal(quietReads.size, QUIET, 'every quiet campaign read in 8 polls');
	});

	it('a quiet campaign the list shows changed (status or updatedAt) is read at the next poll', async () => {
		const { campaigns, step } = busyWorkspace();
		const watcher = callWatcher(campaignsApi(campaigns));
		await watcher.poll();
		let n = 1;
		let lastRead;
		for (; n <= 3; n++) {
			step(n);
			const { calls } = await watcher.poll();
			lastRead = [...dataReads(calls).keys()].filter((id) => id !== 'busy').at(-1);
		}
		// The quiet campaign read last (its turn is furthest away) starts calling again; the API
		// moves its updatedAt.
		const quiet = campaigns[lastRead];
		const records = quiet.records();
		records[0] = record(records[0].phoneNumber, 'no_answer', 2, at(9));
		quiet.updatedAt = at(9);
		step(n);
		const { items, calls } = await watcher.poll();
		assert.ok(dataReads(calls).has(lastRead), `${lastRead} read at once`);
		assert.ok(
			items.some((item) => item.phoneNumber === records[0].phoneNumber),
			'its result reported',
		);
	});

	it('without updatedAt, a retry in a quiet campaign is still found, in turn', async () => {
		const { campaigns, step } = busyWorkspace();
		const watcher = callWatcher(campaignsApi(campaigns));
		await watcher.poll();
		for (let n = 1; n <= 2; n++) {
			step(n);
			await watcher.poll();
		}
		const records = campaigns.q05.records();
		records[1] = record(records[1].phoneNumber, 'busy', 2, at(9));
		let found = 0;
		for (let n = 3; n <= 10 && !found; n++) {
			step(n);
			const { items } = await watcher.poll();
			if (items.some((item) => item.phoneNumber === records[1].phoneNumber)) found = n;
		}
		assert.ok(found > 0, 'the retry was reported');
	});
});
