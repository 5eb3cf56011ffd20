import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listPage } from '../../shared/pagination';
import { path } from '../../shared/transport';

/**
 * One page of a list for a resource locator. The API has no name filter, so the filter applies
 * to the page fetched; n8n asks for the next page with the token as the user scrolls.
 */
async function searchPage(
	context: ILoadOptionsFunctions,
	endpoint: string,
	label: (record: IDataObject) => string,
	filter?: string,
	paginationToken?: unknown,
): Promise<INodeListSearchResult> {
	// The token is the next page's number, or the query of the answer's next link (`?cursor=…`).
	const token = String(paginationToken ?? '1');
	const { items, nextPage, nextQuery } = await listPage.call(context, endpoint, {
		qs: { sort: 'desc' },
		...(token.startsWith('?')
			? { startQuery: Object.fromEntries(new URLSearchParams(token)) }
			: { firstPage: Number(token) || 1 }),
	});
	const needle = (filter ?? '').trim().toLowerCase();
	const results = items
		.filter(
			(record) =>
				!needle ||
				String(record.name ?? '')
					.toLowerCase()
					.includes(needle) ||
				String(record.id ?? '')
					.toLowerCase()
					.includes(needle),
		)
		.map((record) => ({ name: label(record), value: String(record.id) }));
	return {
		results,
		paginationToken:
			nextPage === undefined || !nextQuery
				? undefined
				: nextQuery.page === nextPage
					? String(nextPage)
					: `?${new URLSearchParams(nextQuery as Record<string, string>).toString()}`,
	};
}

/** A resource locator's list method over one list endpoint, with its label format. */
function listSearch(endpoint: string, label: (record: IDataObject) => string) {
	return async function (
		this: ILoadOptionsFunctions,
		filter?: string,
		paginationToken?: string,
	): Promise<INodeListSearchResult> {
		return await searchPage(this, endpoint, label, filter, paginationToken);
	};
}

export const searchAgents = listSearch(
	path`/voice/agents`,
	(agent) =>
		`${String(agent.name ?? agent.id)} (${String(agent.call_type ?? '')}, ${String(agent.status ?? '')})`,
);

export const searchCampaigns = listSearch(
	path`/voice/campaigns`,
	(campaign) => `${String(campaign.name ?? campaign.id)} (${String(campaign.status ?? '')})`,
);
