// n8n-workflow's error classes swap a message that contains a system error code (EPERM, ENOENT,
// ... anywhere, any case) for a stock text. These tests run the package's messages through those
// very classes: every message it raises is shown as written, even with hostile server data.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { N8N_REWRITTEN_CODES, keptByN8n } from '../../../nodes/shared/errorWords.ts';
import { apiRequest } from '../../../nodes/shared/transport.ts';
import { exchangeClientCredentials } from '../../../nodes/shared/auth/token.ts';
import { VoiceAiTrigger } from '../../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { MessengerTrigger } from '../../../nodes/Messenger/MessengerTrigger.node.ts';
import { TEST_NODE, httpError, networkError } from '../../../tools/context.mjs';
import { NodeApiError, NodeOperationError, retrySettings } from '../../../tools/nodeShared.mjs';
import { UNPACED, scriptedContext, scriptedPoll } from '../../support/unit.mjs';

const root = new URL('../../../', import.meta.url).pathname;
const require = createRequire(import.meta.url);
/** Server data that n8n would turn into "Operation not permitted" and the like. */
const HOSTILE = 'ratePerMinute EPERM eNoEnt econnreset';

const saved = { ...retrySettings };
before(() => Object.assign(retrySettings, { baseDelayMs: 1, maxDelayMs: 5 }));
after(() => Object.assign(retrySettings, saved));

/** What n8n shows for an error thrown by a node: its message, also when n8n wraps it again. */
function shownByN8n(error) {
	const wrapped = new NodeOperationError(TEST_NODE, error);
	assert.equal(wrapped.message, error.message, 'n8n wrapping the error keeps its message');
	return error.message;
}

function sourceFiles(dir) {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return path.endsWith('.ts') ? [path] : [];
	});
}

/** The string or template literal starting at `start` (a quote), with each `${…}` as "x". */
function literalAt(source, start) {
	const quote = source[start];
	let text = '';
	for (let i = start + 1; i < source.length; i++) {
		const char = source[i];
		if (char === '\\') {
			text += source[++i];
		} else if (char === quote) {
			return text;
		} else if (quote === '`' && char === '$' && source[i + 1] === '{') {
			// Skip the expression, nested braces and template literals included.
			let depth = 1;
			for (i += 2; depth > 0; i++) {
				if (source[i] === '`') i = source.indexOf('`', i + 1);
				else if (source[i] === '{') depth++;
				else if (source[i] === '}') depth--;
			}
			i--;
			text += 'x';
		} else text += char;
	}
	throw new Error(`unterminated literal at ${start}`);
}

