// The records a sandbox starts with: deterministic per seed, every timestamp before SEED_EPOCH_MS.
import { CampaignDataStore } from './campaignData.mjs';
import { createRandom, hashString, iso } from './random.mjs';
import {
	AGENT_PURPOSES,
	CAMPAIGN_TOPICS,
	CITIES,
	FIRST_NAMES,
	INBOUND_TEXTS,
	LAST_NAMES,
	MONTHS,
	OUTBOUND_TEXTS,
	PLANS,
	PROVIDERS,
} from './words.mjs';

/**
 * @typedef {import('../data.mjs').Agent} Agent
 * @typedef {import('../data.mjs').Balance} Balance
 * @typedef {import('../data.mjs').BroadcastMessage} BroadcastMessage
 * @typedef {import('../data.mjs').Campaign} Campaign
 * @typedef {import('../data.mjs').CampaignStatus} CampaignStatus
 * @typedef {import('../data.mjs').Chat} Chat
 * @typedef {import('../data.mjs').Contact} Contact
 * @typedef {import('../data.mjs').Message} Message
 * @typedef {import('../data.mjs').MessageType} MessageType
 * @typedef {import('../data.mjs').SandboxState} SandboxState
 * @typedef {import('../data.mjs').WhatsappNumber} WhatsappNumber
 * @typedef {import('./random.mjs').Random} Random
 */

/** Where every seeded timestamp ends: fixed so that a seed means the same data on any day. */
export const SEED_EPOCH_MS = Date.UTC(2025, 5, 1);

const DAY_MS = 86_400_000;

/** @param {string} text */
const slug = (text) =>
	text
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, '-')
		.replace(/^-|-$/g, '');

/**
 * Timestamps strictly increasing across `count` slots between `startMs` and `endMs`.
 * @param {Random} random @param {number} count @param {number} startMs @param {number} endMs
 */
function spreadTimes(random, count, startMs, endMs) {
	const step = (endMs - startMs) / Math.max(count, 1);
	const times = new Array(count);
	let previous = -Infinity;
	for (let i = 0; i < count; i++) {
		const t = Math.max(Math.floor(startMs + i * step + random.next() * step * 0.8), previous + 1);
		times[i] = t;
		previous = t;
	}
	return times;
}

/**
 * @param {Random} random
 * @param {{ ratePerMinute?: number }} [overrides]
 * @returns {Balance}
 */
function createBalance(random, overrides = {}) {
	return {
		credit: Math.round((500 + random.next() * 2000) * 100) / 100,
		currency: 'USD',
		ratePerMinute: overrides.ratePerMinute ?? 0.09,
		// Derived so that a test setting `credit` sees consistent minutes.
		get minutes() {
			return this.ratePerMinute > 0 ? Math.floor(this.credit / this.ratePerMinute) : 0;
		},
	};
}

/**
 * @param {{ seed: number, agentCount: number, campaignCount: number, activeCampaignCount: number }} options
 * @param {(prefix: string) => string} newId
 * @param {(id: string) => Campaign | undefined} findCampaign
 * @returns {SandboxState}
 */
