// Message Received's generated chat histories (messageReceivedHistories.test.mjs): simulated chats
// whose customers write while the trigger reads them (between the pages of one read too), served
// newest first (pages that shift), oldest first, as a bare array in any order or with each page
// shuffled, an order that changes from read to read; a clock of the test's own that every request
// moves on, so that a poll's time ends at any request; outages (503, 429) at any request; n8n
// restarting between polls from the state it saved. The trigger's own code is polled against it,
// and a model that knows every message says what it must have emitted.
import assert from 'node:assert/strict';
import { mock } from 'node:test';
import { Readable } from 'node:stream';

import fc from 'fast-check';

import { MAX_TIED_IDS } from '../../../../nodes/Messenger/trigger/messageCursor.ts';
import { MAX_HELD_MESSAGES } from '../../../../nodes/Messenger/trigger/messageDelivery.ts';
import { httpError } from '../../../../tools/context.mjs';
import { API_URL, answerOnTape, pollWorld, tapeArbitraries } from './triggerPolls.mjs';

export const START = Date.UTC(2026, 2, 2, 9, 0, 0);
const CHAT_IDS = ['cht_a', 'cht_b', 'cht_c'];
/** The phone that watches the last chat when a world says so (its chat may open later). */
export const PHONE = '+34600000003';
/** A chat ID the API does not know (404). */
export const UNKNOWN_CHAT = 'cht_zz_unknown';
/** The one bad chat of a live world (`world.bad`): 5xx or 403 on every read, or unknown (404) for a while. */
export const BAD_CHAT = 'cht_bad';
/** Activation modes of a person (publish, activate, a manual run) and of n8n itself (a durable scheduled poll: update). */
export const PERSON_MODES = ['activate', 'create', 'manual'];
export const N8N_MODES = ['init', 'leadershipChange', 'update', undefined];
// Oldest first with each page shuffled is beyond what the trigger can tell from a page (docs/triggers.md).
const ORDERS = ['desc', 'asc', 'bare', 'descShuffled'];

/** A request's duration on the test's clock: often none (messages then share a createdAt). */
const durationArbitrary = fc.constantFrom(0, 0, 300, 1000, 2500);

/** An arrival: which open chat, direction, media, whether the clock moves on first (live worlds add to it). */
export const arrivalFields = {
	chat: fc.nat(2),
	inbound: fc.boolean(),
	media: fc.boolean(),
	tick: fc.boolean(),
};
/** The order of each read (in turn), and each answer's arrivals and duration (in turn). */
export const readTapes = {
	orders: fc.array(fc.constantFrom(...ORDERS), { minLength: 1, maxLength: 5 }),
	answers: fc.array(fc.record({ arrivals: fc.nat(2), ms: durationArbitrary }), {
		minLength: 1,
		maxLength: 6,
	}),
};

/**
 * A generated world: its chats (the messages they hold before watching begins), how the trigger
 * watches them, its settings, the arrivals (which chat, direction, media, whether the clock
 * moves on), and tapes for the API: the order of each read, each answer's arrivals and duration,
 * the answers cut off by the poll's time, the outages, and where n8n restarts.
 */
export const chatWorldArbitrary = ({ download = false, pause = false, unknown = false } = {}) =>
	fc.record({
		chats: fc.integer({ min: 1, max: 3 }),
		before: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 3, maxLength: 3 }),
		byPhone: fc.boolean(),
		opensAt: fc.integer({ min: 0, max: 6 }),
		unknownChat: unknown ? fc.boolean() : fc.constant(false),
		activation: fc.constantFrom(...PERSON_MODES, ...N8N_MODES),
		direction: fc.constantFrom('both', 'inbound'),
		groupByChat: fc.boolean(),
		download: fc.constant(download),
		pauseSeconds: pause ? fc.constantFrom(0, 45, 150) : fc.constant(0),
		pageSize: fc.integer({ min: 1, max: 3 }),
		budgetMs: fc.integer({ min: 3_000, max: 12_000 }),
		arrivals: fc.array(fc.record(arrivalFields), { maxLength: 12 }),
		...readTapes,
		...tapeArbitraries(60),
		// Downloads cut off by the poll's time, counted among file requests (twice in a row: the
		// file comes with mediaError at the next poll).
		slowFileAt: fc.uniqueArray(fc.integer({ min: 1, max: 6 }), { maxLength: 3 }),
	});

