import type { IDataObject, ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { toListPage } from '../../shared/pagination';
import { apiRequest, path } from '../../shared/transport';

/** The workspace's WhatsApp numbers for a sending-number dropdown: "Support (+3491...)". */
export async function getWhatsappNumbers(
	this: ILoadOptionsFunctions,
): Promise<INodePropertyOptions[]> {
	const response = await apiRequest.call(this, 'GET', path`/messenger/messages/whatsapp-numbers`);
	return toListPage(response).items.map((number: IDataObject) => ({
		name: `${String(number.name ?? number.id)} (${String(number.phone ?? '')})`,
		value: String(number.id),
		description: number.status ? `Status: ${String(number.status)}` : undefined,
	}));
}
