// Deterministic seed data for the sandbox: the same seed always yields the same records.

/**
 * @typedef {{ userId: string, username: string, fullName: string, email: string, at: string }} LastModifiedBy
 * @typedef {{ id: string, name: string, status: 'active' | 'inactive', provider: string, call_type: 'inbound' | 'outbound', createdAt: string, lastModifiedBy?: LastModifiedBy }} Agent
 * @typedef {'pending' | 'in_progress' | 'completed' | 'cancelled' | 'failed'} CampaignStatus
 * @typedef {{ id: string, name: string, status: CampaignStatus, agentName: string, mode: 'immediate' | 'scheduled', numberDid: string, createdAt: string, updatedAt: string, fileName: string, startDate: string }} Campaign
 * @typedef {'pending' | 'calling' | 'answered' | 'no_answer' | 'busy' | 'failed'} CallStatus
 * @typedef {{ phoneNumber: string, status: CallStatus, attempts: number, durationSeconds: number, result: string | null, calledAt: string | null }} CampaignDataRecord
 * @typedef {{ credit: number, currency: string, ratePerMinute: number, readonly minutes: number }} Balance
 * @typedef {{ id: string, name: string, phone: string, email: string | null, attributes: Record<string, unknown>, createdAt: string, updatedAt: string }} Contact
 * @typedef {{ id: string, contactId: string | null, phone: string, status: 'open' | 'closed', important: boolean, updatedAt: string }} Chat
 * @typedef {'text' | 'image' | 'video' | 'audio' | 'document' | 'location'} MessageType
 * @typedef {'queued' | 'sent' | 'delivered' | 'read' | 'failed'} DeliveryStatus
 * @typedef {{ id: string, chatId: string, direction: 'inbound' | 'outbound', type: MessageType, content: string | Record<string, unknown>, status: DeliveryStatus, reaction: string | null, createdAt: string }} Message
 *   `content` is the text for `text` messages, an object for the others (docs/api.md).
 * @typedef {{ id: string, channel: 'whatsapp' | 'sms' | 'email', recipient: string, status: DeliveryStatus, error?: string, createdAt: string, updatedAt: string }} BroadcastMessage
 * @typedef {{ id: string, phone: string, name: string, status: 'connected' | 'disconnected' }} WhatsappNumber
 * @typedef {{ id: string, fileName: string, mimeType: string, size: number, sha256: string, chatId: string, caption: string | null, messageId: string, createdAt: string }} Upload
 * What a broadcast send asked the sandbox to deliver, one entry per recipient (the API's record of
 * a broadcast message has no content; tests and the demo read the text and the links here):
 * @typedef {{ messageId: string, channel: string, recipient: string, text: string | null, templateId: string | null, variables: Record<string, unknown>, whatsappNumberId: string | null, createdAt: string }} SentMessage
 *
 * The live data of one sandbox. Arrays keep insertion order; `agents` and `campaigns` must stay
 * in ascending `createdAt` order because list pages are sliced from them without sorting.
 * @typedef {{
 *   agents: Agent[],
 *   campaigns: Campaign[],
 *   campaignData: CampaignDataStore,
 *   balance: Balance,
 *   contacts: Contact[],
 *   chats: Chat[],
 *   messages: Message[],
 *   broadcastMessages: BroadcastMessage[],
 *   whatsappNumbers: WhatsappNumber[],
 *   uploads: Upload[],
 *   sent: SentMessage[],
 * }} SandboxState
 */

/** Where every seeded timestamp ends: fixed so that a seed means the same data on any day. */
export const SEED_EPOCH_MS = Date.UTC(2025, 5, 1);

const DAY_MS = 86_400_000;

/**
 * mulberry32: tiny, fast and good enough for test data.
 * @param {number} seed
 * @returns {() => number} uniform in [0, 1)
 */
