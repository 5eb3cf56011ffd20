// shared/download.ts and fileTransport.ts: one download into n8n's binary data, streamed;
// redirects followed one request at a time (so each hop is authenticated for its own origin), a
// size limit that stops the transfer, and faults worded with the message they belong to.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';

import { downloadFile } from '../../../nodes/shared/download.ts';
import { MAX_REDIRECTS } from '../../../nodes/shared/fileTransport.ts';
import { retrySettings } from '../../../nodes/shared/transport.ts';
import {
	binaryStore,
	createExecuteContext,
	httpError,
	networkError,
	scriptedHttp,
} from '../../../tools/context.mjs';
import { UNPACED } from '../../support/unit.mjs';

const link = {
	messageId: 'msg_42',
	url: 'https://api.example.com/media/m1',
	fileName: 'scan.pdf',
	mimeType: 'application/pdf',
};
const MiB = 2 ** 20;
const sha = (bytes) => createHash('sha256').update(bytes).digest('hex');

/** A body that yields `bytes` in 64 KiB chunks and records how many bytes were read from it. */
function body(bytes) {
	const read = { bytes: 0 };
	const stream = Readable.from(
		(function* () {
			for (let at = 0; at < bytes.length; at += 65536) {
				read.bytes += Math.min(65536, bytes.length - at);
				yield bytes.subarray(at, at + 65536);
			}
		})(),
	);
	return { stream, read };
}

const answer = (bytes, headers = {}) => ({ body: body(bytes).stream, headers, statusCode: 200 });

function download(respond, { max = 10 * MiB, mode = 'filesystem' } = {}) {
	const { http, calls } = scriptedHttp(respond);
	const store = binaryStore(mode);
	const context = createExecuteContext({ params: {}, http, credentials: UNPACED, store });
	return { result: downloadFile(context, link, max), calls, store };
}

