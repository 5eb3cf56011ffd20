import type { IDataObject } from 'n8n-workflow';

import type { ApiRequestOptions, RequestContext } from './transport';
import { apiRequest } from './transport';

/** The largest page the list endpoints serve. */
export const MAX_PAGE_SIZE = 100;

export interface ListPage {
	items: IDataObject[];
	totalPages?: number;
}

/** A list answer in either shape the API uses: a bare array or `{ items, total, page, totalPages }`. */
export function toListPage(response: unknown): ListPage {
	if (Array.isArray(response)) return { items: response as IDataObject[] };
	if (response && typeof response === 'object') {
		const envelope = response as { items?: unknown; data?: unknown; totalPages?: unknown };
		const items = Array.isArray(envelope.items)
			? envelope.items
			: Array.isArray(envelope.data)
				? envelope.data
				: undefined;
		if (items) {
			const totalPages = Number(envelope.totalPages);
			return {
				items: items as IDataObject[],
				totalPages: Number.isFinite(totalPages) ? totalPages : undefined,
			};
		}
	}
	const empty =
		response === undefined ||
		response === null ||
		response === '' ||
		(typeof response === 'object' && Object.keys(response as object).length === 0);
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
	/** The page after this one, when the envelope says there is one. */
	nextPage?: number;
}

export interface PageOptions extends ApiRequestOptions {
	/** Records per page (default: the largest page). */
	pageSize?: number;
	/** The page to start at (default 1). */
	firstPage?: number;
}

/**
 * The one page loop: pages of a list in order, from `firstPage`, as long as the envelope says more
 * follow (a bare array is the whole list). Callers stop early by leaving the loop.
 */
export async function* listPages(
	this: RequestContext,
	path: string,
	options: PageOptions = {},
): AsyncGenerator<FetchedPage> {
	const { pageSize = MAX_PAGE_SIZE, firstPage = 1, ...request } = options;
	for (let page = Math.max(1, Math.floor(firstPage)); ; page++) {
		const response = await apiRequest.call(this, 'GET', path, {
			...request,
			qs: { ...(request.qs ?? {}), page, limit: pageSize },
		});
		const { items, totalPages } = toListPage(response);
		const more = totalPages !== undefined && page < totalPages && items.length > 0;
		yield { items, totalPages, page, nextPage: more ? page + 1 : undefined };
		if (!more) return;
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

/**
 * Every record of a paginated list (Return All follows totalPages to the end with pages of 100),
 * or at most `limit` records in the fewest requests.
 */
export async function apiRequestAllItems(
	this: RequestContext,
	path: string,
	options: ApiRequestOptions & { returnAll: boolean; limit?: number },
): Promise<IDataObject[]> {
	const { returnAll, limit: wanted, ...request } = options;
	const limit = returnAll ? Infinity : Math.max(1, Math.floor(wanted ?? 50));
	const pageSize = returnAll ? MAX_PAGE_SIZE : pagePlan(limit).pageSize;
	const collected: IDataObject[] = [];
	for await (const { items } of listPages.call(this, path, { ...request, pageSize })) {
		collected.push(...items);
		if (collected.length >= limit) return collected.slice(0, limit);
	}
	return collected;
}