export function createSeedState(options, newId, findCampaign) {
	const { seed } = options;
	const agentCount = Math.max(0, Math.floor(options.agentCount));
	const campaignCount = Math.max(0, Math.floor(options.campaignCount));
	const activeCount = Math.min(campaignCount, Math.max(0, Math.floor(options.activeCampaignCount)));
	const random = createRandom(hashString(`${seed}:seed`));

	const users = FIRST_NAMES.slice(0, 4).map((first, i) => {
		const last = LAST_NAMES[i];
		return {
			userId: newId('usr'),
			username: `${first[0]}${last}`.toLowerCase(),
			fullName: `${first} ${last}`,
			email: `${first}.${last}@example.com`.toLowerCase(),
		};
	});

	/** @type {Agent[]} */
	const agents = new Array(agentCount);
	const agentTimes = spreadTimes(
		random,
		agentCount,
		SEED_EPOCH_MS - 400 * DAY_MS,
		SEED_EPOCH_MS - DAY_MS,
	);
	for (let i = 0; i < agentCount; i++) {
		/** @type {Agent} */
		const agent = {
			id: newId('agt'),
			name: `${random.pick(AGENT_PURPOSES)} ${random.pick(FIRST_NAMES)}`,
			status: random.chance(0.8) ? 'active' : 'inactive',
			provider: random.pick(PROVIDERS),
			call_type: random.chance(0.6) ? 'outbound' : 'inbound',
			createdAt: iso(agentTimes[i]),
		};
		if (random.chance(0.7)) {
			const at = Math.min(agentTimes[i] + random.int(1, 60) * DAY_MS, SEED_EPOCH_MS);
			agent.lastModifiedBy = { ...random.pick(users), at: iso(at) };
		}
		agents[i] = agent;
	}

	const dids = Array.from({ length: 3 }, () => `+3491${random.digits(7)}`);
	/** @type {Campaign[]} */
	const campaigns = new Array(campaignCount);
	const campaignTimes = spreadTimes(
		random,
		campaignCount,
		SEED_EPOCH_MS - 365 * DAY_MS,
		SEED_EPOCH_MS - 3_600_000,
	);
	const finalCount = campaignCount - activeCount;
	// The newest final campaigns show one of each final status, so page 1 shows the variety.
	const newestFinal = random.shuffle(
		/** @type {CampaignStatus[]} */ (['completed', 'failed', 'cancelled']),
	);
	for (let i = 0; i < campaignCount; i++) {
		const createdMs = campaignTimes[i];
		const created = new Date(createdMs);
		const name = `${random.pick(CAMPAIGN_TOPICS)} ${MONTHS[created.getUTCMonth()]} ${created.getUTCFullYear()}`;
		const mode = random.chance(0.35) ? 'scheduled' : 'immediate';
		const startMs = mode === 'scheduled' ? createdMs + random.int(1, 14) * DAY_MS : createdMs;
		/** @type {CampaignStatus} */
		let status;
		let updatedMs = createdMs;
		if (i >= finalCount) {
			// Older active campaigns are running, the newest are still waiting.
			status = i - finalCount < Math.floor(activeCount / 2) ? 'in_progress' : 'pending';
			if (status === 'in_progress')
				updatedMs = Math.min(createdMs + random.int(1, 50) * 60_000, SEED_EPOCH_MS);
		} else {
			const fromNewest = finalCount - 1 - i;
			if (fromNewest < newestFinal.length) status = newestFinal[fromNewest];
			else {
				const roll = random.next();
				status = roll < 0.6 ? 'completed' : roll < 0.8 ? 'failed' : 'cancelled';
			}
			updatedMs = Math.min(
				Math.max(startMs, createdMs) + random.int(1, 72) * 3_600_000,
				SEED_EPOCH_MS,
			);
		}
		campaigns[i] = {
			id: newId('cmp'),
			name,
			status,
			agentName: agentCount > 0 ? agents[random.int(0, agentCount - 1)].name : 'Sales Lucia',
			mode,
			numberDid: random.pick(dids),
			createdAt: iso(createdMs),
			updatedAt: iso(updatedMs),
			fileName: `${slug(name)}-numbers.csv`,
			startDate: iso(startMs),
		};
	}

	/** @type {WhatsappNumber[]} */
	const whatsappNumbers = [
		{ id: newId('wan'), phone: `+3491${random.digits(7)}`, name: 'Main line', status: 'connected' },
		{ id: newId('wan'), phone: `+3491${random.digits(7)}`, name: 'Support', status: 'connected' },
		{
			id: newId('wan'),
			phone: `+4420${random.digits(8)}`,
			name: 'Marketing UK',
			status: 'disconnected',
		},
	];

	/** @type {Contact[]} */
	const contacts = [];
	const contactTimes = spreadTimes(
		random,
		12,
		SEED_EPOCH_MS - 120 * DAY_MS,
		SEED_EPOCH_MS - 30 * DAY_MS,
	);
	const phones = new Set();
	for (let i = 0; i < 12; i++) {
		const first = FIRST_NAMES[(i * 7) % FIRST_NAMES.length];
		const last = LAST_NAMES[(i * 3 + 1) % LAST_NAMES.length];
		let phone;
		do phone = i % 4 === 3 ? `+447${random.digits(9)}` : `+346${random.digits(8)}`;
		while (phones.has(phone));
		phones.add(phone);
		/** @type {Record<string, unknown>} */
		const attributes = { customerId: `C-${1001 + i}` };
		if (random.chance(0.7)) attributes.plan = random.pick(PLANS);
		if (random.chance(0.6)) attributes.city = random.pick(CITIES);
		contacts.push({
			id: newId('ctc'),
			name: `${first} ${last}`,
			phone,
			email: i % 4 === 2 ? null : `${first}.${last}@example.com`.toLowerCase(),
			attributes,
			createdAt: iso(contactTimes[i]),
			updatedAt: iso(contactTimes[i] + random.int(0, 20) * DAY_MS),
		});
	}

	/** @type {Chat[]} */
	const chats = [];
	/** @type {Message[]} */
	const messages = [];
	for (let c = 0; c < 8; c++) {
		const contact = contacts[c];
		const chat = {
			id: newId('cht'),
			contactId: contact.id,
			phone: contact.phone,
			status: /** @type {'open' | 'closed'} */ (c < 5 ? 'open' : 'closed'),
			important: c === 1 || c === 6,
			updatedAt: '',
		};
		// Chat 0 has enough history for three pages at the default limit of 10.
		const count = c === 0 ? 25 : random.int(3, 12);
		const times = spreadTimes(
			random,
			count,
			SEED_EPOCH_MS - 25 * DAY_MS + c * DAY_MS,
			SEED_EPOCH_MS - (8 - c) * 3_600_000,
		);
		for (let m = 0; m < count; m++) {
			const direction = m === 0 || random.chance(0.5) ? 'inbound' : 'outbound';
			const roll = random.next();
			/** @type {MessageType} */
			let type = 'text';
			/** @type {Message['content']} */
			let content = random.pick(direction === 'inbound' ? INBOUND_TEXTS : OUTBOUND_TEXTS);
			if (roll > 0.9) {
				type = 'image';
				content = {
					url: `https://example.com/media/${random.hex(8)}.jpg`,
					mimeType: 'image/jpeg',
					caption: 'Photo',
				};
			} else if (roll > 0.85) {
				type = 'document';
				content = {
					url: `https://example.com/media/${random.hex(8)}.pdf`,
					mimeType: 'application/pdf',
					fileName: 'invoice.pdf',
				};
			} else if (roll > 0.82) {
				type = 'location';
				content = {
					latitude: 40.4168,
					longitude: -3.7038,
					name: 'Office',
					address: 'Puerta del Sol, Madrid',
				};
			}
			messages.push({
				id: newId('msg'),
				chatId: chat.id,
				direction,
				type,
				content,
				status: direction === 'inbound' ? 'read' : m === count - 1 ? 'delivered' : 'read',
				reaction: random.chance(0.15) ? random.pick(['👍', '❤️', '😂', '🙏']) : null,
				createdAt: iso(times[m]),
			});
		}
		chat.updatedAt = iso(times[count - 1]);
		chats.push(chat);
	}

	/** @type {BroadcastMessage[]} */
	const broadcastMessages = [];
	const broadcastFinal = /** @type {const} */ (['read', 'delivered', 'failed', 'read']);
	for (let b = 0; b < broadcastFinal.length; b++) {
		const createdMs = SEED_EPOCH_MS - (10 - b) * DAY_MS;
		const channel = b === 3 ? 'email' : b === 2 ? 'sms' : 'whatsapp';
		/** @type {BroadcastMessage} */
		const message = {
			id: newId('bcm'),
			channel,
			recipient:
				channel === 'email'
					? (contacts[0].email ?? 'lucia.martinez@example.com')
					: contacts[b].phone,
			status: broadcastFinal[b],
			createdAt: iso(createdMs),
			updatedAt: iso(createdMs + random.int(1, 120) * 60_000),
		};
		if (message.status === 'failed') message.error = 'Recipient unreachable';
		broadcastMessages.push(message);
	}

	return {
		agents,
		campaigns,
		campaignData: new CampaignDataStore(findCampaign, seed),
		balance: createBalance(random),
		contacts,
		chats,
		messages,
		broadcastMessages,
		whatsappNumbers,
		uploads: [],
		sent: [],
		callRuns: new Map(),
		campaignDataFailures: new Map(),
	};
}
