// How campaigns and broadcast messages move on: by `advance()`, the progress timer or a cancel.
import { createRandom, finishedCall, hashString } from '../data.mjs';
import { isCallCampaign } from './calls.mjs';
import { nowIso } from './records.mjs';

/**
 * @typedef {import('../api.mjs').ApiContext} ApiContext
 * @typedef {import('../data.mjs').Campaign} Campaign
 * @typedef {import('../data.mjs').CampaignStatus} CampaignStatus
 * @typedef {import('../data.mjs').BroadcastMessage} BroadcastMessage
 */

/**
 * How a running campaign ends, fixed per id so runs repeat: about 1 in 7 fails, and always when
 * the name contains `[fail]`.
 * @param {ApiContext} api @param {Campaign} campaign
 * @returns {'completed' | 'failed'}
 */
export function campaignFate(api, campaign) {
	if (campaign.name.includes('[fail]')) return 'failed';
	return hashString(`${api.seed}:fate:${campaign.id}`) % 100 < 15 ? 'failed' : 'completed';
}

/**
 * Moves a campaign to `status` and keeps its per-number data (if built) consistent.
 * @param {ApiContext} api @param {Campaign} campaign @param {CampaignStatus} status
 */
export function transitionCampaign(api, campaign, status) {
	const at = nowIso(api);
	campaign.status = status;
	campaign.updatedAt = at;
	const records = api.state.campaignData.built?.(campaign.id) ?? undefined;
	if (!records) return;
	const random = createRandom(hashString(`${api.seed}:progress:${campaign.id}:${status}`));
	for (let i = 0; i < records.length; i++) {
		const record = records[i];
		if (status === 'in_progress') {
			if (record.status === 'pending') {
				records[i] = { ...record, status: 'calling', attempts: 1, calledAt: at };
				return;
			}
		} else if (status === 'completed') {
			if (record.status === 'pending' || record.status === 'calling') {
				records[i] = finishedCall(random, record.phoneNumber, record.calledAt ?? at);
			}
		} else if (status === 'failed') {
			if (record.status === 'calling')
				records[i] = { ...record, status: 'failed', result: 'network_error' };
			else if (record.status === 'pending')
				records[i] = { ...record, status: 'failed', result: 'campaign_failed' };
		} else if (status === 'cancelled' && record.status === 'calling') {
			records[i] = { ...record, status: 'failed', result: 'cancelled' };
		}
	}
}

/**
 * Broadcast messages to a phone ending in `0000` or an email starting with `fail` fail at once;
 * about 1 in 10 others fail after `sent`; the rest reach `read`.
 * @param {ApiContext} api @param {BroadcastMessage} message
 * @returns {'failNow' | 'failAfterSent' | 'read'}
 */
function broadcastFate(api, message) {
	if (/0000$/.test(message.recipient) || /^fail/i.test(message.recipient)) return 'failNow';
	return hashString(`${api.seed}:fate:${message.id}`) % 10 === 0 ? 'failAfterSent' : 'read';
}

/**
 * One progression step for every non-final campaign and broadcast message.
 * @param {ApiContext} api
 */
export function advanceOnce(api) {
	for (const campaign of api.state.campaigns) {
		// Call campaigns move by their calls (calls.mjs).
		if (isCallCampaign(api, campaign.id)) continue;
		if (campaign.status === 'pending') transitionCampaign(api, campaign, 'in_progress');
		else if (campaign.status === 'in_progress')
			transitionCampaign(api, campaign, campaignFate(api, campaign));
	}
	for (const message of api.state.broadcastMessages) {
		if (message.status === 'read' || message.status === 'failed') continue;
		const fate = broadcastFate(api, message);
		/** @type {BroadcastMessage['status']} */
		let next;
		if (message.status === 'queued') next = fate === 'failNow' ? 'failed' : 'sent';
		else if (message.status === 'sent') next = fate === 'failAfterSent' ? 'failed' : 'delivered';
		else next = 'read';
		message.status = next;
		message.updatedAt = nowIso(api);
		if (next === 'failed')
			message.error = fate === 'failNow' ? 'Recipient unreachable' : 'Delivery failed';
	}
}
