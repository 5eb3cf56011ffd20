// What the Messenger e2e files share: the Messenger node and its workflows (a file made in n8n,
// then Send Media File), a sandbox and n8n per binary data mode, and the checks of an upload.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import { DEMO_CLIENTS, TOKEN_PATH } from '../../../sandbox/server.mjs';
import {
	PACKAGE_NAME,
	assertExecutionSucceeded,
	chainWorkflow,
	defaultBinaryDataMode,
	executionError,
	nodeOutput,
	sandboxCredential,
	useSandboxAndN8n,
} from '../harness.mjs';

const MESSENGER_TYPE = `${PACKAGE_NAME}.messenger`;
const CREDENTIAL = { id: 'e2eMsgrCred0001', name: 'Messenger sandbox (e2e)' };
export const MEDIA_FILE_PATH = '/api/v1/messenger/messages/send/media-file';

export const sha256 = (buffer) => createHash('sha256').update(buffer).digest('hex');
export const unique = () => randomBytes(4).toString('hex');

/** A Messenger node using the test credential. */
export const messenger = (name, parameters, settings = {}) => ({
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
export function rawItems(result, nodeName) {
	const runData = result?.data?.resultData?.runData ?? result?.resultData?.runData ?? {};
	const runs = runData[nodeName];
	assert.ok(
		runs?.length,
		`node "${nodeName}" did not run; ran: ${Object.keys(runData)}; execution status ${result?.status}; error ${JSON.stringify(executionError(result))?.slice(0, 2000)}`,
	);
	return runs[runs.length - 1].data?.main?.[0] ?? [];
}

/** Every file below a folder (none when it does not exist). */
export function filesBelow(dir) {
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

/**
 * In the describe() it is called in: a sandbox of its own (`sandbox` options) with the test
 * credential in the n8n of `version` whose binary data mode is `binaryDataMode`: the shared one
 * when that is the line's default mode (or none is asked for), else one started with
 * N8N_DEFAULT_BINARY_DATA_MODE. Counts its executions (`run`) and filters the token requests out
 * of the sandbox's log (`apiLog`).
 * @param {string} version
 * @param {{ binaryDataMode?: 'default' | 'filesystem', sandbox?: Record<string, unknown> }} [options]
 */
export function messengerN8n(version, { binaryDataMode, sandbox } = {}) {
	const ownMode = binaryDataMode && binaryDataMode !== defaultBinaryDataMode(version);
	const held = useSandboxAndN8n({
		version,
		env: ownMode ? { N8N_DEFAULT_BINARY_DATA_MODE: binaryDataMode } : undefined,
		sandbox,
		credentials: (s) => [sandboxCredential(CREDENTIAL, s, DEMO_CLIENTS.full)],
	});
	let executions = 0;
	return {
		get sandbox() {
			return held.sandbox;
		},
		get n8n() {
			return held.n8n;
		},
		get executions() {
			return executions;
		},
		/** Executes an imported workflow; fails with n8n's output when the execution failed. */
		async run(workflowId) {
			executions++;
			return assertExecutionSucceeded(await held.n8n.execute(workflowId), held.n8n.log());
		},
		apiLog: () => held.sandbox.log.filter((entry) => entry.path !== TOKEN_PATH),
	};
}

/** Checks the Send Media File output against the one new upload in the sandbox. */
export function assertOneUpload(env, result, uploadsBefore, expected) {
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
export function base64UploadPlan(id, chat, { bytes, fileName, mimeType, caption, type }) {
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

export const openChats = (env) => env.sandbox.state.chats.filter((c) => c.status === 'open');
