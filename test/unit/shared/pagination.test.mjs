// shared/pagination.ts, the one page loop: the fewest pages for a Limit, Return All to the end,
// and every list shape the real API could use where docs/api.md had to choose.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ALTERNATIVES, DEFAULT_ALTERNATIVES, listAnswer } from '../../../sandbox/alternatives.mjs';
import { asNodeError } from '../../../nodes/shared/errors.ts';
import {
	apiRequestAllItems,
	listPages,
	pagePlan,
	toListPage,
} from '../../../nodes/shared/pagination.ts';
import { TEST_NODE } from '../../../tools/context.mjs';
import { NodeOperationError } from '../../../tools/nodeShared.mjs';
import { scriptedContext } from '../../support/unit.mjs';

describe('pagination', () => {
	it('plans the fewest pages that fetch exactly the limit', () => {
		assert.deepEqual(pagePlan(10), { pageSize: 10, pages: 1 });
		assert.deepEqual(pagePlan(100), { pageSize: 100, pages: 1 });
		assert.deepEqual(pagePlan(150), { pageSize: 75, pages: 2 });
		assert.deepEqual(pagePlan(250), { pageSize: 84, pages: 3 });
		assert.deepEqual(pagePlan(1), { pageSize: 1, pages: 1 });
	});

	it('accepts a bare array or an envelope', () => {
		assert.deepEqual(toListPage([{ a: 1 }]), { items: [{ a: 1 }] });
		assert.deepEqual(toListPage({ items: [{ a: 1 }], total: 1, page: 1, totalPages: 1 }), {
			items: [{ a: 1 }],
			total: 1,
			totalPages: 1,
		});
		assert.deepEqual(toListPage(''), { items: [] });
	});

	function pagedApi(total) {
		return scriptedContext((options) => {
			const page = Number(options.qs.page);
			const limit = Number(options.qs.limit);
			const all = Array.from({ length: total }, (_, i) => ({ id: `r${i + 1}` }));
			return {
				items: all.slice((page - 1) * limit, page * limit),
				total,
				page,
				totalPages: Math.ceil(total / limit),
			};
		});
	}

	it('Return All follows totalPages to the end with pages of 100', async () => {
		const { context, calls } = pagedApi(250);
		const items = await apiRequestAllItems.call(context, '/api/v1/voice/agents', {
			returnAll: true,
			qs: { sort: 'asc' },
		});
		assert.equal(items.length, 250);
		assert.equal(new Set(items.map((i) => i.id)).size, 250);
		assert.deepEqual(
			calls.map((c) => [c.qs.page, c.qs.limit, c.qs.sort]),
			[
				[1, 100, 'asc'],
				[2, 100, 'asc'],
				[3, 100, 'asc'],
			],
		);
	});

	it('Limit stops early and never fetches more than it needs', async () => {
		const { context, calls } = pagedApi(1000);
		const items = await apiRequestAllItems.call(context, '/api/v1/voice/agents', {
			returnAll: false,
			limit: 150,
		});
		assert.deepEqual(
			items.map((i) => i.id),
			Array.from({ length: 150 }, (_, i) => `r${i + 1}`),
		);
		assert.deepEqual(
			calls.map((c) => [c.qs.page, c.qs.limit]),
			[
				[1, 75],
				[2, 75],
			],
		);
	});

	it('Limit larger than the list stops at the last page', async () => {
		const { context, calls } = pagedApi(30);
		const items = await apiRequestAllItems.call(context, '/api/v1/voice/agents', {
			returnAll: false,
			limit: 500,
		});
		assert.equal(items.length, 30);
		assert.equal(calls.length, 1);
	});

	it('a short bare-array list is taken whole, and cut to the limit', async () => {
		const { context, calls } = scriptedContext(() => [{ id: 1 }, { id: 2 }, { id: 3 }]);
		assert.equal((await apiRequestAllItems.call(context, '/x', { returnAll: true })).length, 3);
		assert.equal(
			(await apiRequestAllItems.call(context, '/x', { returnAll: false, limit: 2 })).length,
			2,
		);
		assert.equal(calls.length, 2, 'fewer records than asked and than 10: the end of the list');
	});
});

describe('pagination: the one page loop', () => {
	it('follows totalPages from the first page asked for, and stops when the caller leaves', async () => {
		const { context, calls } = scriptedContext((options) => ({
			items: [{ id: `p${options.qs.page}` }],
			page: options.qs.page,
			totalPages: 5,
		}));
		const seen = [];
		for await (const page of listPages.call(context, '/api/v1/voice/agents', {
			firstPage: 2,
			pageSize: 1,
		})) {
			seen.push([page.page, page.nextPage]);
			if (page.page === 4) break;
		}
		assert.deepEqual(seen, [
			[2, 3],
			[3, 4],
			[4, 5],
		]);
		assert.deepEqual(
			calls.map((call) => [call.qs.page, call.qs.limit]),
			[
				[2, 1],
				[3, 1],
				[4, 1],
			],
		);
	});
});

