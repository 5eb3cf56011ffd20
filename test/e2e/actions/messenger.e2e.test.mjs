// The packed package's Messenger node inside a real n8n (installed as a community package), against
// the sandbox: uploads of n8n binary data in each binary data mode, token renewal during an upload,
// contacts and broadcasts.
//
// Three n8n instances, each with its own sandbox (so token requests count per instance):
//   main       n8n's own binary data mode (no N8N_DEFAULT_BINARY_DATA_MODE; in 2.41.1 that is
//              `filesystem`), used by most tests;
//   filesystem N8N_DEFAULT_BINARY_DATA_MODE=filesystem, a 30 MiB file read from disk (streamed
//              from n8n's store; its sandbox takes uploads up to 64 MiB);
//   memory     N8N_DEFAULT_BINARY_DATA_MODE=default, the in-memory mode (binary data as base64
//              inside the item, n8n 1.x's default).
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';

import { DEMO_CLIENTS, TOKEN_PATH, startSandbox } from '../../../sandbox/server.mjs';
import {
	assertExecutionSucceeded,
	chainWorkflow,
	cleanupPack,
	createN8nInstance,
	nodeOutput,
	PACKAGE_NAME,
	packPackage,
	sandboxCredential,
	suiteOptions,
	manualTriggerNode,
} from '../harness.mjs';

// The n8n version (and `it`): run directly, DEFAULT_N8N_VERSION and every test, as always;
// test/e2e/actions/n8n1.e2e.test.mjs imports this file to run it on n8n 1.x (harness importSuite).
const { version: N8N_VERSION, title, it } = suiteOptions('Messenger node in a real n8n');

const MESSENGER_TYPE = `${PACKAGE_NAME}.messenger`;
const CREDENTIAL = { id: 'e2eMsgrCred0001', name: 'Messenger sandbox (e2e)' };
const MEDIA_FILE_PATH = '/api/v1/messenger/messages/send/media-file';
const BIG_FILE_BYTES = 30 * 1024 * 1024;

const sha256 = (buffer) => createHash('sha256').update(buffer).digest('hex');
const unique = () => randomBytes(4).toString('hex');

/** A Messenger node using the test credential. */
const messenger = (name, parameters, settings = {}) => ({
	name,
	type: MESSENGER_TYPE,
	typeVersion: 1,
	parameters,
	credentials: { voiceMessagingApi: { id: CREDENTIAL.id, name: CREDENTIAL.name } },
	...settings,
});

/** Edit Fields (Set) with one string field → Convert to File (base64 → binary field `data`). */
function base64FileNodes(base64, { fileName, mimeType }) {
	return [
		{
			name: 'Edit Fields',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			parameters: {
				mode: 'manual',
				assignments: {
					assignments: [{ id: 'fileBase64', name: 'fileBase64', value: base64, type: 'string' }],
				},
				options: {},
			},
		},
		{
			name: 'Convert to File',
			type: 'n8n-nodes-base.convertToFile',
			typeVersion: 1.1,
			parameters: {
				operation: 'toBinary',
				sourceProperty: 'fileBase64',
				binaryPropertyName: 'data',
				options: { fileName, mimeType },
			},
		},
	];
}

/** The raw output items (json and binary) of a node. */
function rawItems(result, nodeName) {
	const runs = (result?.data?.resultData?.runData ?? result?.resultData?.runData)?.[nodeName];
	assert.ok(runs?.length, `node "${nodeName}" did not run`);
	return runs[runs.length - 1].data?.main?.[0] ?? [];
}

/** Every file below a folder (none when it does not exist). */
function filesBelow(dir) {
	let entries;
	try {
		entries = readdirSync(dir, { withFileTypes: true });
	} catch {
		return [];
	}
	return entries.flatMap((entry) =>
		entry.isDirectory() ? filesBelow(join(dir, entry.name)) : [join(dir, entry.name)],
	);
}

