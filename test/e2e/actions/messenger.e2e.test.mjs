// The packed package's Messenger node inside a real n8n (installed as a community package), against
// the sandbox: Send Media File of binary data made in n8n in that n8n's own binary data mode,
// token renewal during an upload, contacts and broadcasts, all executions on one token.
// The other binary data modes: messengerBinaryData.e2e.test.mjs.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe } from 'node:test';

import { TOKEN_PATH } from '../../../sandbox/server.mjs';
import { byId, chainWorkflow, nodeOutput, suiteOptions } from '../harness.mjs';
import {
	MEDIA_FILE_PATH,
	assertOneUpload,
	base64UploadPlan,
	messenger,
	messengerN8n,
	openChats,
	rawItems,
	unique,
} from './messengerSupport.mjs';

// The n8n version (and `it`): run directly, DEFAULT_N8N_VERSION and every test, as always;
// test/e2e/actions/n8n1.e2e.test.mjs imports this file to run it on n8n 1.x (harness importSuite).
const { version: N8N_VERSION, title, it } = suiteOptions('Messenger node in a real n8n');

describe(title, { timeout: 20 * 60_000 }, () => {
	// n8n's own binary data mode (no N8N_DEFAULT_BINARY_DATA_MODE): `filesystem` on 2.x, in memory on 1.x.
	const main = messengerN8n(N8N_VERSION);
	/** Workflows (imported in `before`) and what they should do. */
	const plans = {};

	before(async () => {
		plans.upload = base64UploadPlan('e2eMsgrUpload01', openChats(main)[0], {
			bytes: Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(4096)]),
			fileName: `invoice-${unique()}.pdf`,
			mimeType: 'application/pdf',
			caption: 'Your invoice',
			type: 'document',
		});

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
						contactId: byId('={{ $json.id }}'),
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

		await main.n8n.importWorkflows([
			plans.upload.workflow,
			plans.contact.workflow,
			plans.broadcast.workflow,
		]);
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
});