/** An ID that does not grow with the arrival order, so that ties of createdAt mix old and new IDs. */
const messageId = (seq) => `msg_${String((seq * 7919) % 10007).padStart(5, '0')}`;

const compare = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const byTime = (a, b) => compare(a.createdAt, b.createdAt) || compare(a.id, b.id);

/** A permutation of `items` chosen by `seed` (the order a bare answer or a shuffled page comes in). */
function shuffled(items, seed) {
	const out = [...items];
	let state = (seed * 2654435761) >>> 0 || 1;
	for (let i = out.length - 1; i > 0; i--) {
		state = (state * 1103515245 + 12345) >>> 0;
		const j = state % (i + 1);
		[out[i], out[j]] = [out[j], out[i]];
	}
	return out;
}

/**
 * The world's API: chats with every message's truth, the test's clock, and the tapes. A live
 * world (liveHistories.mjs) may add: `skewMs` (the API's clock minus n8n's: the `createdAt` it
 * writes and the `Date` header of its answers), `bad` (BAD_CHAT: `kind` '5xx' or '403' on every
 * read from `failsFromMs` after START on (an empty chat before), or '404' until `healsAfterMs`
 * after START, then a chat that customers write to),
 * `brokenFiles` (the arrivals, counted from 1, whose file answers 503 for good), and an arrival's
 * `lateMs` (its `createdAt` that much older than the API's time when it appears). `advance(ms)`
 * moves the clock on; `answerTakes(ms)` is an answer's time on the tapes (the clock moved on, or
 * a wait of the caller's before the answer comes).
 */