describe('a download', () => {
	for (const mode of ['filesystem', 'memory']) {
		it(`streams the bytes into n8n's binary data (${mode} mode), named from the answer`, async () => {
			const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 251));
			const { result, calls } = download(
				() =>
					answer(bytes, {
						'content-type': 'application/pdf',
						'content-disposition': 'attachment; filename="Factura 7.pdf"',
					}),
				{ mode },
			);
			const data = await result;
			assert.equal(sha(Buffer.from(data.data, 'base64')), sha(bytes));
			assert.equal(data.fileName, 'Factura 7.pdf');
			assert.equal(data.mimeType, 'application/pdf');
			assert.equal(calls.length, 1);
			assert.equal(calls[0].encoding, 'stream');
			assert.equal(calls[0].disableFollowRedirect, true);
			assert.equal(calls[0].returnFullResponse, true);
		});
	}

	it('resolves a relative link against the base URL', async () => {
		const { http, calls } = scriptedHttp(() => answer(Buffer.from('x')));
		const context = createExecuteContext({ params: {}, http, credentials: UNPACED });
		await downloadFile(context, { ...link, url: '/media/m2' }, MiB);
		assert.equal(calls[0].url, 'https://api.example.com/media/m2');
	});

	it('follows redirects one request each, relative ones too, up to the limit', async () => {
		const hops = ['https://storage.example.net/a?sig=1', '/b', 'https://cdn.example.org/c'];
		const { result, calls } = download((options, n) => {
			if (n <= hops.length)
				throw httpError(302, body(Buffer.alloc(0)).stream, { location: hops[n - 1] });
			return answer(Buffer.from('file'));
		});
		await result;
		assert.deepEqual(
			calls.map((c) => c.url),
			[link.url, hops[0], 'https://storage.example.net/b', hops[2]],
		);
	});

	it('as n8n 1.x answers: a redirect read from the answer (its failure keeps no headers), a 401 asked again failing so that n8n renews the token', async () => {
		/** n8n 1.x: answers as they come with ignoreHttpStatusErrors; else a failure without headers. */
		const n8n1 = (status, headers) => (options) => {
			if (options.ignoreHttpStatusErrors) {
				return { body: body(Buffer.alloc(0)).stream, headers, statusCode: status };
			}
			throw Object.assign(new Error(`Request failed with status code ${status}`), {
				httpCode: String(status),
			});
		};
		const storage = 'https://storage.example.net/a?sig=1';
		const { result, calls } = download((options, n) => {
			if (n === 1) return n8n1(401, {})(options);
			if (n === 2) return n8n1(302, { location: storage })(options);
			if (n === 3) return n8n1(302, { location: storage })(options);
			return answer(Buffer.from('file'));
		});
		assert.equal(Buffer.from((await result).data, 'base64').toString(), 'file');
		assert.deepEqual(
			calls.map((c) => [c.url, c.ignoreHttpStatusErrors]),
			[
				[link.url, true],
				[link.url, false],
				[link.url, true],
				[storage, true],
			],
		);
	});

	it(`stops after ${MAX_REDIRECTS} redirects, and at a redirect to another scheme`, async () => {
		const loop = download(() => {
			throw httpError(307, '', { location: 'https://storage.example.net/again' });
		});
		await assert.rejects(loop.result, /message msg_42 redirected more than 5 times/);
		assert.equal(loop.calls.length, MAX_REDIRECTS + 1);
		const ftp = download(() => {
			throw httpError(302, '', { location: 'file:///etc/passwd' });
		});
		await assert.rejects(ftp.result, /msg_42 redirected to an address that is not http\(s\)/);
		assert.equal(ftp.calls.length, 1);
	});

	for (const [status, words, reason] of [
		[404, /media of message msg_42 is gone \(HTTP 404\)/, 'gone'],
		[410, /media of message msg_42 is gone \(HTTP 410\)/, 'gone'],
		[403, /media link of message msg_42 has expired/, 'expired'],
		[400, /message msg_42 could not be downloaded: the server answered HTTP 400/, 'failed'],
	]) {
		it(`HTTP ${status} is an error naming the message (${reason})`, async () => {
			const { result, calls } = download(() => {
				throw httpError(status, { message: 'nope' });
			});
			await assert.rejects(result, (error) => words.test(error.message) && error.reason === reason);
			assert.equal(calls.length, 1, 'not asked again');
		});
	}

	it('a 5xx or a network error is tried again, as for any GET', async () => {
		const saved = { ...retrySettings };
		Object.assign(retrySettings, { baseDelayMs: 1, maxDelayMs: 2 });
		try {
			const { result, calls } = download((options, n) => {
				if (n === 1) throw httpError(503, 'busy');
				if (n === 2) throw networkError('ECONNRESET');
				return answer(Buffer.from('ok'));
			});
			assert.equal(Buffer.from((await result).data, 'base64').toString(), 'ok');
			assert.equal(calls.length, 3);
			const down = download(() => {
				throw networkError('ECONNREFUSED');
			});
			await assert.rejects(
				down.result,
				/msg_42 could not be downloaded: the connection was refused/,
			);
		} finally {
			Object.assign(retrySettings, saved);
		}
	});

	it('refuses a file whose Content-Length passes Max File Size without reading it', async () => {
		const big = body(Buffer.alloc(2 * MiB));
		const { result } = download(
			() => ({ body: big.stream, headers: { 'content-length': String(2 * MiB) }, statusCode: 200 }),
			{ max: MiB },
		);
		await assert.rejects(
			result,
			(error) =>
				/larger than the Max File Size \(1 MiB\)/.test(error.message) &&
				/2 MiB/.test(error.description),
		);
		assert.equal(big.read.bytes, 0);
	});

	for (const mode of ['filesystem', 'memory']) {
		it(`stops a transfer without a length once it passes Max File Size (${mode} mode)`, async () => {
			const big = body(Buffer.alloc(8 * MiB));
			const { result } = download(() => ({ body: big.stream, headers: {}, statusCode: 200 }), {
				max: MiB,
				mode,
			});
			await assert.rejects(
				result,
				(error) => error.reason === 'tooLarge' && /msg_42/.test(error.message),
			);
			assert.ok(big.read.bytes < 2 * MiB, `read ${big.read.bytes} bytes of 8 MiB`);
		});
	}

	it('a transfer that breaks off is an error naming the message', async () => {
		const broken = new Readable({
			read() {
				this.push(Buffer.alloc(1000));
				this.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
			},
		});
		const { result } = download(() => ({ body: broken, headers: {}, statusCode: 200 }));
		await assert.rejects(result, /message msg_42 could not be downloaded: the transfer broke off/);
	});
});
