// The sandbox's media files: served on its own origin with the token, on the storage origin with
// a signed link and never a token, in full or bare headers, until a test expires or deletes them.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';

import { DEMO_CLIENTS, startSandbox } from '../../sandbox/server.mjs';
import { CUSTOMER_MESSAGES_PATH } from '../../sandbox/server.mjs';

const sha = (bytes) => createHash('sha256').update(bytes).digest('hex');

describe('sandbox media files', () => {
	let sandbox;
	let token;
	before(async () => {
		sandbox = await startSandbox({ port: 0 });
		const { clientId, clientSecret } = DEMO_CLIENTS.messengerOnly;
		const answer = await fetch(`${sandbox.url}/api/v1/auth/token`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ client_id: clientId, client_secret: clientSecret }),
		});
		token = (await answer.json()).access_token;
	});
	after(() => sandbox.close());
	const bearer = () => ({ Authorization: `Bearer ${token}` });
	const send = (extra) =>
		sandbox.customerWrites({ chatId: sandbox.state.chats[0].id, ...extra }).items[0];

	it('a customer sends a file: its link on the own origin needs the token and gives the bytes', async () => {
		const bytes = Buffer.from('%PDF-1.7 invoice');
		const message = send({
			type: 'document',
			fileBase64: bytes.toString('base64'),
			fileName: 'Factura ñ.pdf',
		});
		assert.deepEqual(Object.keys(message.content).sort(), [
			'caption',
			'fileName',
			'mimeType',
			'size',
			'url',
		]);
		assert.equal(message.content.size, bytes.length);
		assert.equal((await fetch(message.content.url)).status, 401);
		const answer = await fetch(message.content.url, { headers: bearer() });
		assert.equal(answer.status, 200);
		assert.equal(answer.headers.get('content-type'), 'application/pdf');
		assert.match(
			answer.headers.get('content-disposition'),
			/filename\*=UTF-8''Factura%20%C3%B1\.pdf/,
		);
		assert.equal(sha(Buffer.from(await answer.arrayBuffer())), sha(bytes));
	});

	it("generated files have the size asked, the type's magic bytes and a stable hash", async () => {
		const message = send({ type: 'image', fileSize: 300_000 });
		const id = /med_\w+/.exec(message.content.url)[0];
		const bytes = Buffer.from(
			await (await fetch(message.content.url, { headers: bearer() })).arrayBuffer(),
		);
		assert.equal(bytes.length, 300_000);
		assert.deepEqual([...bytes.subarray(0, 3)], [0xff, 0xd8, 0xff]);
		assert.equal(sha(bytes), sandbox.mediaSha256(id));
	});

	it('storage links work without the token and refuse (and count) one that comes with it', async () => {
		sandbox.setOptions({ mediaLinks: 'storage' });
		const message = send({ type: 'audio' });
		sandbox.setOptions({ mediaLinks: 'own' });
		assert.ok(message.content.url.startsWith(sandbox.storage.url));
		assert.equal((await fetch(message.content.url)).status, 200);
		assert.equal(sandbox.storage.authorizationSeen, 0);
		assert.equal((await fetch(message.content.url, { headers: bearer() })).status, 400);
		assert.equal(sandbox.storage.authorizationSeen, 1);
		const forged = message.content.url.replace(/signature=\w+/, 'signature=0');
		assert.equal((await fetch(forged)).status, 403);
	});

	it('redirect: the own origin answers 302 to a signed storage link', async () => {
		sandbox.setOptions({ mediaLinks: 'redirect' });
		const message = send({ type: 'video' });
		const answer = await fetch(message.content.url, { headers: bearer(), redirect: 'manual' });
		sandbox.setOptions({ mediaLinks: 'own' });
		assert.equal(answer.status, 302);
		assert.ok(answer.headers.get('location').startsWith(`${sandbox.storage.url}/files/`));
	});

	it('bare headers: octet-stream, no length, no name', async () => {
		sandbox.setOptions({ mediaHeaders: 'bare' });
		const message = send({ type: 'document' });
		const answer = await fetch(message.content.url, { headers: bearer() });
		sandbox.setOptions({ mediaHeaders: 'full' });
		assert.equal(answer.headers.get('content-type'), 'application/octet-stream');
		assert.equal(answer.headers.get('content-length'), null);
		assert.equal(answer.headers.get('content-disposition'), null);
		assert.equal((await answer.arrayBuffer()).byteLength, message.content.size);
	});

	it('expired files answer 403 and deleted ones 404, on both origins', async () => {
		const own = send({ type: 'image' });
		sandbox.setOptions({ mediaLinks: 'storage' });
		const stored = send({ type: 'image' });
		sandbox.setOptions({ mediaLinks: 'own' });
		sandbox.expireMedia(/med_\w+/.exec(own.content.url)[0]);
		sandbox.deleteMedia(/med_\w+/.exec(stored.content.url)[0]);
		assert.equal((await fetch(own.content.url, { headers: bearer() })).status, 403);
		assert.equal((await fetch(stored.content.url)).status, 404);
	});

	it('the seed media messages link to files the sandbox serves, never outside the machine', () => {
		const media = sandbox.state.messages.filter(
			(m) => typeof m.content === 'object' && m.content.url,
		);
		assert.ok(media.length > 0);
		for (const m of media)
			assert.ok(
				m.content.url.startsWith(sandbox.url) || m.content.url.startsWith(sandbox.storage.url),
				m.content.url,
			);
	});

	it('the control endpoint refuses a bad file size', async () => {
		const answer = await fetch(`${sandbox.url}${CUSTOMER_MESSAGES_PATH}`, {
			method: 'POST',
			body: JSON.stringify({ type: 'image', fileSize: -1 }),
		});
		assert.equal(answer.status, 400);
	});
});
