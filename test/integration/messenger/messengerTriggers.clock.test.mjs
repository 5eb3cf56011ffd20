// The Messenger triggers against a sandbox whose clock is an hour behind or an hour ahead of the
// machine's (sandbox option clockAheadMs: its Date header and the createdAt it stamps), over real
// HTTP: a phone whose chat opens after activation reports the message written after activation
// once, and never those the API stamped 10 and 20 minutes before it (a chat that opens with them).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { MessengerLiveTrigger } from '../../../nodes/Messenger/MessengerLiveTrigger.node.ts';
import { MessengerTrigger } from '../../../nodes/Messenger/MessengerTrigger.node.ts';
import { resetPacing } from '../../../nodes/shared/pacing.ts';
import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { createTriggerContext, sandboxHttp } from '../../../tools/context.mjs';
import { watcher, withSandbox } from '../../support/integration.mjs';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const PHONE = '+34600999001';
const PARAMS = { event: 'messageReceived', direction: 'inbound', messageTypes: [], chats: PHONE };
const SANDBOX = { tokenRateLimitPerMinute: 0, rateLimitPerMinute: 0 };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The phone's chat opens with two messages the API stamped 20 and 10 minutes ago, then one now. */
function chatOpens(sandbox, aheadMs) {
	const ago = (ms) => new Date(Date.now() + aheadMs - ms).toISOString();
	const older = [20, 10].map(
		(minutes) =>
			sandbox.customerWrites({ phone: PHONE, createdAt: ago(minutes * MINUTE) }).items[0],
	);
	const [after] = sandbox.customerWrites({ phone: PHONE }).items;
	return { older: older.map((m) => m.id), after: after.id };
}

for (const [clocks, aheadMs] of [
	['an hour behind', -HOUR],
	['an hour ahead', HOUR],
]) {
	describe(`Messenger triggers against a sandbox whose clock is ${clocks}`, () => {
		it('Message Received (polling): the phone’s chat that opens later reports only what came after activation', async () => {
			await withSandbox({ ...SANDBOX, clockAheadMs: aheadMs }, async (sandbox) => {
				const w = watcher(MessengerTrigger, sandbox, PARAMS, {
					client: DEMO_CLIENTS.messengerOnly,
					credentials: { requestsPerMinute: 0 },
				});
				assert.deepEqual((await w.poll()).items, []);
				const { older, after } = chatOpens(sandbox, aheadMs);
				const { items } = await w.poll();
				assert.deepEqual(
					items.map((item) => item.messageId),
					[after],
					`not ${older}`,
				);
			});
		});

		it('Messenger Live Trigger: the phone’s chat that opens later reports only what came after activation', async () => {
			await withSandbox({ ...SANDBOX, clockAheadMs: aheadMs }, async (sandbox) => {
				const auth = sandboxHttp(sandbox, DEMO_CLIENTS.messengerOnly);
				const t = createTriggerContext({
					params: PARAMS,
					http: auth.httpRequestWithAuthentication,
					credentials: auth.store.data,
				});
				const response = await new MessengerLiveTrigger().trigger.call(t.context);
				const ids = () => t.emitted.flatMap((e) => e.items.map((item) => item.json.messageId));
				try {
					const { older, after } = chatOpens(sandbox, aheadMs);
					const end = Date.now() + 20_000;
					while (ids().length === 0 && Date.now() < end) await sleep(50);
					// Read a little longer: the older messages would come with it or after it.
					await sleep(1_500);
					assert.deepEqual(ids(), [after], `not ${older}`);
				} finally {
					await response.closeFunction();
					resetPacing();
				}
			});
		});
	});
}
