// tools/n8nRest.mjs: requests that change what an n8n stores go one at a time, whichever test
// process sends them (n8n 1.x on SQLite fails overlapping transactions); reads are not held up.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';

import { n8nRestApi, runManually } from '../../../tools/n8nRest.mjs';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('the REST API of a shared n8n', () => {
	let server;
	let baseUrl;
	const now = { writes: 0, all: 0 };
	const most = { writes: 0, all: 0 };
	let resets = 0;
	before(async () => {
		server = createServer((req, res) => {
			if (resets > 0) {
				resets--;
				req.socket.destroy();
				return;
			}
			const write = req.method !== 'GET';
			now.all++;
			if (write) now.writes++;
			most.all = Math.max(most.all, now.all);
			most.writes = Math.max(most.writes, now.writes);
			setTimeout(() => {
				now.all--;
				if (write) now.writes--;
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ data: { method: req.method } }));
			}, 40);
		});
		await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
		baseUrl = `http://127.0.0.1:${server.address().port}`;
	});
	after(() => new Promise((resolve) => server.close(resolve)));

	it('writes one at a time across sessions (as test processes have), reads beside them', async () => {
		const sessions = [1, 2, 3].map(() => n8nRestApi({ baseUrl, cookie: 'c', n8nDir: root }));
		const answers = await Promise.all([
			...sessions.flatMap((api) => [
				api.rest('POST', '/rest/workflows', { name: 'w' }),
				api.rest('DELETE', '/rest/credentials/1'),
			]),
			...sessions.map((api) => api.rest('GET', '/rest/executions')),
		]);
		assert.equal(answers.length, 9);
		assert.equal(most.writes, 1, 'never two writes at once');
		assert.ok(most.all > 1, 'reads go beside the writes');
	});

	it('a read whose connection is reset is sent again once; a second reset fails it', async () => {
		const api = n8nRestApi({ baseUrl, cookie: 'c', n8nDir: root });
		resets = 1;
		assert.deepEqual(await api.rest('GET', '/rest/executions'), { method: 'GET' });
		resets = 2;
		await assert.rejects(api.rest('GET', '/rest/executions'), /fetch failed/);
		resets = 0;
	});
});

describe('a manual run', () => {
	let server;
	let baseUrl;
	/** What GET /rest/executions/7 answers, one entry a read (the last one repeats). */
	let reads = [];
	let readCount = 0;
	before(async () => {
		server = createServer((req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			if (req.method === 'POST') return res.end(JSON.stringify({ data: { executionId: '7' } }));
			const answer = reads[Math.min(readCount++, reads.length - 1)];
			res.end(JSON.stringify({ data: answer }));
		});
		await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
		baseUrl = `http://127.0.0.1:${server.address().port}`;
	});
	after(() => new Promise((resolve) => server.close(resolve)));
	const session = () => ({ baseUrl, cookie: 'c', n8nDir: root });
	const runData = { 'Voice AI': [{ data: { main: [[{ json: { id: 'c1' } }]] } }] };

	it('waits for the run data of an execution stored as ended before its run data (n8n 1.x)', async () => {
		readCount = 0;
		reads = [
			{ id: '7', finished: false, status: 'running' },
			{ id: '7', finished: true, status: 'success' },
			{ id: '7', finished: true, status: 'success', data: { resultData: { runData } } },
		];
		const { execution, runData: read } = await runManually(session(), 'w', 'Manual Trigger');
		assert.equal(execution.status, 'success');
		assert.deepEqual(read, runData);
		assert.equal(readCount, 3);
	});

	it('returns a failed execution with its error at once', async () => {
		readCount = 0;
		const error = { message: 'Forbidden' };
		reads = [
			{ id: '7', finished: false, status: 'error', data: { resultData: { runData: {}, error } } },
		];
		const result = await runManually(session(), 'w', 'Manual Trigger');
		assert.deepEqual(result.error, error);
		assert.equal(readCount, 1);
	});
});
