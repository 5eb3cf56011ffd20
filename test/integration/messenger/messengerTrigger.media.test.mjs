// Messenger Trigger, Message Received with Download Media, Group by Chat and Wait for a Pause,
// against the sandbox over real HTTP: files as the customer sent them, a failed download that
// still starts the workflow (once), and a burst handed over once, across a restart.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';

import { MessengerTrigger } from '../../../nodes/Messenger/MessengerTrigger.node.ts';
import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { sandboxSuite, watcher } from '../../support/integration.mjs';

const sha = (base64) => createHash('sha256').update(Buffer.from(base64, 'base64')).digest('hex');
const fileIdOf = (message) => /(med_[0-9a-f]+)/.exec(message.content.url)[1];

/** A customer's message, each one a millisecond after the last (equal times are ordered by ID). */
let clock = Date.now();
const write = (sandbox, chatId, extra) =>
	sandbox.customerWrites({ chatId, createdAt: new Date(++clock).toISOString(), ...extra }).items[0];

const watch = (sandbox, chatId, options) =>
	watcher(
		MessengerTrigger,
		sandbox,
		{ event: 'messageReceived', direction: 'inbound', messageTypes: [], chats: chatId, options },
		{ client: DEMO_CLIENTS.messengerOnly, credentials: { requestsPerMinute: 0 } },
	);

describe('Messenger Trigger: Message Received with media, groups and pauses', () => {
	const env = sandboxSuite({
		rateLimitPerMinute: 0,
		tokenRateLimitPerMinute: 0,
		mediaLinks: 'redirect',
	});
	const chatOf = (index) => env.sandbox.state.chats[index].id;

	it('Download Media: each media message carries its file; a failed one its error, emitted once', async () => {
		const { sandbox } = env;
		const chatId = chatOf(3);
		const trigger = watch(sandbox, chatId, { downloadMedia: true });
		await trigger.poll(); // baseline
		const photo = write(sandbox, chatId, { type: 'image' });
		const text = write(sandbox, chatId, { text: 'see above' });
		const voice = write(sandbox, chatId, { type: 'audio' });
		sandbox.deleteMedia(fileIdOf(voice));
		const { items, binaries } = await trigger.poll();
		assert.deepEqual(
			items.map((i) => i.messageId),
			[photo.id, text.id, voice.id],
		);
		assert.equal(sha(binaries[0].data.data), sandbox.mediaSha256(fileIdOf(photo)));
		assert.equal(binaries[1], undefined);
		assert.equal(binaries[2], undefined);
		assert.match(items[2].mediaError.message, new RegExp(`media of message ${voice.id} is gone`));
		assert.equal(sandbox.storage.authorizationSeen, 0);
		assert.deepEqual(
			(await trigger.poll()).items,
			[],
			'nothing comes twice, the failed one neither',
		);
	});

	it('Group by Chat: one item per chat per poll, texts joined, files numbered', async () => {
		const { sandbox } = env;
		const [a, b] = [chatOf(4), chatOf(5)];
		const trigger = watch(sandbox, `${a}, ${b}`, { downloadMedia: true, groupByChat: true });
		await trigger.poll();
		const hi = write(sandbox, a, { text: 'hi' });
		const doc = write(sandbox, a, { type: 'document', text: 'my invoice' });
		const photo = write(sandbox, a, { type: 'image', text: 'and the receipt' });
		const other = write(sandbox, b, { text: 'hello' });
		const { items, binaries } = await trigger.poll();
		assert.equal(items.length, 2);
		const group = items.find((i) => i.chatId === a);
		assert.equal(group.text, 'hi\nmy invoice\nand the receipt');
		assert.deepEqual(group.messageIds, [hi.id, doc.id, photo.id]);
		assert.deepEqual(
			group.messages.map((m) => m.binaryProperty ?? null),
			[null, 'data', 'data_2'],
		);
		const files = binaries[items.indexOf(group)];
		assert.equal(sha(files.data.data), sandbox.mediaSha256(fileIdOf(doc)));
		assert.equal(sha(files.data_2.data), sandbox.mediaSha256(fileIdOf(photo)));
		assert.deepEqual(items.find((i) => i.chatId === b).messageIds, [other.id]);
	});

	it('Wait for a Pause: a burst is held across polls and a restart, then handed over once', async () => {
		const { sandbox } = env;
		const chatId = chatOf(6);
		const options = { groupByChat: true, waitForPause: 1 };
		const first = watch(sandbox, chatId, options);
		await first.poll();
		const burst = ['hi', 'I have a question', 'about my invoice'].map((text) =>
			write(sandbox, chatId, { text }),
		);
		assert.deepEqual((await first.poll()).items, [], 'held while the customer may still write');
		// n8n restarts: the state comes back from the database as JSON.
		const restarted = watch(sandbox, chatId, options);
		Object.assign(restarted.staticData, JSON.parse(JSON.stringify(first.staticData)));
		restarted.auth.store.data = first.auth.store.data;
		const late = write(sandbox, chatId, { text: 'thanks' });
		assert.deepEqual((await restarted.poll()).items, [], 'a new message starts the pause again');
		await new Promise((resolve) => setTimeout(resolve, 1100));
		const { items } = await restarted.poll();
		assert.equal(items.length, 1);
		assert.deepEqual(
			items[0].messageIds,
			[...burst, late].map((m) => m.id),
		);
		assert.equal(items[0].text, 'hi\nI have a question\nabout my invoice\nthanks');
		assert.deepEqual((await restarted.poll()).items, []);
		assert.equal(restarted.staticData.poll.state.held, undefined, 'nothing left held');
	});
});

describe('Messenger Trigger: a held message whose signed link expired', () => {
	const env = sandboxSuite({
		rateLimitPerMinute: 0,
		tokenRateLimitPerMinute: 0,
		mediaLinks: 'storage',
	});

	it('Wait for a Pause + Download Media: the message is read again for a fresh link, and its file comes', async () => {
		const { sandbox } = env;
		const chatId = sandbox.state.chats[4].id;
		const trigger = watch(sandbox, chatId, { downloadMedia: true, waitForPause: 1 });
		await trigger.poll();
		const photo = write(sandbox, chatId, { type: 'image' });
		assert.deepEqual((await trigger.poll()).items, [], 'held while the customer may still write');
		// The link the trigger holds stops working (signed links expire); a read gives a new one.
		sandbox.expireMediaLinks(fileIdOf(photo));
		await new Promise((resolve) => setTimeout(resolve, 1100));
		const storageBefore = sandbox.storage.log.length;
		const { items, binaries } = await trigger.poll();
		assert.deepEqual(
			items.map((i) => i.messageId),
			[photo.id],
		);
		assert.equal(items[0].mediaError, undefined, JSON.stringify(items[0].mediaError));
		assert.equal(sha(binaries[0].data.data), sandbox.mediaSha256(fileIdOf(photo)));
		assert.deepEqual(
			sandbox.storage.log.slice(storageBefore).map((e) => e.status),
			[403, 200],
			'the held link, then the fresh one',
		);
	});
});
