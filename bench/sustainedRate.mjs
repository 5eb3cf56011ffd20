// Sustained send rate under the API's rate limit, with lost and duplicated items counted.
// The API's minute is scaled down to 10 s on both sides (the limit stays 100 per window), so
// the run finishes in about half a minute.
import { Messenger } from '../nodes/Messenger/Messenger.node.ts';
import { DEMO_CLIENTS, startSandbox } from '../sandbox/server.mjs';
import { pacingSettings, resetPacing } from '../tools/nodeShared.mjs';
import { sandboxRunner } from '../tools/sandboxRun.mjs';

export async function measureSustainedRate({ items = 400, limit = 100, windowMs = 10_000 } = {}) {
	pacingSettings.windowMs = windowMs;
	const sandbox = await startSandbox({
		port: 0,
		rateLimitPerMinute: limit,
		rateWindowMs: windowMs,
	});
	try {
		const chat = sandbox.state.chats.find((c) => c.status === 'open');
		const messenger = sandboxRunner(Messenger, sandbox, DEMO_CLIENTS.full, {
			requestsPerMinute: limit,
		});
		const before = sandbox.state.messages.length;
		const input = Array.from({ length: items }, (_, i) => ({ json: { i } }));
		const started = Date.now();
		const output = await messenger.run(
			(i) => ({
				resource: 'message',
				operation: 'sendLocation',
				chatId: chat.id,
				latitude: 40 + i / 1000,
				longitude: -3,
				options: {},
			}),
			{ items: input, continueOnFail: true },
		);
		const elapsed = Date.now() - started;
		const sends = sandbox.log.filter((e) => e.path.endsWith('/send/location'));
		const sentLatitudes = sandbox.state.messages.slice(before).map((m) => m.content?.latitude);
		// Under a sliding-window limit, n requests need at least (n / limit − 1) full windows.
		const ideal = (items / limit - 1) * windowMs;
		return {
			efficiency: ideal / elapsed,
			lost: items - output.filter((o) => o.json.id).length,
			duplicated: sentLatitudes.length - new Set(sentLatitudes).size,
			refused: sends.filter((e) => e.status === 429).length,
			elapsed,
		};
	} finally {
		pacingSettings.windowMs = 60_000;
		resetPacing();
		await sandbox.close();
	}
}