/** An n8n instance with its own sandbox and the credential imported. */
async function setUp(tarball, extraEnv, sandboxOptions = {}) {
	const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', ...sandboxOptions });
	const n8n = await createN8nInstance({ tarball, extraEnv, version: N8N_VERSION });
	await n8n.importCredentials([sandboxCredential(CREDENTIAL, sandbox, DEMO_CLIENTS.full)]);
	let executions = 0;
	return {
		sandbox,
		n8n,
		get executions() {
			return executions;
		},
		/** Imports workflows in one n8n call (each import starts n8n: about 4 s). */
		async importWorkflows(workflows) {
			const file = join(n8n.userFolder, `workflows-${unique()}.json`);
			writeFileSync(file, JSON.stringify(workflows));
			await n8n.n8n(['import:workflow', `--input=${file}`]);
		},
		/** Executes an imported workflow; fails with n8n's stderr when the execution failed. */
		async run(workflowId) {
			executions++;
			return assertExecutionSucceeded(await n8n.execute(workflowId), n8n.log());
		},
		apiLog: () => sandbox.log.filter((entry) => entry.path !== TOKEN_PATH),
	};
}

/** Checks the Send Media File output against the one new upload in the sandbox. */
function assertOneUpload(env, result, uploadsBefore, expected) {
	const items = nodeOutput(result, 'Messenger');
	assert.equal(items.length, 1, JSON.stringify(items).slice(0, 2000));
	const message = items[0];
	const newUploads = env.sandbox.state.uploads.slice(uploadsBefore);
	assert.equal(newUploads.length, 1, `uploads: ${JSON.stringify(newUploads)}`);
	const upload = newUploads[0];
	assert.equal(upload.sha256, expected.sha256, 'the bytes that arrived are the bytes encoded');
	assert.equal(upload.size, expected.size);
	assert.equal(upload.fileName, expected.fileName);
	assert.equal(upload.mimeType, expected.mimeType);
	assert.equal(upload.chatId, expected.chatId);
	assert.equal(upload.caption ?? undefined, expected.caption);
	// The output is the message the API created for the upload.
	assert.equal(upload.messageId, message.id);
	assert.equal(message.chatId, expected.chatId);
	assert.equal(message.type, expected.type);
	assert.equal(message.status, 'sent');
	assert.equal(message.content?.fileName, expected.fileName);
	assert.equal(message.content?.mimeType, expected.mimeType);
	assert.equal(message.content?.size, expected.size);
	const stored = env.sandbox.state.messages.find((m) => m.id === message.id);
	assert.ok(stored, 'the message is in the sandbox');
	assert.deepEqual(message, JSON.parse(JSON.stringify(stored)));
	return { message, upload };
}

/** Manual Trigger → Edit Fields → Convert to File → Messenger (Send Media File), and what to expect. */
function base64UploadPlan(id, chat, { bytes, fileName, mimeType, caption, type }) {
	return {
		workflow: chainWorkflow(id, [
			...base64FileNodes(bytes.toString('base64'), { fileName, mimeType }),
			messenger('Messenger', {
				resource: 'message',
				operation: 'sendMediaFile',
				chatId: chat.id,
				binaryPropertyName: 'data',
				options: caption === undefined ? {} : { caption },
			}),
		]),
		bytes,
		expected: {
			sha256: sha256(bytes),
			size: bytes.length,
			fileName,
			mimeType,
			chatId: chat.id,
			caption,
			type,
		},
	};
}

const openChats = (env) => env.sandbox.state.chats.filter((c) => c.status === 'open');

