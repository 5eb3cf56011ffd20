import { requireId, requireList } from '../../../shared/validation';

/** Most broadcast message IDs Get Status takes per item: one request each. */
export const MAX_STATUS_IDS_PER_ITEM = 100;

/**
 * Broadcast message IDs from one parameter (see requireList for the forms it takes), each checked
 * as an ID, at most `max`; `advice` says what to do with more.
 */
export function broadcastMessageIds(value: unknown, max: number, advice?: string): string[] {
	const entries = requireList(value, 'Broadcast Message IDs', { max, advice });
	return entries.map((id, index) =>
		requireId(
			id,
			entries.length > 1 ? `Broadcast Message ID ${index + 1}` : 'Broadcast Message ID',
		),
	);
}