/** A list server answering like the sandbox under `alternatives`, over `records` (ascending). */
function listServer(records, alternatives = {}) {
	const options = { ...DEFAULT_ALTERNATIVES, ...alternatives };
	return scriptedContext((request) => {
		const query = Object.fromEntries(
			Object.entries(request.qs ?? {}).map(([key, value]) => [key, String(value)]),
		);
		const paging = {
			page: Number(query.page ?? 1),
			limit: Number(query.limit ?? 10),
			sort: query.sort === 'desc' ? 'desc' : 'asc',
		};
		const kept = query.status ? records.filter((r) => r.status === query.status) : records;
		return listAnswer(options, { path: '/api/v1/x', query }, kept, paging);
	});
}

const records = Array.from({ length: 37 }, (_, i) => ({ id: `r${i + 1}`, status: 'x' }));
const ids = (list) => list.map((r) => r.id);

describe('pagination: every list shape', () => {
	for (const listEnvelope of ALTERNATIVES.listEnvelope.values) {
		for (const fixedPageSize of [0, 20]) {
			const label = `${listEnvelope}${fixedPageSize ? `, pages of ${fixedPageSize}` : ''}`;
			it(`${label}: Return All reads every record once; a Limit is met across pages`, async () => {
				const all = listServer(records, { listEnvelope, fixedPageSize });
				const every = await apiRequestAllItems.call(all.context, '/api/v1/x', {
					returnAll: true,
					qs: { sort: 'asc' },
				});
				assert.deepEqual(ids(every), ids(records));
				const limited = listServer(records, { listEnvelope, fixedPageSize });
				const some = await apiRequestAllItems.call(limited.context, '/api/v1/x', {
					returnAll: false,
					limit: 25,
					qs: { sort: 'asc' },
				});
				assert.deepEqual(ids(some), ids(records.slice(0, 25)));
			});
		}
	}

	it('reads page counts and next pointers under the spellings APIs use', () => {
		assert.deepEqual(toListPage({ data: [{ id: 1 }], meta: { last_page: 3, total: 30 } }), {
			items: [{ id: 1 }],
			totalPages: 3,
			total: 30,
		});
		assert.deepEqual(toListPage({ results: [], links: { next: null } }), { items: [], next: null });
		assert.deepEqual(toListPage({ items: [], next: 'https://h/api/v1/x?cursor=ab&limit=5' }), {
			items: [],
			next: { cursor: 'ab', limit: '5' },
		});
		assert.deepEqual(toListPage({ items: [], hasMore: true }), { items: [], next: {} });
		assert.deepEqual(toListPage({ items: [], pagination: { nextPage: 4 } }), {
			items: [],
			next: { page: 4 },
		});
	});

	it('a has-more flag without a link asks for the next page number', async () => {
		const { context, calls } = scriptedContext(({ qs }) => ({
			items: records.slice((qs.page - 1) * 20, qs.page * 20),
			has_more: qs.page * 20 < records.length,
		}));
		const all = await apiRequestAllItems.call(context, '/api/v1/x', { returnAll: true });
		assert.deepEqual(ids(all), ids(records));
		assert.deepEqual(
			calls.map((c) => c.qs.page),
			[1, 2],
		);
	});

	it('an API that ignores the page parameter while saying there are more pages fails, in our words', async () => {
		const { context, calls } = scriptedContext(() => ({
			items: records.slice(0, 20),
			totalPages: 2,
			note: 'ratePerMinute ENOENT',
		}));
		const error = await apiRequestAllItems.call(context, '/api/v1/x', { returnAll: true }).then(
			() => undefined,
			(e) => e,
		);
		assert.equal(calls.length, 2, 'no endless paging');
		const shown = asNodeError(TEST_NODE, error);
		assert.ok(shown instanceof NodeOperationError);
		assert.equal(shown.message, error.message, 'n8n shows our message');
		assert.match(shown.message, /more records, but the next page only repeated/);
		assert.match(shown.description, /"totalPages":2/);
		assert.match(shown.description, /HTTP Request node/);
	});

	it('a silent answer (bare array) that ignores the page ends at the repeat, with every record', async () => {
		const { context, calls } = scriptedContext(() => records);
		const pages = [];
		for await (const page of listPages.call(context, '/api/v1/x')) pages.push(page.items.length);
		assert.deepEqual(pages, [37]);
		assert.equal(calls.length, 2);
	});

	it('a filter the API ignores costs pages, never other records; the Limit is still met', async () => {
		const mixed = records.map((r, i) => ({ ...r, status: i % 3 === 0 ? 'pending' : 'completed' }));
		const pending = mixed.filter((r) => r.status === 'pending');
		const server = listServer(mixed, { fixedPageSize: 5 });
		// The sandbox filters: serve as if it did not, by sending the filter under another name.
		const some = await apiRequestAllItems.call(server.context, '/api/v1/x', {
			returnAll: false,
			limit: 6,
			qs: { sort: 'asc', state: 'pending' },
			keep: (r) => r.status === 'pending',
		});
		assert.deepEqual(ids(some), ids(pending.slice(0, 6)));
		assert.ok(server.calls.length > 1);
	});
});
