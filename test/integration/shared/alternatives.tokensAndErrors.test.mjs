// Where docs/api.md chose how a token's lifetime, an error or a send's answer looks, the real API
// may answer otherwise. Under each such sandbox alternative (sandbox/alternatives.mjs) one token
// serves its lifetime and is renewed once, errors read in our words with the server's in the
// description, and a send answered without a body is one success.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Messenger } from '../../../nodes/Messenger/Messenger.node.ts';
import { VoiceAi } from '../../../nodes/VoiceAi/VoiceAi.node.ts';
import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import {
	ALTERNATIVES_SETTINGS,
	flagsLabel,
	openChat,
	rl,
	unpacedRunner,
	withSandbox,
} from '../../support/integration.mjs';

describe('tokens under each alternative: one token per lifetime, renewed once when it expires', () => {
	const TOKEN_FLAGS = [
		{ expiresInUnit: 'ms' },
		{ opaqueToken: true },
		{ opaqueToken: true, expiresInUnit: 'ms' },
		// 40 days: longer than a timer can wait (2^31 - 1 ms, about 24.8 days).
		{ opaqueToken: true, tokenLifetimeSeconds: 40 * 24 * 3600 },
	];
	const agents = {
		resource: 'agent',
		operation: 'getAll',
		returnAll: false,
		limit: 1,
		options: {},
	};

	for (const flags of TOKEN_FLAGS) {
		it(flagsLabel(flags), async () => {
			await withSandbox({ ...ALTERNATIVES_SETTINGS, ...flags }, async (sandbox) => {
				const voice = unpacedRunner(VoiceAi, sandbox);
				for (let run = 0; run < 20; run++) assert.equal((await voice.run(agents)).length, 1);
				await Promise.all(Array.from({ length: 10 }, () => voice.run(agents)));
				assert.equal(sandbox.tokensIssued, 1, 'one token for 30 executions');
				sandbox.expireTokens();
				for (let run = 0; run < 5; run++) await voice.run(agents);
				assert.equal(sandbox.tokensIssued, 2, 'a revoked token is renewed once');
			});
		});
	}

	it('a token that really expires after 2 s, announced in ms as an opaque token', async () => {
		await withSandbox(
			{
				...ALTERNATIVES_SETTINGS,
				// Whole seconds: a 2 s token lives from 1 to 2 s, long enough for the runs below.
				tokenLifetimeSeconds: 2,
				expiresInUnit: 'ms',
				opaqueToken: true,
			},
			async (sandbox) => {
				const voice = unpacedRunner(VoiceAi, sandbox);
				await voice.run(agents);
				await new Promise((resolve) => setTimeout(resolve, 2100));
				// One after the other: this test double keeps one token store for all executions.
				for (let run = 0; run < 5; run++) await voice.run(agents);
				assert.equal(sandbox.tokensIssued, 2, 'expired: renewed once, not per execution');
				assert.ok(sandbox.log.filter((e) => e.status === 401).length >= 1);
			},
		);
	});
});

describe('errors and sends of another shape', () => {
	for (const errorShape of ['problem', 'text']) {
		it(`errorShape=${errorShape}: our message, the server's words in the description`, async () => {
			await withSandbox({ ...ALTERNATIVES_SETTINGS, errorShape }, async (sandbox) => {
				const voice = unpacedRunner(VoiceAi, sandbox);
				await assert.rejects(
					voice.run({ resource: 'agent', operation: 'get', agentId: rl('agt_nope') }),
					(error) => {
						assert.equal(error.message, 'Agent not found: "agt_nope" (404). Check the ID.');
						assert.match(error.description, /The server said: Agent not found/);
						return true;
					},
				);
				const messenger = unpacedRunner(Messenger, sandbox);
				const chat = openChat(sandbox);
				await assert.rejects(
					messenger.run({ resource: 'chat', operation: 'reopen', chatId: chat.id }),
					(error) => {
						assert.match(error.message, /is already open/);
						assert.match(error.description, /The server said: Chat is already open/);
						return true;
					},
				);
				const wrong = unpacedRunner(VoiceAi, sandbox, {
					...DEMO_CLIENTS.full,
					clientSecret: 'not-the-secret',
				});
				await assert.rejects(
					wrong.run({ resource: 'agent', operation: 'getAll', returnAll: false, limit: 1 }),
					(error) => {
						assert.match(error.message, /rejected the Client ID or Client Secret \(HTTP 401\)/);
						assert.match(error.description, /The server said: Invalid client credentials/);
						return true;
					},
				);
			});
		});
	}

	it('sendAnswer=empty: a send answered 201 without a body is one success item, sent once', async () => {
		await withSandbox({ ...ALTERNATIVES_SETTINGS, sendAnswer: 'empty' }, async (sandbox) => {
			const messenger = unpacedRunner(Messenger, sandbox);
			const chat = openChat(sandbox);
			const before = sandbox.state.messages.length;
			const output = await messenger.run({
				resource: 'message',
				operation: 'sendMedia',
				chatId: chat.id,
				url: 'https://example.com/brochure.pdf',
				mediaType: 'document',
				options: {},
			});
			assert.equal(output.length, 1);
			assert.equal(output[0].json.error, undefined);
			assert.equal(sandbox.state.messages.length, before + 1);
			assert.deepEqual(
				sandbox.log
					.filter((e) => e.method === 'POST' && e.path.includes('/send/'))
					.map((e) => e.status),
				[201],
			);
		});
	});
});
