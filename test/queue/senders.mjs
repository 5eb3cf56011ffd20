// Which local process sent each request to a server of this test process: where n8n runs what in
// queue mode (the main instance's trigger, a worker's execution) shows in the process that holds
// the client end of each connection. Node publishes every request a server of this process
// receives on the diagnostics channel `http.server.request.start`; the client end of its
// connection is the row of /proc/net/tcp with the ports the other way round, and its owner the
// process whose /proc/<pid>/fd holds that socket (Linux, processes of the same user).
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/** The port of a hex `address:port` of /proc/net/tcp{,6}. @param {string} field */
const portOf = (field) => parseInt(field.slice(field.lastIndexOf(':') + 1), 16);

/** The TCP sockets of this machine's network namespace: ports, state (0A: listening), inode. */
function tcpSockets() {
	const sockets = [];
	for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
		let text = '';
		try {
			text = readFileSync(file, 'utf8');
		} catch {
			continue;
		}
		for (const line of text.split('\n').slice(1)) {
			const fields = line.trim().split(/\s+/);
			if (fields.length < 10) continue;
			sockets.push({
				localPort: portOf(fields[1]),
				remotePort: portOf(fields[2]),
				state: fields[3],
				inode: fields[9],
			});
		}
	}
	return sockets;
}

/** Whether process `pid` holds the socket `inode` open. @param {number | string} pid @param {string} inode */
function holds(pid, inode) {
	let fds;
	try {
		fds = readdirSync(`/proc/${pid}/fd`);
	} catch {
		return false;
	}
	const target = `socket:[${inode}]`;
	for (const fd of fds) {
		try {
			if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return true;
		} catch {
			// closed meanwhile
		}
	}
	return false;
}

/**
 * The process listening on TCP `port` (an n8n main instance's port, a worker's health port).
 * @param {number} port @returns {number}
 */
export function pidListeningOn(port) {
	const listener = tcpSockets().find(
		(socket) => socket.state === '0A' && socket.localPort === port && socket.inode !== '0',
	);
	if (!listener) throw new Error(`nothing listens on port ${port}`);
	for (const entry of readdirSync('/proc')) {
		if (/^\d+$/.test(entry) && holds(entry, listener.inode)) return Number(entry);
	}
	throw new Error(`no process of this user holds the listener on port ${port}`);
}

/**
 * The cluster's processes by name, for recordSenders: `main`, `worker 1`, `worker 2` … (each found
 * by the port it listens on) and `test`, this process.
 * @param {{ main: { baseUrl: string }, workers: { baseUrl: string }[] }} cluster
 * @returns {Record<string, number>}
 */
export function clusterProcesses(cluster) {
	const portOf = (baseUrl) => Number(new URL(baseUrl).port);
	return {
		main: pidListeningOn(portOf(cluster.main.baseUrl)),
		...Object.fromEntries(
			cluster.workers.map((worker, i) => [
				`worker ${i + 1}`,
				pidListeningOn(portOf(worker.baseUrl)),
			]),
		),
		test: process.pid,
	};
}

/**
 * @typedef {{ method: string, url: string, from: string, startedAt: number, endedAt: number | undefined }} SentRequest
 */

/**
 * Records each request that a server of this process listening on `port` receives from now on,
 * with the name (a key of `processes`) of the process that sent it, 'unknown' for any other, and
 * when it came and when its answer had been written. `stop()` ends the recording.
 * @param {number} port @param {Record<string, number>} processes name → pid
 */
export function recordSenders(port, processes) {
	/** @type {SentRequest[]} */
	const requests = [];
	/** Connections are kept alive: one look-up per connection. */
	const bySocket = new WeakMap();
	const byRequest = new WeakMap();
	/** @param {import('node:net').Socket} socket */
	const senderOf = (socket) => {
		if (!bySocket.has(socket)) {
			// The client end: its local port is this server socket's remote port, and the other way round.
			const client = tcpSockets().find(
				(entry) =>
					entry.localPort === socket.remotePort &&
					entry.remotePort === socket.localPort &&
					entry.inode !== '0',
			);
			const [name] =
				(client && Object.entries(processes).find(([, pid]) => holds(pid, client.inode))) ?? [];
			bySocket.set(socket, name ?? 'unknown');
		}
		return bySocket.get(socket);
	};
	const onStart = ({ request, socket }) => {
		if (socket.localPort !== port) return;
		const record = {
			method: String(request.method),
			url: String(request.url),
			from: senderOf(socket),
			startedAt: Date.now(),
			endedAt: undefined,
		};
		requests.push(record);
		byRequest.set(request, record);
	};
	const onFinish = ({ request }) => {
		const record = byRequest.get(request);
		if (record) record.endedAt = Date.now();
	};
	subscribe('http.server.request.start', onStart);
	subscribe('http.server.response.finish', onFinish);
	return {
		requests,
		stop() {
			unsubscribe('http.server.request.start', onStart);
			unsubscribe('http.server.response.finish', onFinish);
		},
	};
}
