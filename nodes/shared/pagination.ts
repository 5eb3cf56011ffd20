import type { IDataObject } from 'n8n-workflow';

import { UnexpectedAnswerError } from './errors';
import type { ApiRequestOptions, RequestContext } from './transport';
import { apiRequest } from './transport';

/** The largest page the list endpoints serve. */
export const MAX_PAGE_SIZE = 100;

/** Where a list answer keeps its records, and its page counts (the envelope or a `meta` in it). */
const RECORD_KEYS = ['items', 'data', 'results', 'records'];
const TOTAL_PAGES_KEYS = ['totalPages', 'total_pages', 'lastPage', 'last_page', 'pageCount'];
const TOTAL_KEYS = ['total', 'totalCount', 'total_count', 'totalItems', 'total_items'];
const NEXT_KEYS = ['next', 'nextPage', 'next_page', 'nextUrl', 'next_url', 'next_page_url'];
const HAS_MORE_KEYS = ['hasMore', 'has_more', 'hasNextPage', 'has_next_page'];

export interface ListPage {
	items: IDataObject[];
	/** Pages in all, in the server's own page size, when the answer says. */
	totalPages?: number;
	/** Records in all, when the answer says. */
	total?: number;
	/**
	 * The answer's pointer to the next page: the query to send for it (`{}`: the next page
	 * number), or null when it says there is none; undefined when it says nothing.
	 */
	next?: IDataObject | null;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first finite number under one of `keys` in any of `places`. */
function numberAt(places: Array<Record<string, unknown>>, keys: string[]): number | undefined {
	for (const place of places) {
		for (const key of keys) {
			const value = place[key];
			if (value === null || value === undefined || value === '') continue;
			const number = Number(value);
			if (Number.isFinite(number)) return number;
		}
	}
	return undefined;
}

/** A next-page pointer (a link, a page number, a has-more flag) as the query for that page. */
function nextPointer(places: Array<Record<string, unknown>>): IDataObject | null | undefined {
	for (const place of places) {
		for (const key of NEXT_KEYS) {
			if (!(key in place)) continue;
			const value = place[key];
			if (value === null || value === '' || value === false) return null;
			if (typeof value === 'number') return { page: value };
			if (typeof value !== 'string') continue;
			try {
				return Object.fromEntries(new URL(value, 'http://relative.invalid').searchParams);
			} catch {
				return {};
			}
		}
		for (const key of HAS_MORE_KEYS) {
			if (typeof place[key] === 'boolean') return place[key] ? {} : null;
		}
	}
	return undefined;
}

/**
 * A list answer in any shape a list API commonly uses: a bare array, or records under `items`,
 * `data`, `results` or `records` with page counts and next links beside them or in `meta`,
 * `pagination` or `links`.
 */
export function toListPage(response: unknown): ListPage {
	if (Array.isArray(response)) return { items: response as IDataObject[] };
	if (isRecord(response)) {
		const key = RECORD_KEYS.find((candidate) => Array.isArray(response[candidate]));
		if (key) {
			const places = [response, response.meta, response.pagination, response.links].filter(
				isRecord,
			);
			const page: ListPage = { items: response[key] as IDataObject[] };
			const totalPages = numberAt(places, TOTAL_PAGES_KEYS);
			const total = numberAt(places, TOTAL_KEYS);
			const next = nextPointer(places);
			if (totalPages !== undefined) page.totalPages = totalPages;
			if (total !== undefined) page.total = total;
			if (next !== undefined) page.next = next;
			return page;
		}
	}
	const empty =
		response === undefined ||
		response === null ||
		response === '' ||
		(isRecord(response) && Object.keys(response).length === 0);
	return { items: empty ? [] : [response as IDataObject] };
}

/**
 * The page size that fetches `limit` records in the fewest requests without fetching more than
 * needed: 150 records come as two pages of 75, not as 100 + 100.
 */
export function pagePlan(limit: number): { pageSize: number; pages: number } {
	const pages = Math.max(1, Math.ceil(limit / MAX_PAGE_SIZE));
	return { pageSize: Math.max(1, Math.ceil(limit / pages)), pages };
}

export interface FetchedPage extends ListPage {
	page: number;
	/** The page after this one, when the answer says (or, saying nothing, may have) one. */
	nextPage?: number;
	/** The query that asks for that page: its number, or what the answer's next link says. */
	nextQuery?: IDataObject;
}

export interface PageOptions extends ApiRequestOptions {
	/** Records per page (default: the largest page). */
	pageSize?: number;
	/** The page to start at (default 1). */
	firstPage?: number;
	/** The query of the first page instead (a next link's, from an earlier nextQuery). */
	startQuery?: IDataObject;
	/** Records move while read (sorted by last change): a page of repeats does not end the loop. */
	pagesMayShift?: boolean;
}

/** The smallest page size list APIs commonly use (docs/api.md's default `limit`). */
const SMALLEST_SERVER_PAGE = 10;

/**
 * Whether another page follows, by what the answer says: its next link, else its page count,
 * else its record count. An answer that says nothing (a bare array) is followed while its pages
 * could be full pages of an API that pages by a size of its own, smaller than asked: until a page
 * has fewer records than asked and than SMALLEST_SERVER_PAGE, comes empty, or repeats records.
 */
function hasMore(listed: ListPage, page: number, seen: number, pageSize: number): boolean {
	if (listed.items.length === 0 || listed.next === null) return false;
	if (listed.next !== undefined) return true;
	if (listed.totalPages !== undefined) return page < listed.totalPages;
	if (listed.total !== undefined) return seen < listed.total;
	return listed.items.length >= Math.min(pageSize, SMALLEST_SERVER_PAGE);
}

/** Whether the answer itself said that more pages follow (not a guess on a silent answer). */
const claimsMore = (listed: ListPage) =>
	listed.next !== undefined || listed.totalPages !== undefined || listed.total !== undefined;

/** A record's identity, to tell a page that only repeats records already read. */
const recordKey = (item: IDataObject) =>
	item && typeof item === 'object' && item.id !== undefined
		? `id:${String(item.id)}`
		: JSON.stringify(item);

function cannotFollow(path: string, page: number, listed: ListPage): UnexpectedAnswerError {
	const said = JSON.stringify({
		totalPages: listed.totalPages,
		total: listed.total,
		next: listed.next,
	});
	return new UnexpectedAnswerError(
		'The API says its list has more records, but the next page only repeated records already read, so the rest could not be read',
		`GET ${path}, page ${page}. What the list said about its pages: ${said}. Its page parameters may be named differently from "page" and "limit": read the list with the HTTP Request node with this credential, whose Pagination option can follow them.`,
	);
}

/**
 * The one page loop: pages of a list in order, from `firstPage`, as long as the answer says more
 * follow (see hasMore). A next link is followed by its query; a page of records already read
 * ends the loop, with an error when the answer had said that more follow. Callers stop early by
 * leaving the loop.
 */
export async function* listPages(
	this: RequestContext,
	path: string,
	options: PageOptions = {},
): AsyncGenerator<FetchedPage> {
	const { pageSize = MAX_PAGE_SIZE, firstPage = 1, startQuery, pagesMayShift, ...rest } = options;
	let page = Math.max(1, Math.floor(firstPage));
	let query: IDataObject = startQuery ?? { page, limit: pageSize };
	let previous: ListPage | undefined;
	const read = new Set<string>();
	let seen = (page - 1) * pageSize;
	for (;;) {
		const response = await apiRequest.call(this, 'GET', path, {
			...rest,
			qs: { ...(rest.qs ?? {}), ...query },
		});
		const listed = toListPage(response);
		const keys = listed.items.map(recordKey);
		const repeated = keys.length > 0 && keys.every((key) => read.has(key));
		if (previous && repeated && !(pagesMayShift && claimsMore(listed))) {
			// The API ignored the page asked for: silent about its pages, it had sent them all.
			if (claimsMore(previous)) throw cannotFollow(path, page, previous);
			return;
		}
		for (const key of keys) read.add(key);
		seen += listed.items.length;
		const link = listed.next && Object.keys(listed.next).length > 0 ? listed.next : undefined;
		const next = link ? { limit: pageSize, ...link } : { page: page + 1, limit: pageSize };
		const more = hasMore(listed, page, seen, pageSize);
		yield { ...listed, page, ...(more ? { nextPage: page + 1, nextQuery: next } : {}) };
		if (!more) return;
		previous = listed;
		page++;
		query = next;
	}
}

/** One page of a list (the first, or `firstPage`): what a picker shows, or the newest records. */
export async function listPage(
	this: RequestContext,
	path: string,
	options: PageOptions = {},
): Promise<FetchedPage> {
	for await (const page of listPages.call(this, path, options)) return page;
	return { items: [], page: options.firstPage ?? 1 };
}

export interface AllItemsOptions extends ApiRequestOptions {
	returnAll: boolean;
	limit?: number;
	/**
	 * Keeps only the records a filter sent in `qs` asked for: an API that ignores the filter
	 * costs more pages, never a different result.
	 */
	keep?: (record: IDataObject) => boolean;
}

/**
 * Every record of a paginated list (Return All follows the pages to the end with pages of 100),
 * or at most `limit` records in the fewest requests (more pages when the API serves fewer per
 * page than asked, or `keep` drops some).
 */
export async function apiRequestAllItems(
	this: RequestContext,
	path: string,
	options: AllItemsOptions,
): Promise<IDataObject[]> {
	const { returnAll, limit: wanted, keep, ...request } = options;
	const limit = returnAll ? Infinity : Math.max(1, Math.floor(wanted ?? 50));
	const pageSize = returnAll ? MAX_PAGE_SIZE : pagePlan(limit).pageSize;
	const collected: IDataObject[] = [];
	for await (const { items } of listPages.call(this, path, { ...request, pageSize })) {
		collected.push(...(keep ? items.filter(keep) : items));
		if (collected.length >= limit) return collected.slice(0, limit);
	}
	return collected;
}
