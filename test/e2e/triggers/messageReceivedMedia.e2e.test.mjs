// Messenger Trigger, Message Received with Download Media, in an activated workflow of a real n8n
// with binary data in filesystem mode: a customer's photo, voice note and 30 MiB document reach the
// workflow byte for byte (n8n's Crypto node hashes what the workflow holds), links on the storage
// origin (signed, or reached by a redirect from the API) are fetched without the token, and a file
// that is gone (404) or expired (403) leaves `mediaError` on its message: the execution still ends,
// and the message is not reported again. On n8n 1.x (an n8n of its own): n8n1Media.e2e.test.mjs.
import assert from 'node:assert/strict';
import { describe } from 'node:test';

import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { isN8n1, sandboxCredential, sha256Node, suiteOptions, waitFor } from '../harness.mjs';
import { messageReceivedSteps, messageReceivedWorkflow, TRIGGER_NODE } from './messageReceived.mjs';
import { usePollingN8n } from './polling.mjs';

const { version, title, it } = suiteOptions(
	'Messenger Trigger, Message Received with Download Media, binary data in filesystem mode',
);

const WORKFLOW_ID = 'e2eMsgRecvMedia1';
const CREDENTIAL = { id: 'e2eMsgRecvMedCr1', name: 'Message Received media client (e2e)' };
const CLIENT = DEMO_CLIENTS.messengerOnly;
const BIG_FILE_BYTES = 30 * 2 ** 20;

/** The sandbox's file ID in a media link (own origin or storage). */
const fileIdOf = (message) => /med_\w+/.exec(message.content.url)[0];

