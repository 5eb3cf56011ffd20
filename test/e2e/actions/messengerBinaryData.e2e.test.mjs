// The packed package's Messenger node in each of n8n's binary data modes, each n8n with its own
// sandbox (so token requests count per n8n): in memory (N8N_DEFAULT_BINARY_DATA_MODE=default, n8n
// 1.x's default: binary data as base64 inside the item) and filesystem (2.x's default: a 30 MiB
// file read from disk and streamed from n8n's store; its sandbox takes uploads up to 64 MiB),
// and a token renewal during a streamed upload.
// Starts one n8n of its own: the binary data mode the line's shared n8n does not default to.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';

import { TOKEN_PATH } from '../../../sandbox/server.mjs';
import { chainWorkflow, suiteOptions } from '../harness.mjs';
import {
	MEDIA_FILE_PATH,
	assertOneUpload,
	base64UploadPlan,
	filesBelow,
	messenger,
	messengerN8n,
	openChats,
	rawItems,
	sha256,
	unique,
} from './messengerSupport.mjs';

// The n8n version (and `it`): run directly, DEFAULT_N8N_VERSION and every test, as always;
// test/e2e/actions/n8n1.e2e.test.mjs imports this file to run it on n8n 1.x (harness importSuite).
const {
	version: N8N_VERSION,
	title,
	it,
} = suiteOptions('Messenger node in each binary data mode of a real n8n');

const BIG_FILE_BYTES = 30 * 1024 * 1024;

describe(title, { timeout: 20 * 60_000 }, () => {
	const filesystem = messengerN8n(N8N_VERSION, {
		binaryDataMode: 'filesystem',
		sandbox: { maxUploadBytes: 64 * 1024 * 1024 },
	});
	const memory = messengerN8n(N8N_VERSION, { binaryDataMode: 'default' });
	/** Workflows (imported in `before`) and what they should do. */
	const plans = {};

	before(async () => {
		plans.memoryUpload = base64UploadPlan('e2eMsgrUpload02', openChats(memory)[1], {
			bytes: Buffer.concat([
				Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
				randomBytes(20_000),
			]),
			fileName: `photo-${unique()}.png`,
			mimeType: 'image/png',
			caption: undefined,
			type: 'image',
		});

		{
			const chat = openChats(filesystem)[2];
			const bytes = randomBytes(BIG_FILE_BYTES);
			const fileName = `clip-${unique()}.mp4`;
			// Read/Write Files from Disk may only read below the n8n's files folder
			// (N8N_RESTRICT_FILE_ACCESS_TO), never inside the n8n folder.
			const filePath = join(filesystem.n8n.filesDir, fileName);
			writeFileSync(filePath, bytes);
			const caption = 'The 30 MiB clip';
			plans.bigUpload = {
				workflow: chainWorkflow('e2eMsgrUpload03', [
					{
						name: 'Read File',
						type: 'n8n-nodes-base.readWriteFile',
						typeVersion: 1.1,
						parameters: { operation: 'read', fileSelector: filePath, options: {} },
					},
					// No File Name or MIME Type option: both come from the binary data (the name and
					// extension of the file on disk).
					messenger('Messenger', {
						resource: 'message',
						operation: 'sendMediaFile',
						chatId: chat.id,
						binaryPropertyName: 'data',
						options: { caption },
					}),
				]),
				bytes,
				filePath,
				expected: {
					sha256: sha256(bytes),
					size: BIG_FILE_BYTES,
					fileName,
					mimeType: 'video/mp4',
					chatId: chat.id,
					caption,
					type: 'video',
				},
			};
		}

		await memory.n8n.importWorkflows([plans.memoryUpload.workflow]);
		await filesystem.n8n.importWorkflows([plans.bigUpload.workflow]);
	});

	after(() => {
		if (plans.bigUpload) rmSync(plans.bigUpload.filePath, { force: true });
	});

	it('Send Media File in the in-memory binary mode (N8N_DEFAULT_BINARY_DATA_MODE=default)', async () => {
		const { workflow, bytes, expected } = plans.memoryUpload;
		const result = await memory.run(workflow.id);
		// The mode took effect: the binary data is inside the item, not a reference to storage.
		const [fileItem] = rawItems(result, 'Convert to File');
		assert.equal(fileItem.binary.data.id, undefined, JSON.stringify(fileItem.binary.data));
		assert.equal(fileItem.binary.data.data, bytes.toString('base64'));
		assertOneUpload(memory, result, 0, expected);
	});

	it('Send Media File of a 30 MiB file read from disk (N8N_DEFAULT_BINARY_DATA_MODE=filesystem)', async () => {
		const { workflow, bytes, expected } = plans.bigUpload;
		const n8nFolder = join(filesystem.n8n.userFolder, '.n8n');
		const filesBefore = new Set(filesBelow(n8nFolder));
		const result = await filesystem.run(workflow.id);
		// The mode took effect: the item holds a reference, the bytes are a file in the n8n folder.
		const [fileItem] = rawItems(result, 'Read File');
		assert.match(
			String(fileItem.binary.data.id),
			/^filesystem(-v2)?:/,
			JSON.stringify(fileItem.binary.data),
		);
		assert.equal(fileItem.binary.data.mimeType, 'video/mp4');
		const newFiles = filesBelow(n8nFolder).filter(
			(file) => !filesBefore.has(file) && statSync(file).size === BIG_FILE_BYTES,
		);
		assert.ok(
			newFiles.some((file) => sha256(readFileSync(file)) === expected.sha256),
			`no copy of the file in n8n's binary data folder; new files of that size: ${newFiles}`,
		);
		assert.equal(sha256(bytes), expected.sha256);
		assertOneUpload(filesystem, result, 0, expected);
	});

	it('every execution so far on each binary data mode’s n8n shared ONE token', () => {
		for (const other of [filesystem, memory]) {
			assert.deepEqual(
				other.sandbox.tokenRequests().map((entry) => entry.status),
				[200],
			);
		}
	});

	it('a token that expired just before a streamed upload (filesystem mode): one new token, the file read again and sent once', async () => {
		const { workflow, expected } = plans.bigUpload;
		filesystem.sandbox.expireTokens();
		filesystem.sandbox.clearLog();
		const uploadsBefore = filesystem.sandbox.state.uploads.length;
		const messagesBefore = filesystem.sandbox.state.messages.length;
		const result = await filesystem.run(workflow.id);
		const [fileItem] = rawItems(result, 'Read File');
		assert.match(String(fileItem.binary.data.id), /^filesystem(-v2)?:/, 'streamed from the store');
		assertOneUpload(filesystem, result, uploadsBefore, expected);
		assert.deepEqual(
			filesystem.sandbox.log.map((entry) => [entry.method, entry.path, entry.status]),
			[
				['POST', MEDIA_FILE_PATH, 401],
				['POST', TOKEN_PATH, 200],
				['POST', MEDIA_FILE_PATH, 200],
			],
		);
		assert.equal(filesystem.sandbox.state.messages.length, messagesBefore + 1);
		assert.equal(filesystem.sandbox.tokensIssued, 2);
	});
});