export function simulatedChats(world, advance = testClock.advance, answerTakes = advance) {
	let seq = 0;
	let arrived = 0;
	let answers = 0;
	let files = 0;
	let reads = 0;
	const chats = CHAT_IDS.slice(0, world.chats).map((id, index) => ({
		id,
		index,
		messages: [],
		open: !(world.byPhone && index === world.chats - 1 && world.opensAt > 0),
	}));
	const api = {
		/** Every message, in arrival order: `seq` counts arrivals (1, 2, …). */
		messages: [],
		chats,
		/** Per chat, the arrivals counted at the first and last answer of its read in this poll. */
		pollReads: new Map(),
		/** What the current read of each chat is served as: an order of ORDERS. */
		readOrder: new Map(),
		quiet: false,
		tick: advance,
		/** The virtual times of the answers the tapes failed (outages, cut-offs): not a chat's fault. */
		faults: [],
		/** The bad chat of a live world: its messages, and from when the API knows it. */
		badChat: world.bad && {
			id: BAD_CHAT,
			messages: [],
			opensAt: world.bad.kind === '404' ? START + world.bad.healsAfterMs : 0,
		},
	};
	const apiNow = () => Date.now() + (world.skewMs ?? 0);
	const write = (chat, spec) => {
		seq++;
		const media = world.download && spec.media;
		const id = messageId(seq);
		const message = {
			id,
			chatId: chat.id,
			direction: spec.inbound ? 'inbound' : 'outbound',
			type: media ? 'image' : 'text',
			content: media
				? { url: `${API_URL}/media/${id}`, fileName: `${id}.jpg`, caption: `photo ${seq}` }
				: `text ${seq}`,
			status: 'delivered',
			createdAt: new Date(apiNow() - (spec.lateMs ?? 0)).toISOString(),
		};
		chat.messages.push(message);
		const broken = media && (world.brokenFiles ?? []).includes(seq);
		api.messages.push({ ...message, seq, writtenAt: Date.now(), broken, chat: chat.id });
	};
	// The history before watching began.
	for (const chat of chats) {
		if (!chat.open) continue;
		for (let k = 0; k < world.before[chat.index]; k++) {
			advance(1000);
			write(chat, { inbound: k % 2 === 0, media: true });
		}
	}
	advance(1000);
	/** `count` arrivals from the world's list, each at the clock's time (moved on when it says). */
	api.arrive = (count) => {
		for (let k = 0; k < count && arrived < world.arrivals.length; k++) {
			const spec = world.arrivals[arrived++];
			const phoneChat = chats[chats.length - 1];
			const others = chats.some((chat) => chat.open);
			if (!phoneChat.open && (arrived >= world.opensAt || !others)) phoneChat.open = true;
			const open = chats.filter((chat) => chat.open);
			if (spec.tick) advance(1000);
			const bad = api.badChat;
			if (spec.bad && world.bad?.kind === '404' && Date.now() >= bad.opensAt) write(bad, spec);
			else write(open[spec.chat % open.length], spec);
		}
	};
	api.done = () => arrived >= world.arrivals.length;

	const historyAnswer = (chat, qs) => {
		const page = Number(qs.page ?? 1);
		if (page === 1) api.readOrder.set(chat.id, world.orders[reads++ % world.orders.length]);
		const order = api.readOrder.get(chat.id);
		const read = api.pollReads.get(chat.id) ?? { first: api.messages.length };
		read.last = api.messages.length;
		api.pollReads.set(chat.id, read);
		const ascending = [...chat.messages].sort(byTime);
		if (order === 'bare') return shuffled(ascending, answers);
		const ordered = order === 'asc' ? ascending : ascending.reverse();
		const size = world.pageSize;
		let items = ordered.slice((page - 1) * size, page * size);
		if (order === 'descShuffled') items = shuffled(items, answers);
		return { items, total: ordered.length, page, totalPages: Math.ceil(ordered.length / size) };
	};

	api.respond = (options) => {
		answers++;
		if (!api.quiet) api.arrive(world.answers[answers % world.answers.length].arrivals);
		const url = String(options.url);
		const file = url.startsWith(`${API_URL}/media/`);
		try {
			answerOnTape(world, api, answers, {
				options,
				advance: answerTakes,
				slow: () => {
					if (file) files++;
					return world.slowAt.includes(answers) || (file && world.slowFileAt.includes(files));
				},
			});
		} catch (error) {
			api.faults.push(Date.now());
			throw error;
		}
		const body = answer(options, url, file);
		// Asked for the whole answer (to read its Date header): the API's clock, to the second.
		if (!options.returnFullResponse || file) return body;
		const headers = { date: new Date(apiNow()).toUTCString() };
		return { body, headers, statusCode: 200 };
	};
	const answer = (options, url, file) => {
		if (file) {
			const id = url.slice(url.lastIndexOf('/') + 1);
			if (api.messages.find((m) => m.id === id)?.broken) {
				throw httpError(503, { message: 'File host unavailable' });
			}
			const bytes = Buffer.from(`file of ${url.slice(url.lastIndexOf('/') + 1)}`);
			return {
				body: Readable.from([bytes]),
				headers: { 'content-type': 'image/jpeg', 'content-length': String(bytes.length) },
				statusCode: 200,
			};
		}
		if (url === '/api/v1/messenger/chats/check-existing') {
			const chat = chats[chats.length - 1];
			return chat.open ? { exists: true, chatId: chat.id } : { exists: false };
		}
		const history = /\/messenger\/messages\/chat\/([^/]+)$/.exec(url);
		const bad = api.badChat;
		if (bad && history && decodeURIComponent(history[1]) === bad.id) {
			const failing = Date.now() >= START + (world.bad.failsFromMs ?? 0);
			if (failing && world.bad.kind === '5xx') throw httpError(503, { message: 'Unavailable' });
			if (failing && world.bad.kind === '403') throw httpError(403, { message: 'Forbidden' });
			if (Date.now() >= bad.opensAt) return historyAnswer(bad, options.qs ?? {});
		}
		const chat = history && chats.find((c) => c.id === decodeURIComponent(history[1]));
		if (!chat?.open) throw httpError(404, { statusCode: 404, message: 'Chat not found' });
		return historyAnswer(chat, options.qs ?? {});
	};
	return api;
}

