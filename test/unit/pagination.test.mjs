// The page loop against every list shape the real API could use where docs/api.md had to choose.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

import { NodeOperationError } from '../../tools/nodeShared.mjs';
import { createExecuteContext, scriptedHttp } from '../../tools/context.mjs';

import { ALTERNATIVES, DEFAULT_ALTERNATIVES, listAnswer } from '../../sandbox/alternatives.mjs';
import { asNodeError } from '../../nodes/shared/errors.ts';
import { apiRequestAllItems, listPages, toListPage } from '../../nodes/shared/pagination.ts';

const NODE = { name: 'Test', type: 'test', typeVersion: 1, position: [0, 0], parameters: {} };
const credentials = { baseUrl: 'https://api.example.com', requestsPerMinute: 0 };

/** A list server answering like the sandbox under `alternatives`, over `records` (ascending). */
function listServer(records, alternatives = {}) {
	const options = { ...DEFAULT_ALTERNATIVES, ...alternatives };
	const { http, calls } = scriptedHttp((request) => {
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
	}, NODE);
	return { context: createExecuteContext({ params: {}, http, credentials }), calls };
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
		const { http, calls } = scriptedHttp(({ qs }) => ({
			items: records.slice((qs.page - 1) * 20, qs.page * 20),
			has_more: qs.page * 20 < records.length,
		}));
		const context = createExecuteContext({ params: {}, http, credentials });
		const all = await apiRequestAllItems.call(context, '/api/v1/x', { returnAll: true });
		assert.deepEqual(ids(all), ids(records));
		assert.deepEqual(
			calls.map((c) => c.qs.page),
			[1, 2],
		);
	});

	it('an API that ignores the page parameter while saying there are more pages fails, in our words', async () => {
		const { http, calls } = scriptedHttp(() => ({
			items: records.slice(0, 20),
			totalPages: 2,
			note: 'ratePerMinute ENOENT',
		}));
		const context = createExecuteContext({ params: {}, http, credentials });
		const error = await apiRequestAllItems.call(context, '/api/v1/x', { returnAll: true }).then(
			() => undefined,
			(e) => e,
		);
		assert.equal(calls.length, 2, 'no endless paging');
		const shown = asNodeError(NODE, error);
		assert.ok(shown instanceof NodeOperationError);
		assert.equal(shown.message, error.message, 'n8n shows our message');
		assert.match(shown.message, /more records, but the next page only repeated/);
		assert.match(shown.description, /"totalPages":2/);
		assert.match(shown.description, /HTTP Request node/);
	});

	it('a silent answer (bare array) that ignores the page ends at the repeat, with every record', async () => {
		const { http, calls } = scriptedHttp(() => records);
		const context = createExecuteContext({ params: {}, http, credentials });
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

describe('the README and the sandbox README list every alternative the sandbox offers', () => {
	const read = (path) => readFileSync(new URL(path, import.meta.url), 'utf8');
	it('each flag with its values, and the README table of tested outcomes names each flag', () => {
		const readme = read('../../README.md');
		const tested = readme.slice(readme.indexOf('### Tested against other answers'));
		const sandboxReadme = read('../../sandbox/README.md');
		for (const [option, spec] of Object.entries(ALTERNATIVES)) {
			assert.ok(sandboxReadme.includes(`\`${option}\` (\`--${spec.flag}\`)`), option);
			for (const value of spec.values ?? []) {
				assert.ok(sandboxReadme.includes(`\`${value}\``), `${option}: ${value}`);
			}
			if (option === 'opaqueToken' || option === 'ignoreStatusFilter') {
				assert.ok(tested.includes(`\`--${spec.flag}`), option);
				continue;
			}
			for (const value of spec.values ?? [20]) {
				if (value === spec.default) continue;
				assert.ok(tested.includes(`--${spec.flag} ${value}`), `${option} ${value}`);
			}
		}
	});
});
