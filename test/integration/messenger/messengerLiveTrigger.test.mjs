// Messenger Live Trigger against the sandbox over real HTTP (loopback): the long-running loop with
// the sandbox's rate limit and its 429s, customers writing through the control endpoint.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';

import { MessengerLiveTrigger } from '../../../nodes/Messenger/MessengerLiveTrigger.node.ts';
import { pacingSettings, resetPacing } from '../../../nodes/shared/pacing.ts';
import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { createTriggerContext, sandboxHttp } from '../../../tools/context.mjs';
import { MESSENGER_API, withSandbox } from '../../support/integration.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check, ms) {
	const end = Date.now() + ms;
	while (!check()) {
		if (Date.now() > end) throw new Error('timed out waiting');
		await sleep(20);
	}
}

/** The live trigger activated on `chats` of `sandbox`; `stop()` deactivates it. */
async function activate(sandbox, chats) {
	const auth = sandboxHttp(sandbox, DEMO_CLIENTS.messengerOnly);
	const double = createTriggerContext({
		params: { event: 'messageReceived', chats: chats.join(','), direction: 'inbound' },
		http: auth.httpRequestWithAuthentication,
		credentials: auth.store.data,
	});
	const response = await new MessengerLiveTrigger().trigger.call(double.context);
	const ids = () => double.emitted.flatMap((e) => e.items.map((item) => item.json.messageId));
	return { ...double, ids, stop: async () => await response.closeFunction() };
}

const windowMs = pacingSettings.windowMs;
afterEach(() => {
	pacingSettings.windowMs = windowMs;
	resetPacing();
});

describe('Messenger Live Trigger against the sandbox', () => {
	it('customers writing in turn: each message once within seconds, none after deactivation', async () => {
		await withSandbox({ tokenRateLimitPerMinute: 0 }, async (sandbox) => {
			const chats = sandbox.state.chats.slice(0, 3).map((chat) => chat.id);
			const trigger = await activate(sandbox, chats);
			try {
				const written = [];
				for (const chatId of [...chats, ...chats]) {
					written.push(sandbox.customerWrites({ chatId }).items[0].id);
					await sleep(300);
				}
				await until(() => trigger.ids().length >= written.length, 20_000);
				await sleep(500);
				assert.deepEqual([...trigger.ids()].sort(), [...written].sort());
			} finally {
				await trigger.stop();
			}
			const reads = sandbox.log.length;
			sandbox.customerWrites({ chatId: chats[0] });
			await sleep(1_500);
			assert.equal(sandbox.log.length, reads, 'no request after closeFunction');
		});
	});

	it('the API answering 429 at random loses and doubles nothing', async () => {
		// Each 429 cuts the rate (pacing.ts) for a window: the API's minute is scaled to 2 s.
		pacingSettings.windowMs = 2_000;
		await withSandbox(
			{
				tokenRateLimitPerMinute: 0,
				seed: 11,
				rateWindowMs: 2_000,
				faults: { rateLimitRate: 0.2, retryAfter: false },
			},
			async (sandbox) => {
				const chats = sandbox.state.chats.slice(0, 2).map((chat) => chat.id);
				const trigger = await activate(sandbox, chats);
				try {
					const written = [];
					for (const chatId of [...chats, ...chats, ...chats]) {
						written.push(sandbox.customerWrites({ chatId }).items[0].id);
						await sleep(200);
					}
					await until(() => trigger.ids().length >= written.length, 45_000);
					await sleep(500);
					assert.deepEqual([...trigger.ids()].sort(), [...written].sort());
					const refused = sandbox.log.filter(
						(e) => e.status === 429 && e.path.startsWith(`${MESSENGER_API}/messages/chat/`),
					);
					assert.ok(refused.length > 0, 'the sandbox refused some reads');
				} finally {
					await trigger.stop();
				}
			},
		);
	});
});
