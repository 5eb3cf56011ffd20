// 1,000 operations under each kind of fault: every item ends succeeded or as a clear error
// item, none is lost, no message is sent twice, and an expired token fails no item.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Messenger } from '../../../nodes/Messenger/Messenger.node.ts';
import { VoiceAi } from '../../../nodes/VoiceAi/VoiceAi.node.ts';
import { retrySettings } from '../../../tools/nodeShared.mjs';
import { openChat, sandboxSuite, unpacedRunner } from '../../support/integration.mjs';

const ITEMS = 1000;

const FAULTS = {
	'5xx before and after carrying out (8%)': { serverErrorRate: 0.08 },
	'429 bursts with Retry-After (10%)': { rateLimitRate: 0.1, retryAfter: true },
	'429 bursts without Retry-After (10%)': { rateLimitRate: 0.1, retryAfter: false },
	'tokens expiring early (3%)': { tokenExpiryRate: 0.03 },
	'slow answers (5%, 30 ms)': { slowRate: 0.05, slowMs: 30 },
	'connection resets (5%)': { resetRate: 0.05 },
	'broken JSON answers (5%)': { malformedJsonRate: 0.05 },
};

describe('1,000 operations under each fault', () => {
	const saved = { ...retrySettings };
	before(() => {
		// Waits in milliseconds instead of seconds; the counts of attempts stay as shipped.
		Object.assign(retrySettings, {
			baseDelayMs: 1,
			maxDelayMs: 4,
			maxRetryAfterMs: 2,
			retryAfterJitterMs: 1,
		});
	});
	after(() => Object.assign(retrySettings, saved));
	const env = sandboxSuite({ rateLimitPerMinute: 0, tokenRateLimitPerMinute: 0 });

	for (const [name, faults] of Object.entries(FAULTS)) {
		it(name, async () => {
			const { sandbox } = env;
			sandbox.setFaults({ seed: 7, ...faults });
			const chat = openChat(sandbox);
			const messenger = unpacedRunner(Messenger, sandbox);
			const voice = unpacedRunner(VoiceAi, sandbox);
			const run = `${name}:${Date.now()}`;
			const messagesBefore = sandbox.state.messages.length;
			const items = Array.from({ length: ITEMS / 2 }, (_, i) => ({ json: { i } }));

			// Half sends (POST: never sent twice), half reads (GET: asked again when safe).
			const sends = await messenger.run(
				(i) => ({
					resource: 'message',
					operation: 'sendLocation',
					chatId: chat.id,
					latitude: 10,
					longitude: 20,
					options: { name: `${run}#${i}` },
				}),
				{ items, continueOnFail: true },
			);
			const reads = await voice.run(
				{ resource: 'billing', operation: 'getBalance' },
				{ items, continueOnFail: true },
			);
			// Broadcasts too: one recipient per item, each phone unique to this run and item.
			const prefix = 100 + Object.keys(FAULTS).indexOf(name);
			const phoneOf = (i) => `+34${prefix}${String(i + 1).padStart(6, '0')}`;
			const broadcastItems = items.slice(0, 200);
			const broadcasts = await messenger.run(
				(i) => ({
					resource: 'broadcast',
					operation: 'send',
					channel: 'whatsapp',
					recipientsInput: 'rows',
					recipients: { recipient: [{ phone: phoneOf(i) }] },
					messageContent: 'text',
					text: 'Your order is on its way',
					options: {},
				}),
				{ items: broadcastItems, continueOnFail: true },
			);
			const injected = sandbox.faultCounts;
			sandbox.setFaults({});

			for (const output of [sends, reads]) {
				assert.equal(output.length, ITEMS / 2, 'no item lost');
				assert.deepEqual(
					output.map((o) => o.pairedItem.item),
					items.map((_, i) => i),
					'each item answered once, in order',
				);
				for (const o of output) {
					const ok = o.json.id !== undefined || o.json.credit !== undefined;
					const clearError =
						typeof o.json.error === 'string' &&
						o.json.error.length > 20 &&
						!o.json.error.includes('undefined');
					assert.ok(
						ok !== clearError,
						`item ${o.pairedItem.item} is neither a result nor a clear error: ${JSON.stringify(o.json)}`,
					);
				}
			}
			assert.ok(
				Object.values(injected).reduce((a, b) => a + b, 0) > 20,
				`faults were injected: ${JSON.stringify(injected)}`,
			);

			// No message twice: each item's message exists at most once, and exactly once where it succeeded.
			const sent = sandbox.state.messages.slice(messagesBefore).map((m) => m.content?.name);
			const counts = new Map();
			for (const label of sent) counts.set(label, (counts.get(label) ?? 0) + 1);
			assert.ok(
				[...counts.values()].every((n) => n === 1),
				'a message was sent twice',
			);
			sends.forEach((o, i) => {
				if (o.json.id)
					assert.equal(
						counts.get(`${run}#${i}`),
						1,
						`item ${i} succeeded but its message is missing`,
					);
			});

			assert.equal(broadcasts.length, broadcastItems.length, 'no broadcast item lost');
			const perPhone = new Map();
			for (const message of sandbox.state.broadcastMessages) {
				perPhone.set(message.recipient, (perPhone.get(message.recipient) ?? 0) + 1);
			}
			broadcasts.forEach((o, i) => {
				const times = perPhone.get(phoneOf(i)) ?? 0;
				assert.ok(times <= 1, `broadcast of item ${i} sent ${times} times`);
				if (!o.json.error)
					assert.equal(times, 1, `broadcast of item ${i} succeeded but was not recorded`);
			});

			const errors = [...sends, ...reads, ...broadcasts].filter((o) => o.json.error);
			if (faults.tokenExpiryRate || faults.rateLimitRate || faults.slowRate) {
				assert.deepEqual(
					errors.map((o) => o.json.error),
					[],
					'these faults are absorbed: no item fails',
				);
			}
			if (faults.serverErrorRate || faults.resetRate || faults.malformedJsonRate) {
				// GETs are asked again; only sends may fail, each with a plain reason.
				assert.equal(reads.filter((o) => o.json.error).length, 0, 'reads recover by asking again');
				assert.ok(
					sends.some((o) => o.json.error),
					'some sends fail under this fault (none is retried blindly)',
				);
			}
		});
	}
});