/** Every message the package raises: the first text given to an error, and the wording tables. */
function messageTemplates() {
	const raise =
		/(?:new (?:InputError|UnexpectedAnswerError|TokenExchangeError|NodeOperationError|Error)\(|\b(?:subject|conflictMessage|message):)\s*(?:[a-zA-Z.]+,\s*)?(['"`])/g;
	const templates = [];
	for (const file of [
		...sourceFiles(join(root, 'nodes')),
		...sourceFiles(join(root, 'credentials')),
	]) {
		const source = readFileSync(file, 'utf8');
		for (const match of source.matchAll(raise)) {
			templates.push({ file, text: literalAt(source, match.index + match[0].length - 1) });
		}
		if (file.endsWith('errors.ts')) {
			// statusWording and noAnswerWording return their messages.
			for (const match of source.matchAll(/return\s+(['"`])/g)) {
				templates.push({ file, text: literalAt(source, match.index + match[0].length - 1) });
			}
		}
	}
	// `return ''` and the like say nothing.
	return templates.filter(({ text }) => /[a-z]{3}/i.test(text));
}

describe('n8n shows the messages the package writes', () => {
	it("the codes n8n rewrites are n8n-workflow's own list, and it rewrites each", () => {
		const file = require.resolve('n8n-workflow/dist/cjs/errors/abstract/node.error.js');
		const source = readFileSync(file, 'utf8');
		const table = source.slice(source.indexOf('COMMON_ERRORS = {'), source.indexOf('};'));
		const codes = [...table.matchAll(/^\s+([A-Z_]+):/gm)].map((m) => m[1]);
		assert.deepEqual([...N8N_REWRITTEN_CODES].sort(), codes.sort());
		for (const code of codes) {
			const message = `A field named ${code.toLowerCase()}`;
			assert.notEqual(new NodeOperationError(TEST_NODE, message).message, message);
			assert.equal(keptByN8n(message), false);
		}
	});

	it('no message template holds a system error code', () => {
		const templates = messageTemplates();
		assert.ok(templates.length > 60, `found ${templates.length} message templates`);
		for (const { file, text } of templates) {
			const where = `${file.slice(root.length)}: ${text}`;
			assert.equal(new NodeOperationError(TEST_NODE, text).message, text, where);
			assert.equal(
				new NodeApiError(TEST_NODE, { message: text }, { message: text }).message,
				text,
				where,
			);
		}
	});
});

describe('hostile server data goes to the description, never the message', () => {
	for (const status of [400, 404, 409, 418, 500]) {
		it(`HTTP ${status} with a hostile body and ID`, async () => {
			const { context } = scriptedContext(() => {
				throw httpError(status, { message: HOSTILE, error: HOSTILE });
			});
			const error = await apiRequest
				.call(context, 'GET', '/api/v1/voice/campaigns/cmp_eperm', {
					errorContext: { resource: 'Campaign', id: 'cmp_eperm' },
				})
				.catch((caught) => caught);
			assert.ok(error instanceof NodeApiError);
			assert.ok(keptByN8n(shownByN8n(error)), error.message);
			assert.ok(error.description.includes(HOSTILE));
			if (status === 404) assert.equal(error.message, 'Campaign not found (404). Check the ID.');
		});
	}

	it('a network failure with a code n8n rewrites', async () => {
		const { context } = scriptedContext(() => {
			throw networkError('EPERM');
		});
		const error = await apiRequest
			.call(context, 'POST', '/api/v1/messenger/messages/send/media', { body: {} })
			.catch((caught) => caught);
		assert.ok(keptByN8n(shownByN8n(error)), error.message);
		assert.match(error.description, /EPERM/);
	});

	it('a token endpoint refusal and an unknown network code', async () => {
		const client = { ...UNPACED, clientId: 'id', clientSecret: 'secret' };
		const refused = await exchangeClientCredentials(
			async () => ({ statusCode: 401, body: { message: HOSTILE } }),
			client,
		).catch((caught) => caught);
		assert.ok(keptByN8n(refused.message), refused.message);
		assert.match(refused.description, /EPERM/);
		const limited = await exchangeClientCredentials(
			async () => ({ statusCode: 429, headers: { 'retry-after': 'EPERM' }, body: HOSTILE }),
			client,
		).catch((caught) => caught);
		assert.ok(keptByN8n(limited.message), limited.message);
		assert.match(limited.message, /10 requests a minute/);
		const unreachable = await exchangeClientCredentials(async () => {
			throw networkError('EACCES');
		}, client).catch((caught) => caught);
		assert.ok(keptByN8n(unreachable.message), unreachable.message);
		assert.match(unreachable.description, /EACCES/);
	});

	const pollError = async (Trigger, params, answer) => {
		const { context } = scriptedPoll(answer, { params });
		return await new Trigger().poll.call(context).then(
			() => assert.fail('the first poll should fail'),
			(caught) => caught,
		);
	};

	it('Balance Low on a balance with other field names (the ratePerMinute case)', async () => {
		const error = await pollError(
			VoiceAiTrigger,
			{ event: 'balanceLow', metric: 'credit', threshold: 10 },
			() => ({ remaining: 5, ratePerMinute: 0.1 }),
		);
		assert.equal(shownByN8n(error), 'The balance has no numeric "credit" field');
		assert.match(error.description, /remaining \(number\), ratePerMinute \(number\)/);
		assert.match(error.description, /HTTP Request node/);
	});

	it('Campaign Status Changed on campaigns without a creation time', async () => {
		const error = await pollError(
			VoiceAiTrigger,
			{ event: 'campaignStatusChanged', campaignScope: 'all', statuses: [] },
			() => ({ items: [{ id: 'c1', status: 'pending', created: HOSTILE }], totalPages: 1 }),
		);
		assert.equal(shownByN8n(error), 'A campaign in the list has no date "createdAt" field');
		assert.match(error.description, /created \(string\)/);
	});

	it('Message Received on a phone whose Check Existing answer has no chat ID', async () => {
		const error = await pollError(
			MessengerTrigger,
			{ event: 'messageReceived', chats: '+34600123456', direction: 'inbound', messageTypes: [] },
			() => ({ exists: true, chat: HOSTILE }),
		);
		assert.equal(
			shownByN8n(error),
			'The Check Existing answer for a watched phone has no text "chatId" field',
		);
		assert.match(error.description, /chat \(string\)/);
	});

	it('Message Received filtering on a direction the history does not send', async () => {
		const message = { id: 'm1', createdAt: '2026-01-01T00:00:00.000Z', from: HOSTILE };
		const error = await pollError(
			MessengerTrigger,
			{ event: 'messageReceived', chats: 'cht_1', direction: 'inbound', messageTypes: [] },
			() => ({ items: [message], totalPages: 1 }),
		);
		assert.equal(shownByN8n(error), 'A message in the chat history has no text "direction" field');
		assert.match(error.description, /from \(string\)/);
	});

	it('Broadcast Message Status Changed on a message without a status', async () => {
		const error = await pollError(
			MessengerTrigger,
			{ event: 'broadcastStatusChanged', messageIds: 'bcm_1', statuses: [] },
			() => ({ id: 'bcm_1', state: HOSTILE }),
		);
		assert.equal(shownByN8n(error), 'The broadcast message has no text "status" field');
	});
});