/** n8n's binary store without its wait: the file's bytes, read from the stream. */
export const quickStore = {
	prepareBinaryData: async (stream, fileName, mimeType) => {
		const chunks = [];
		for await (const chunk of stream) chunks.push(chunk);
		const bytes = Buffer.concat(chunks);
		return { data: bytes.toString('base64'), mimeType, fileName, fileSize: String(bytes.length) };
	},
};

/**
 * The entries a world watches: its chats (the last by phone when it says; by ID too when it is
 * listed `twice`), the unknown chat, and a live world's bad chat at its place.
 */
export function watchedEntries(world) {
	const keys = CHAT_IDS.slice(0, world.chats).map((id, index) =>
		world.byPhone && index === world.chats - 1 ? PHONE : id,
	);
	if (world.byPhone && world.twice) keys.push(CHAT_IDS[world.chats - 1]);
	if (world.unknownChat) keys.push(UNKNOWN_CHAT);
	if (world.bad) keys.splice(world.bad.at % (keys.length + 1), 0, BAD_CHAT);
	return keys;
}

/** Messages of the world's emitted items (Group by Chat gives several per item). */
const messagesOf = (item) => (Array.isArray(item.messages) ? item.messages : [item]);

/**
 * Runs a world: polls while the customers write (restarts where the world says), then quiet polls
 * (no arrivals, outages or cut-offs) until nothing is held or waits for its file. Resolves to
 * what was emitted, the failures, and the lineage of the state n8n kept: for each entry, where
 * its watching began.
 */
export async function runChats(world) {
	const api = simulatedChats(world);
	const entries = watchedEntries(world);
	/** A person activating may be refused an unknown ID: then no poll records anything. */
	const refusable = world.unknownChat && PERSON_MODES.includes(world.activation);
	const run = await pollWorld(world, api, {
		params: {
			event: 'messageReceived',
			chats: entries.join(', '),
			direction: world.direction,
			messageTypes: [],
			options: {
				downloadMedia: world.download,
				groupByChat: world.groupByChat,
				waitForPause: world.pauseSeconds,
			},
		},
		store: quickStore,
		refusable,
		tick: api.tick,
		moveOn: () => api.arrive(1),
		startPoll: () => {
			api.pollReads = new Map();
		},
		recordPoll: (state, before, lineage) => {
			checkBounds(state, entries);
			// Where watching began for the entries this poll recorded first.
			for (const [key, watch] of Object.entries(state.chats)) {
				if (before?.chats[key] || lineage[key] || watch.missing) continue;
				if (key === PHONE && watch.chatId === undefined) {
					lineage[key] = { at: watch.at };
					continue;
				}
				const chatId = key === PHONE ? watch.chatId : key;
				const read = api.pollReads.get(chatId);
				assert.ok(read, `${key} recorded without a read`);
				lineage[key] = { chatId, first: read.first, last: read.last };
			}
		},
		emittedOf: (item) => messagesOf(item.json).map((message) => ({ message, binary: item.binary })),
		settled: (staticData) => {
			const state = staticData.poll?.state;
			return (
				state &&
				!state.next &&
				!state.pending &&
				!state.held &&
				entries.every((key) => state.chats[key])
			);
		},
	});
	return { api, entries, refusable, ...run };
}