describe(title, { timeout: 12 * 60_000 }, () => {
	let chat;
	const suite = usePollingN8n({
		version,
		// 2.x keeps binary data in files by default (the run's n8n); 1.x is started so.
		env: isN8n1(version) ? { N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem' } : undefined,
		credentials: (sandbox) => [sandboxCredential(CREDENTIAL, sandbox, CLIENT)],
		workflows: (sandbox, cronSecond) => {
			[chat] = sandbox.state.chats;
			return [
				messageReceivedWorkflow(WORKFLOW_ID, CREDENTIAL, chat.id, cronSecond, {
					options: { downloadMedia: true },
					then: sha256Node('Hash'),
				}),
			];
		},
	});
	const { baseline, pollCount, runsOfNextPoll, afterAPoll, assertNothingTwice, diagnostics } =
		messageReceivedSteps(suite, { workflowId: WORKFLOW_ID, client: CLIENT, watched: () => chat });
	/** What the customer sent in the first test, and the items the workflow got for them. */
	const sent = {};
	const got = new Map();

	/** A customer's message, its link as `mediaLinks` says when it is written. */
	function customerSends(mediaLinks, spec) {
		suite.sandbox.setOptions({ mediaLinks });
		return suite.sandbox.customerWrites({ chatId: chat.id, ...spec }).items[0];
	}

	it('a photo, a voice note and a 30 MiB document reach the workflow byte for byte; storage never sees the token', async () => {
		const { sandbox } = suite;
		await baseline();
		const polls = await afterAPoll();
		const storageBefore = sandbox.storage.log.length;
		const apiBefore = sandbox.log.length;
		// A signed storage link in the message; links to the API's origin that redirect to storage.
		sent.photo = customerSends('storage', { type: 'image', text: 'the damage' });
		sent.expired = customerSends('storage', { type: 'image', text: 'and another one' });
		sent.voice = customerSends('own', { type: 'audio', text: 'listen' });
		sent.document = customerSends('own', {
			type: 'document',
			fileSize: BIG_FILE_BYTES,
			fileName: 'contract signed.pdf',
			text: 'the contract',
		});
		sent.deleted = customerSends('own', { type: 'document', text: 'an old scan' });
		sandbox.setOptions({ mediaLinks: 'redirect' });
		sandbox.expireMedia(fileIdOf(sent.expired));
		sandbox.deleteMedia(fileIdOf(sent.deleted));

		// The poll downloads the files before it starts the execution: it comes when they are in.
		await waitFor(async () => (await suite.api.executionsOf(WORKFLOW_ID)).length > 0, {
			timeoutMs: 150_000,
			intervalMs: 1000,
			describe: () => `no execution${diagnostics()}`,
		});
		const runs = await runsOfNextPoll(polls);
		assert.equal(runs.length, 1, `one execution for the poll${diagnostics()}`);
		const [runData] = runs;
		const items = runData[TRIGGER_NODE].at(-1).data.main[0];
		const hashes = runData.Hash.at(-1).data.main[0].map((item) => item.json);
		items.forEach((item, i) => got.set(item.json.messageId, { ...item, hash: hashes[i] }));
		assert.deepEqual(
			[...got.keys()].sort(),
			Object.values(sent)
				.map((m) => m.id)
				.sort(),
		);

		for (const [name, mimeType] of [
			['photo', 'image/jpeg'],
			['voice', 'audio/ogg'],
			['document', 'application/pdf'],
		]) {
			const message = sent[name];
			const { json, binary, hash } = got.get(message.id);
			assert.equal(json.binaryProperty, 'data', name);
			assert.equal(json.mediaError, undefined, `${name}: ${JSON.stringify(json.mediaError)}`);
			assert.match(String(binary.data.id), /^filesystem(-v2)?:/, `${name} in n8n's file store`);
			assert.deepEqual(
				[binary.data.fileName, binary.data.mimeType],
				[message.content.fileName, mimeType],
			);
			assert.equal(hash.sha256, sandbox.mediaSha256(fileIdOf(message)), `${name}: same bytes`);
		}
		assert.equal(sent.document.content.size, BIG_FILE_BYTES);

		// Storage got every request without a token; the API's origin answered with redirects.
		assert.equal(sandbox.storage.authorizationSeen, 0);
		const storage = sandbox.storage.log.slice(storageBefore);
		assert.deepEqual(
			storage.map((e) => [e.path, e.status, e.authorization]).sort(),
			[
				[`/files/${fileIdOf(sent.photo)}`, 200, false],
				[`/files/${fileIdOf(sent.expired)}`, 403, false],
				[`/files/${fileIdOf(sent.voice)}`, 200, false],
				[`/files/${fileIdOf(sent.document)}`, 200, false],
			].sort(),
		);
		const media = sandbox.log.slice(apiBefore).filter((e) => e.path.startsWith('/media/'));
		assert.deepEqual(
			media.map((e) => [e.path, e.status, e.clientId]).sort(),
			[
				[`/media/${fileIdOf(sent.voice)}`, 302, CLIENT.clientId],
				[`/media/${fileIdOf(sent.document)}`, 302, CLIENT.clientId],
				[`/media/${fileIdOf(sent.deleted)}`, 404, CLIENT.clientId],
			].sort(),
		);
	});

	it('a file gone (404) or expired (403): its message comes once, with mediaError, and the execution ends', async () => {
		assert.ok(got.size, 'the first test ran');
		const expired = got.get(sent.expired.id).json;
		assert.equal(expired.binaryProperty, undefined);
		assert.match(expired.mediaError.message, new RegExp(`${sent.expired.id}.*HTTP 403`));
		const deleted = got.get(sent.deleted.id).json;
		assert.equal(deleted.binaryProperty, undefined);
		assert.match(
			deleted.mediaError.message,
			new RegExp(`${sent.deleted.id} is gone \\(HTTP 404\\)`),
		);
		assert.equal(deleted.text, 'an old scan');
		// The next poll starts nothing: the failed downloads are not tried or reported again.
		const polls = await afterAPoll();
		const storageBefore = suite.sandbox.storage.log.length;
		assert.deepEqual(await runsOfNextPoll(polls), []);
		assert.equal(suite.sandbox.storage.log.length, storageBefore);
		assert.ok(pollCount() > polls);
		assertNothingTwice();
		assert.doesNotMatch(suite.output(), /poll failed/);
	});
});
