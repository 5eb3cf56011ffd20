// One process of the shared-limit benchmark: the package's transport at default settings (no
// Requests per Minute set) running ten one-item executions at a time, as a queue-mode worker
// does, each taking the next send from the parent's queue, as workers take executions from Redis.
import { Messenger } from '../nodes/Messenger/Messenger.node.ts';
import { DEMO_CLIENTS } from '../sandbox/server.mjs';
import { pacingSettings } from '../tools/nodeShared.mjs';
import { sandboxRunner } from '../tools/sandboxRun.mjs';

const { url, windowMs, adaptive, lanes, chatId } = JSON.parse(process.argv[2]);
pacingSettings.windowMs = windowMs;
pacingSettings.adaptive = adaptive;

const messenger = sandboxRunner(Messenger, { url }, DEMO_CLIENTS.full);
const waiting = new Map();
let asked = 0;
process.on('message', ({ ask, index }) => {
	waiting.get(ask)?.(index);
	waiting.delete(ask);
});
/** The index of the next send in the shared queue, or null when it is empty. */
const nextSend = () =>
	new Promise((resolve) => {
		const ask = ++asked;
		waiting.set(ask, resolve);
		process.send({ ask });
	});

let failed = 0;
async function lane() {
	for (let index = await nextSend(); index !== null; index = await nextSend()) {
		const [item] = await messenger.run(
			{
				resource: 'message',
				operation: 'sendLocation',
				chatId,
				latitude: 40,
				longitude: -3,
				options: { name: `send ${index}` },
			},
			{ continueOnFail: true },
		);
		if (!item?.json?.id) failed++;
	}
}
await Promise.all(Array.from({ length: lanes }, lane));
process.send({ failed });
process.disconnect();