/** The state stays within its bounds: the watched entries only, bounded IDs and held messages. */
function checkBounds(state, entries) {
	for (const [key, watch] of Object.entries(state.chats)) {
		assert.ok(entries.includes(key), `state of an entry not watched: ${key}`);
		assert.ok((watch.ids ?? []).length <= MAX_TIED_IDS, `${key}: ${watch.ids.length} ids`);
	}
	for (const [chat, held] of Object.entries(state.held ?? {})) {
		assert.ok(held.items.length <= MAX_HELD_MESSAGES, `${chat}: ${held.items.length} held`);
	}
}

/**
 * What the model says of each message: 'once' (it arrived after its chat's watching began: the
 * read that recorded the chat's baseline had ended, or, for a phone whose chat was not open yet,
 * it was written after the phone was first watched), 'never' (before that read began, or not
 * wanted by Direction), or 'atMostOnce' (it arrived while that read went on).
 */
export function expectedMessages(world, run) {
	const expected = new Map();
	for (const message of run.api.messages) {
		const key =
			world.byPhone && message.chatId === run.api.chats.at(-1).id ? PHONE : message.chatId;
		const begin = run.lineage[key];
		let verdict = 'never';
		if (world.direction === 'inbound' && message.direction !== 'inbound') verdict = 'never';
		else if (!begin) verdict = 'never';
		else if (begin.at !== undefined) verdict = message.createdAt >= begin.at ? 'once' : 'never';
		else if (message.seq > begin.last) verdict = 'once';
		else if (message.seq > begin.first) verdict = 'atMostOnce';
		expected.set(message.id, verdict);
	}
	return expected;
}

/** What every run must show, whatever the world (the property, and the defects test's histories). */
export function checkChatRun(world, run) {
	const counts = new Map();
	for (const { message } of run.emitted) {
		const id = message.messageId;
		counts.set(id, (counts.get(id) ?? 0) + 1);
	}
	const expected = expectedMessages(world, run);
	for (const [id, verdict] of expected) {
		const count = counts.get(id) ?? 0;
		if (verdict === 'once') assert.equal(count, 1, `${id} emitted ${count} times, expected once`);
		if (verdict === 'never') assert.equal(count, 0, `${id} emitted ${count} times, expected never`);
		if (verdict === 'atMostOnce') assert.ok(count <= 1, `${id} emitted ${count} times`);
	}
	for (const id of counts.keys()) assert.ok(expected.has(id), `${id} was never written`);
	// The poll's time and an outage are never the failure of a chat.
	for (const failure of run.failures) {
		assert.match(failure.message, new RegExp(`"${UNKNOWN_CHAT}" was not found`), failure.message);
	}
	for (const error of run.thrown) {
		const named = run.refusable && error.message.includes(UNKNOWN_CHAT);
		assert.ok(
			named || ['temporarily-unavailable', 'rate-limited'].includes(error.failure?.cause),
			`a poll failed with ${JSON.stringify(error.failure)}: ${error.message}`,
		);
	}
	// A media message comes with its file, or says that the poll's time cut off its download twice.
	for (const { message, binary } of run.emitted) {
		if (!message.message?.content?.url) continue;
		if (message.binaryProperty !== undefined) {
			assert.ok(binary?.[message.binaryProperty], `${message.messageId}: no file`);
		} else assert.match(message.mediaError?.message ?? '', /time budget/, message.messageId);
	}
}

/** The test's clock: it stands in for Date while `onTestClock` runs, and only moves on when told. */
export const testClock = { advance: (ms) => mock.timers.tick(ms) };

/** Runs `work` with the test's clock standing in for Date (requests move it on). */
export async function onTestClock(work) {
	mock.timers.enable({ apis: ['Date'], now: START });
	try {
		return await work(testClock);
	} finally {
		mock.timers.reset();
	}
}
