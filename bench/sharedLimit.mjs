// N processes behind one IP share the API's limit (queue-mode workers, or several n8n
// instances): each is a plain Node process running the package's transport at default settings
// (see sharedLimitProcess.mjs), with adaptive pacing or with the rate fixed at Requests per Minute.
// The sandbox counts refused requests against its window, as many APIs do. The API's minute is
// scaled down to 2 s on both sides (the limit stays 100 per window).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { startSandbox } from '../sandbox/server.mjs';

const PROCESS_SCRIPT = fileURLToPath(new URL('./sharedLimitProcess.mjs', import.meta.url));

/** Starts one process; it asks for sends from the shared queue until it is empty. */
function startProcess(options, takeNext) {
	const child = fork(PROCESS_SCRIPT, [JSON.stringify(options)], {
		execArgv: ['--import', 'tsx'],
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	return new Promise((resolve, reject) => {
		let result;
		child.on('message', (message) => {
			if (message.ask !== undefined) child.send({ ask: message.ask, index: takeNext() });
			else result = message;
		});
		child.on('error', reject);
		child.on('exit', (code) =>
			code === 0 && result ? resolve(result) : reject(new Error(`process exited with ${code}`)),
		);
	});
}

/**
 * Completed requests per window / limit: accepted sends in the full windows from the first one
 * on, per window (the last, partial window is left out), so a burst at the start is no credit
 * and a slow tail counts against it.
 */
function perWindowShare(acceptedTimes, windowMs, limit) {
	const first = acceptedTimes[0];
	const windows = Math.floor((acceptedTimes.at(-1) - first) / windowMs);
	const inFull = acceptedTimes.filter((t) => t < first + windows * windowMs).length;
	return inFull / windows / limit;
}

export async function measureSharedLimit({
	processes,
	adaptive,
	requests = 1000,
	limit = 100,
	windowMs = 2000,
	lanes = 10,
}) {
	const sandbox = await startSandbox({
		port: 0,
		rateLimitPerMinute: limit,
		rateWindowMs: windowMs,
		countRefusedRequests: true,
		tokenRateLimitPerMinute: 0,
	});
	try {
		const chatId = sandbox.state.chats.find((c) => c.status === 'open').id;
		let next = 0;
		const takeNext = () => (next < requests ? next++ : null);
		const options = { url: sandbox.url, windowMs, adaptive, lanes, chatId };
		const results = await Promise.all(
			Array.from({ length: processes }, () => startProcess(options, takeNext)),
		);
		const sends = sandbox.log.filter((e) => e.path.endsWith('/send/location'));
		const accepted = sends.filter((e) => e.status === 200).map((e) => Date.parse(e.at));
		const names = sandbox.state.messages
			.map((m) => m.content?.name)
			.filter((name) => typeof name === 'string' && name.startsWith('send '));
		return {
			perWindow: perWindowShare(
				accepted.sort((a, b) => a - b),
				windowMs,
				limit,
			),
			refusedShare: sends.filter((e) => e.status === 429).length / sends.length,
			lost: results.reduce((sum, r) => sum + r.failed, 0),
			duplicated: names.length - new Set(names).size,
			seconds: (accepted.at(-1) - accepted[0]) / 1000,
		};
	} finally {
		await sandbox.close();
	}
}
