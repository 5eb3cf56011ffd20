// A campaign's per-number call records, built from its id and status the first time they are read.
import { createRandom, hashString, iso } from './random.mjs';
import { CALL_RESULTS } from './words.mjs';

/**
 * @typedef {import('../data.mjs').Campaign} Campaign
 * @typedef {import('../data.mjs').CampaignStatus} CampaignStatus
 * @typedef {import('../data.mjs').CampaignDataRecord} CampaignDataRecord
 * @typedef {import('./random.mjs').Random} Random
 */

/**
 * Campaign numbers and per-number results, derived from the campaign's id and current status
 * so they can be built lazily (10,000 campaigns would otherwise mean ~200,000 records up front).
 * @param {Campaign} campaign @param {number} seed
 * @returns {CampaignDataRecord[]}
 */
export function generateCampaignData(campaign, seed) {
	const random = createRandom(hashString(`${seed}:data:${campaign.id}`));
	const count = random.int(5, 40);
	const started = Date.parse(campaign.startDate) || Date.parse(campaign.createdAt);
	/** @type {Record<CampaignStatus, number>} */
	const doneShare = {
		pending: 0,
		in_progress: 0.2 + random.next() * 0.5,
		completed: 1,
		cancelled: random.next() * 0.6,
		failed: 0.1 + random.next() * 0.4,
	};
	const done = Math.floor(count * (doneShare[campaign.status] ?? 0));
	const calling = campaign.status === 'in_progress' ? Math.min(2, count - done) : 0;
	/** @type {CampaignDataRecord[]} */
	const records = [];
	for (let i = 0; i < count; i++) {
		const phoneNumber = `+346${random.digits(8)}`;
		const calledAt = iso(started + i * random.int(30, 300) * 1000);
		if (i < done) {
			records.push(finishedCall(random, phoneNumber, calledAt));
		} else if (i < done + calling) {
			records.push({
				phoneNumber,
				status: 'calling',
				attempts: 1,
				durationSeconds: 0,
				result: null,
				calledAt,
			});
		} else if (campaign.status === 'failed') {
			records.push({
				phoneNumber,
				status: 'failed',
				attempts: 0,
				durationSeconds: 0,
				result: 'campaign_failed',
				calledAt: null,
			});
		} else {
			records.push(pendingCall(phoneNumber));
		}
	}
	return records;
}

/**
 * A number not called yet.
 * @param {string} phoneNumber @returns {CampaignDataRecord}
 */
export const pendingCall = (phoneNumber) => ({
	phoneNumber,
	status: 'pending',
	attempts: 0,
	durationSeconds: 0,
	result: null,
	calledAt: null,
});

/**
 * @param {Random} random @param {string} phoneNumber @param {string} calledAt
 * @returns {CampaignDataRecord}
 */
export function finishedCall(random, phoneNumber, calledAt) {
	const roll = random.next();
	if (roll < 0.55) {
		return {
			phoneNumber,
			status: 'answered',
			attempts: random.int(1, 2),
			durationSeconds: random.int(20, 420),
			result: random.pick(CALL_RESULTS),
			calledAt,
		};
	}
	if (roll < 0.85) {
		return {
			phoneNumber,
			status: roll < 0.75 ? 'no_answer' : 'busy',
			attempts: random.int(1, 3),
			durationSeconds: 0,
			result: null,
			calledAt,
		};
	}
	return {
		phoneNumber,
		status: 'failed',
		attempts: 1,
		durationSeconds: 0,
		result: random.pick(['invalid_number', 'network_error']),
		calledAt,
	};
}

/**
 * Map of campaign id → data records that builds an entry on first `get`/`has` for any campaign
 * that exists, so tests can read `state.campaignData.get(id)` without caring that it is lazy.
 */
export class CampaignDataStore extends Map {
	/** @param {(id: string) => Campaign | undefined} findCampaign @param {number} seed */
	constructor(findCampaign, seed) {
		super();
		this.findCampaign = findCampaign;
		this.seed = seed;
	}

	/** @param {string} id @returns {CampaignDataRecord[] | undefined} */
	get(id) {
		const existing = super.get(id);
		if (existing) return existing;
		const campaign = this.findCampaign(id);
		if (!campaign) return undefined;
		const records = generateCampaignData(campaign, this.seed);
		super.set(id, records);
		return records;
	}

	/** @param {string} id */
	has(id) {
		return super.has(id) || this.findCampaign(id) !== undefined;
	}

	/** Only the entries built so far. @param {string} id */
	built(id) {
		return super.get(id);
	}
}