describe(title, { timeout: 20 * 60_000 }, () => {
	/** @type {Awaited<ReturnType<typeof setUp>>} */ let main;
	/** @type {Awaited<ReturnType<typeof setUp>>} */ let filesystem;
	/** @type {Awaited<ReturnType<typeof setUp>>} */ let memory;
	let filesDir;
	/** Workflows (imported in `before`, one import per instance) and what they should do. */
	const plans = {};

	before(async () => {
		// Read/Write Files from Disk may only read below N8N_RESTRICT_FILE_ACCESS_TO (n8n 2.x
		// default: ~/.n8n-files), and never inside the n8n folder.
		filesDir = mkdtempSync(join(tmpdir(), 'voice-messaging-files-'));
		const tarball = await packPackage();
		[main, filesystem, memory] = await Promise.all([
			setUp(tarball, {}),
			setUp(
				tarball,
				{ N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem', N8N_RESTRICT_FILE_ACCESS_TO: filesDir },
				{ maxUploadBytes: 64 * 1024 * 1024 },
			),
			setUp(tarball, { N8N_DEFAULT_BINARY_DATA_MODE: 'default' }),
		]);

		plans.upload = base64UploadPlan('e2eMsgrUpload01', openChats(main)[0], {
			bytes: Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(4096)]),
			fileName: `invoice-${unique()}.pdf`,
			mimeType: 'application/pdf',
			caption: 'Your invoice',
			type: 'document',
		});

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
			const filePath = join(filesDir, fileName);
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

		{
			const suffix = unique();
			const digits = () => String(100 + Math.floor(Math.random() * 900));
			let phone;
			do phone = `+34 6${digits().slice(1)} ${digits()} ${digits()}`;
			while (main.sandbox.state.contacts.some((c) => c.phone === phone.replaceAll(' ', '')));
			const name = `E2E Contact ${suffix}`;
			plans.contact = {
				name,
				phone,
				normalized: phone.replaceAll(' ', ''),
				workflow: chainWorkflow('e2eMsgrContact1', [
					messenger('Create Contact', {
						resource: 'contact',
						operation: 'create',
						name,
						phone,
						options: {
							email: `e2e-${suffix}@example.com`,
							attributes: '{"plan": "silver", "vip": false}',
						},
					}),
					messenger('Update Attribute', {
						resource: 'contact',
						operation: 'updateAttribute',
						contactId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
						key: 'plan',
						valueType: 'text',
						value: 'gold',
						options: {},
					}),
					messenger('Search Contacts', {
						resource: 'contact',
						operation: 'search',
						customer: `contact ${suffix}`, // another case than the name: search ignores case
						returnAll: true,
						options: {},
					}),
				]),
			};
		}

		{
			const phones = ['+34 600 555 101', '+34600555102', '0034 600 555 103'];
			plans.broadcast = {
				normalized: ['+34600555101', '+34600555102', '+34600555103'],
				workflow: chainWorkflow('e2eMsgrBroadcst', [
					messenger('Send Broadcast', {
						resource: 'broadcast',
						operation: 'send',
						channel: 'whatsapp',
						recipientsInput: 'json',
						recipientsJson: JSON.stringify(
							phones.map((phone) => ({ phone, variables: { name: 'Lucia' } })),
						),
						messageContent: 'text',
						text: 'Your order has shipped',
						options: {},
					}),
					messenger('Get Status', {
						resource: 'broadcast',
						operation: 'getStatus',
						messageIds: '={{ $json.id }}',
					}),
				]),
			};
		}

		await Promise.all([
			main.importWorkflows([
				plans.upload.workflow,
				plans.contact.workflow,
				plans.broadcast.workflow,
			]),
			memory.importWorkflows([plans.memoryUpload.workflow]),
			filesystem.importWorkflows([plans.bigUpload.workflow]),
		]);
	});

	after(async () => {
		for (const env of [main, filesystem, memory]) {
			await env?.n8n.cleanup();
			await env?.sandbox.close();
		}
		if (filesDir) rmSync(filesDir, { recursive: true, force: true });
		cleanupPack();
	});

	it('Message → Send Media File sends binary data made in n8n (n8n’s default binary mode)', async (t) => {
		const uploadsBefore = main.sandbox.state.uploads.length;
		const result = await main.run(plans.upload.workflow.id);
		const [fileItem] = rawItems(result, 'Convert to File');
		t.diagnostic(
			`binary data in n8n's default mode: ${fileItem.binary.data.id ?? 'in memory (base64)'}`,
		);
		assertOneUpload(main, result, uploadsBefore, plans.upload.expected);
		assert.deepEqual(
			main.apiLog().map((entry) => [entry.method, entry.path, entry.status]),
			[['POST', MEDIA_FILE_PATH, 200]],
		);
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

	it('Contact → Create, Update Attribute, then Search finds it with the new value', async () => {
		const { workflow, name, normalized } = plans.contact;
		const contactsBefore = main.sandbox.state.contacts.length;
		const result = await main.run(workflow.id);

		const [created] = nodeOutput(result, 'Create Contact');
		assert.equal(created.name, name);
		assert.equal(created.phone, normalized, 'the phone is sent in E.164, without spaces');
		assert.deepEqual(created.attributes, { plan: 'silver', vip: false });

		const updated = nodeOutput(result, 'Update Attribute');
		assert.equal(updated.length, 1);
		assert.equal(updated[0].id, created.id);
		assert.deepEqual(updated[0].attributes, { plan: 'gold', vip: false });

		const found = nodeOutput(result, 'Search Contacts');
		assert.equal(found.length, 1, JSON.stringify(found));
		assert.equal(found[0].id, created.id);
		assert.equal(found[0].name, name);
		assert.equal(found[0].phone, normalized);
		assert.deepEqual(found[0].attributes, { plan: 'gold', vip: false });

		assert.equal(main.sandbox.state.contacts.length, contactsBefore + 1);
		const stored = main.sandbox.state.contacts.find((c) => c.id === created.id);
		assert.equal(stored?.phone, normalized);
		assert.equal(stored?.name, name);
		assert.deepEqual({ ...stored?.attributes }, { plan: 'gold', vip: false });
	});

	it('Broadcast → Send, then Get Status of the ids from the previous node', async () => {
		const { workflow, normalized } = plans.broadcast;
		const broadcastsBefore = main.sandbox.state.broadcastMessages.length;
		const result = await main.run(workflow.id);
		const sent = nodeOutput(result, 'Send Broadcast');
		assert.equal(sent.length, normalized.length, 'one item per recipient');
		assert.deepEqual(
			sent.map((m) => m.recipient),
			normalized,
		);
		const newMessages = main.sandbox.state.broadcastMessages.slice(broadcastsBefore);
		assert.deepEqual(
			sent.map((m) => m.id),
			newMessages.map((m) => m.id),
		);

		const statuses = nodeOutput(result, 'Get Status');
		assert.equal(statuses.length, normalized.length, 'one item per recipient');
		assert.deepEqual(
			statuses.map((m) => m.id),
			sent.map((m) => m.id),
		);
		for (const status of statuses) {
			const stored = main.sandbox.state.broadcastMessages.find((m) => m.id === status.id);
			assert.ok(status.status, `no status in ${JSON.stringify(status)}`);
			assert.equal(status.status, stored?.status);
			assert.equal(status.channel, 'whatsapp');
		}
		const gets = main
			.apiLog()
			.filter(
				(entry) =>
					entry.method === 'GET' && entry.path.startsWith('/api/v1/messenger/broadcast/messages/'),
			);
		assert.deepEqual(
			gets.map((entry) => [entry.path.split('/').pop(), entry.status]),
			sent.map((m) => [m.id, 200]),
		);
	});

	it('every execution so far on one instance shared ONE token', () => {
		assert.ok(main.executions >= 3, `only ${main.executions} executions ran`);
		assert.deepEqual(
			main.sandbox.tokenRequests().map((entry) => entry.status),
			[200],
		);
		assert.equal(main.sandbox.tokensIssued, 1);
		assert.deepEqual(
			main.apiLog().filter((entry) => entry.status === 401),
			[],
		);
		for (const other of [filesystem, memory]) {
			assert.deepEqual(
				other.sandbox.tokenRequests().map((entry) => entry.status),
				[200],
			);
		}
	});

	it('a token that expired just before the upload is renewed and the file sent once', async () => {
		main.sandbox.expireTokens();
		main.sandbox.clearLog();
		const uploadsBefore = main.sandbox.state.uploads.length;
		const messagesBefore = main.sandbox.state.messages.length;
		const result = await main.run(plans.upload.workflow.id);
		assertOneUpload(main, result, uploadsBefore, plans.upload.expected);
		assert.deepEqual(
			main.sandbox.log.map((entry) => [entry.method, entry.path, entry.status]),
			[
				['POST', MEDIA_FILE_PATH, 401],
				['POST', TOKEN_PATH, 200],
				['POST', MEDIA_FILE_PATH, 200],
			],
		);
		assert.equal(main.sandbox.state.messages.length, messagesBefore + 1, 'nothing sent twice');
		assert.equal(main.sandbox.tokensIssued, 2);
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