export function mulberry32(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/**
 * FNV-1a, to derive independent PRNG streams from strings such as `${seed}:${id}`.
 * @param {string} text
 */
export function hashString(text) {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	return h >>> 0;
}

/** @param {number} seed */
export function createRandom(seed) {
	const next = mulberry32(seed);
	const random = {
		next,
		/** @param {number} min @param {number} max inclusive */
		int: (min, max) => min + Math.floor(next() * (max - min + 1)),
		/** @template T @param {readonly T[]} items @returns {T} */
		pick: (items) => items[Math.floor(next() * items.length)],
		/** @param {number} probability */
		chance: (probability) => next() < probability,
		/** @param {number} length */
		digits: (length) => {
			let out = '';
			for (let i = 0; i < length; i++) out += Math.floor(next() * 10);
			return out;
		},
		/** @param {number} length */
		hex: (length) => {
			let out = '';
			while (out.length < length)
				out += Math.floor(next() * 4294967296)
					.toString(16)
					.padStart(8, '0');
			return out.slice(0, length);
		},
		/** @template T @param {T[]} items in place */
		shuffle: (items) => {
			for (let i = items.length - 1; i > 0; i--) {
				const j = Math.floor(next() * (i + 1));
				[items[i], items[j]] = [items[j], items[i]];
			}
			return items;
		},
	};
	return random;
}

/** @typedef {ReturnType<typeof createRandom>} Random */

/**
 * Opaque ids like `agt_3f9a0c1d2e4b5a69`, unique within one sandbox.
 * @param {Random} random
 */
export function createIdFactory(random) {
	const used = new Set();
	/** @param {string} prefix */
	return (prefix) => {
		let id;
		do id = `${prefix}_${random.hex(16)}`;
		while (used.has(id));
		used.add(id);
		return id;
	};
}

/** @param {number} ms */
export const iso = (ms) => new Date(ms).toISOString();

const FIRST_NAMES = [
	'Lucia',
	'Mateo',
	'Sofia',
	'Hugo',
	'Martina',
	'Daniel',
	'Valeria',
	'Pablo',
	'Julia',
	'Alvaro',
	'Emma',
	'Liam',
	'Olivia',
	'Noah',
	'Ava',
	'Lucas',
	'Mia',
	'Leo',
	'Chloe',
	'Adam',
];
const LAST_NAMES = [
	'Garcia',
	'Martinez',
	'Lopez',
	'Sanchez',
	'Perez',
	'Gomez',
	'Fernandez',
	'Ruiz',
	'Diaz',
	'Moreno',
	'Smith',
	'Johnson',
	'Brown',
	'Taylor',
	'Wilson',
	'Davies',
	'Evans',
	'Walker',
	'Wright',
	'Hall',
];
const AGENT_PURPOSES = [
	'Sales',
	'Support',
	'Collections',
	'Appointments',
	'Surveys',
	'Onboarding',
	'Renewals',
	'Reception',
];
const PROVIDERS = ['openai', 'elevenlabs', 'google', 'azure', 'deepgram'];
const CAMPAIGN_TOPICS = [
	'Renewal reminders',
	'Payment follow-up',
	'Satisfaction survey',
	'Appointment confirmation',
	'Product launch',
	'Win-back offer',
	'Event invitation',
	'Lead qualification',
	'Delivery notice',
	'Policy update',
	'Webinar reminder',
	'Upsell premium plan',
];
const MONTHS = [
	'January',
	'February',
	'March',
	'April',
	'May',
	'June',
	'July',
	'August',
	'September',
	'October',
	'November',
	'December',
];
const CALL_RESULTS = [
	'interested',
	'not_interested',
	'callback_requested',
	'appointment_booked',
	'voicemail',
];
const CITIES = [
	'Madrid',
	'Barcelona',
	'Valencia',
	'Sevilla',
	'London',
	'Manchester',
	'New York',
	'Austin',
];
const PLANS = ['free', 'pro', 'enterprise'];
/** What seeded customers write; the customer-messages control endpoint reuses them. */
export const INBOUND_TEXTS = [
	'Hi, I have a question about my order.',
	'Can you tell me when my delivery arrives?',
	'Thanks, that works for me.',
	'Is it possible to change the appointment to Friday?',
	'I did not receive the invoice.',
	'Perfect, see you then!',
	'How much does the premium plan cost?',
	'Could someone call me back this afternoon?',
];
const OUTBOUND_TEXTS = [
	'Hello! How can we help you today?',
	'Your order has been shipped and should arrive within 2 days.',
	'We have moved your appointment as requested.',
	'Here is your invoice, let us know if anything is missing.',
	'The premium plan is 29 EUR per month.',
	'Sure, an agent will call you back after 15:00.',
	'Thanks for contacting us!',
];

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
			records.push({
				phoneNumber,
				status: 'pending',
				attempts: 0,
				durationSeconds: 0,
				result: null,
				calledAt: null,
			});
		}
	}
	return records;
}

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
	};
}
