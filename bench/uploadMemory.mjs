// Peak memory of Send Media File for one large file, as a multiple of the file's size.
// Runs the Messenger node in this process against a sandbox in another process over loopback.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

import { Messenger } from '../nodes/Messenger/Messenger.node.ts';
import { DEMO_CLIENTS } from '../sandbox/server.mjs';
import { binaryItem } from '../tools/binary.mjs';
import { sandboxRunner } from '../tools/sandboxRun.mjs';

export async function startSandboxProcess(options = {}) {
	const child = spawn(
		process.execPath,
		[fileURLToPath(new URL('./sandbox-process.mjs', import.meta.url)), JSON.stringify(options)],
		{
			stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
		},
	);
	const [line] = await once(child.stdout, 'data');
	const { url } = JSON.parse(String(line).trim().split('\n')[0]);
	return {
		url,
		async close() {
			child.kill('SIGTERM');
			await once(child, 'exit');
		},
	};
}

/** The id of an open chat of a sandbox running in another process (found over the API). */
export async function openChat(url) {
	const { access_token: token } = await fetch(`${url}/api/v1/auth/token`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({
			client_id: DEMO_CLIENTS.full.clientId,
			client_secret: DEMO_CLIENTS.full.clientSecret,
		}),
	}).then((r) => r.json());
	return await findChat(url, token);
}

/**
 * Send Media File of binary data held in memory (n8n 1.x's default mode, a Code node's output):
 * the item carries the file as base64, as n8n keeps it; the node decodes it once and sends that.
 */
export async function measureUploadMemory(sizeBytes = 20 * 1024 * 1024) {
	if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
	const server = await startSandboxProcess({ rateLimitPerMinute: 0 });
	try {
		const runner = sandboxRunner(Messenger, { url: server.url }, DEMO_CLIENTS.full);
		const firstChat = await openChat(server.url);
		const params = (id) => ({
			resource: 'message',
			operation: 'sendMediaFile',
			chatId: id,
			binaryPropertyName: 'data',
			options: {},
		});
		const item = (data) => [
			binaryItem(data, { mimeType: 'application/pdf', fileName: 'report.pdf' }),
		];
		// Warm up with a file of the same size (token, code paths, sockets, the allocator's
		// one-time growth), then measure a second upload. The item (its base64) exists before the
		// baseline is taken: it is the input, not the upload's cost.
		await runner.run(params(firstChat), { items: item(randomBytes(sizeBytes)) });
		const items = item(randomBytes(sizeBytes));

		globalThis.gc();
		const before = process.memoryUsage();
		let peakArrayBuffers = before.arrayBuffers;
		let peakRss = before.rss;
		const sampler = setInterval(() => {
			const now = process.memoryUsage();
			peakArrayBuffers = Math.max(peakArrayBuffers, now.arrayBuffers);
			peakRss = Math.max(peakRss, now.rss);
		}, 1);
		const [output] = await runner.run(params(firstChat), { items });
		clearInterval(sampler);
		const after = process.memoryUsage();
		peakArrayBuffers = Math.max(peakArrayBuffers, after.arrayBuffers);
		peakRss = Math.max(peakRss, after.rss);
		if (output?.json?.content?.size !== sizeBytes) {
			throw new Error(`upload failed: ${JSON.stringify(output).slice(0, 500)}`);
		}
		return {
			sizeBytes,
			peakBufferRatio: (peakArrayBuffers - before.arrayBuffers) / sizeBytes,
			peakRssRatio: (peakRss - before.rss) / sizeBytes,
		};
	} finally {
		await server.close();
	}
}

async function findChat(url, token) {
	const response = await fetch(`${url}/api/v1/messenger/contacts/search/a`, {
		headers: { Authorization: `Bearer ${token}` },
	});
	const contacts = await response.json();
	for (const contact of contacts) {
		const check = await fetch(
			`${url}/api/v1/messenger/chats/check-existing?phone=${encodeURIComponent(contact.phone)}`,
			{
				headers: { Authorization: `Bearer ${token}` },
			},
		).then((r) => r.json());
		if (check.exists) return check.chatId;
	}
	throw new Error('no open chat in the sandbox seed');
}
