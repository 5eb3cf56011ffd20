import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { toListPage } from '../../shared/pagination';
import { apiRequest, path } from '../../shared/transport';
import { isPathSegment } from '../../shared/validation';

/** Contacts whose name, phone or email contain the filter; the search endpoint needs a term. */
export async function searchContacts(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const term = (filter ?? '').trim();
	if (!isPathSegment(term)) return { results: [] };
	const response = await apiRequest.call(this, 'GET', path`/messenger/contacts/search/${term}`);
	return {
		results: toListPage(response).items.map((contact: IDataObject) => ({
			name: `${String(contact.name ?? contact.id)} (${String(contact.phone ?? contact.email ?? '')})`,
			value: String(contact.id),
		})),
	};
}
