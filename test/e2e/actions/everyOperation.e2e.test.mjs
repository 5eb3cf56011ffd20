// Every operation of both nodes, at least once, inside a real n8n (DEFAULT_N8N_VERSION, the run's
// shared one: test/support/n8n.mjs) with the packed package installed as a community package,
// against the sandbox: manual runs, as the editor's "Execute workflow" button makes them, of two
// workflows with many nodes (test/e2e/actions/everyOperation.workflows.mjs), one with all 8 Voice
// AI operations, one with all 18 Messenger operations. Outputs are checked against the sandbox's
// state and request log; afterwards every one of the API's 26 endpoints (token endpoint aside) must
// have answered 2xx, and no request may have failed. (Message → Send and Wait for Response pauses
// the execution until a person answers: test/e2e/humanReview/ runs it, on both n8n lines.)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, describe, it } from 'node:test';

import { matchRoute } from '../../../sandbox/api.mjs';
import { DEMO_CLIENTS, ENDPOINTS, TOKEN_PATH } from '../../../sandbox/server.mjs';
import { apiCall } from '../../support/sandboxApi.mjs';
import { CRED, credentialsFor, plain, runSuffix } from '../../support/everyOperation.mjs';
import { assertExecutionSucceeded, nodeOutput, useSandboxAndN8n } from '../harness.mjs';
import { WF, messengerWorkflow, voiceWorkflow } from './everyOperation.workflows.mjs';

const sha256 = (buffer) => createHash('sha256').update(buffer).digest('hex');

/** `METHOD /path/{param}` of the endpoint a logged request went to, or undefined. */
function endpointOf(entry) {
	if (entry.path === TOKEN_PATH) return `POST ${TOKEN_PATH}`;
	let segments;
	try {
		segments = entry.path
			.replace(/(.)\/$/, '$1')
			.split('/')
			.slice(1)
			.map((segment) => decodeURIComponent(segment));
	} catch {
		return undefined;
	}
	const { route } = matchRoute(entry.method, segments);
	if (!route) return undefined;
	const template = route.segments.map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s));
	return `${route.method} /${template.join('/')}`;
}

describe('every operation in a real n8n', { timeout: 8 * 60_000 }, () => {
	const e2e = useSandboxAndN8n({ credentials: credentialsFor });
	/** e2e's, once its before() has run. */
	let sandbox, n8n;
	/** What each workflow is expected to do (picked from the seed). */
	const plan = {};
	/** Run data of the two workflows. */
	const results = {};

	/** Executes a workflow; fails with n8n's output when it failed. */
	async function execute(workflowId) {
		return assertExecutionSucceeded(await n8n.execute(workflowId), n8n.log());
	}

	before(async () => {
		({ sandbox, n8n } = e2e);
		await n8n.importWorkflows([
			voiceWorkflow(sandbox.state, plan),
			messengerWorkflow(sandbox.state, plan, runSuffix()),
		]);
	});

	it('Voice AI: all 8 operations in one workflow', async (t) => {
		const started = Date.now();
		results.voice = await execute(WF.voice);
		t.diagnostic(`the run took ${Date.now() - started} ms`);
		const state = sandbox.state;
		const result = results.voice;

		// Agent → Get Many (Limit 3, oldest first), then Agent → Get once per item.
		const agents = nodeOutput(result, 'Get Many Agents');
		assert.deepEqual(agents, plain(state.agents.slice(0, 3)));
		assert.deepEqual(nodeOutput(result, 'Get Agent'), agents);
		const agentLists = sandbox.log.filter((e) => e.path === '/api/v1/voice/agents');
		assert.deepEqual(
			agentLists.map((e) => [e.query.sort, e.query.page, e.status]),
			[['asc', '1', 200]],
		);
		assert.deepEqual(
			sandbox.log
				.filter((e) => e.path.startsWith('/api/v1/voice/agents/'))
				.map((e) => e.path.split('/').pop()),
			agents.map((a) => a.id),
		);

		// Campaign → Get Many, status filter, Return All: newest first.
		const completed = nodeOutput(result, 'Get Completed Campaigns');
		const expectedCompleted = state.campaigns.filter((c) => c.status === 'completed').reverse();
		assert.ok(expectedCompleted.length >= 2, 'the seed has completed campaigns');
		assert.deepEqual(completed, plain(expectedCompleted));
		assert.ok(
			sandbox.log.some(
				(e) => e.path === '/api/v1/voice/campaigns' && e.query.status === 'completed',
			),
		);

		// Campaign → Get Data (Execute Once): the records of the first completed campaign only.
		const records = nodeOutput(result, 'Get Campaign Data');
		const expectedRecords = plain(state.campaignData.get(completed[0].id));
		assert.ok(expectedRecords.length > 0);
		assert.deepEqual(records, expectedRecords);
		assert.ok(
			records.every((r) => r.status !== 'pending'),
			'a completed campaign has no pending calls',
		);
		assert.deepEqual(
			[...new Set(sandbox.log.filter((e) => e.path.endsWith('/data')).map((e) => e.path))],
			[`/api/v1/voice/campaigns/${completed[0].id}/data`],
		);

		// Campaign → Get with the "From List" mode.
		assert.deepEqual(nodeOutput(result, 'Get Campaign'), [plain(plan.listedCampaign)]);

		// Campaign → Cancel.
		const [cancelled] = nodeOutput(result, 'Cancel Campaign');
		assert.equal(cancelled.id, plan.cancelled.id);
		assert.equal(cancelled.status, 'cancelled');
		assert.equal(state.campaigns.find((c) => c.id === plan.cancelled.id)?.status, 'cancelled');

		// Billing → Get Balance.
		const { credit, currency, minutes, ratePerMinute } = state.balance;
		assert.deepEqual(nodeOutput(result, 'Get Balance'), [
			{ credit, currency, minutes, ratePerMinute },
		]);

		// Report → Get Call Trends: one item per week; what the API answers for the same query.
		const trends = nodeOutput(result, 'Get Call Trends');
		const trendRequests = sandbox.log.filter((e) => e.path === '/api/v1/voice/reports/trends');
		assert.deepEqual(
			trendRequests.map((e) => e.query),
			[plan.trends],
		);
		assert.deepEqual(
			trends.map((p) => p.period),
			['2025-04-28', '2025-05-05', '2025-05-12', '2025-05-19', '2025-05-26'],
		);
		const reference = await apiCall(
			sandbox,
			DEMO_CLIENTS.voiceOnly,
			'GET',
			`/api/v1/voice/reports/trends?${new URLSearchParams(plan.trends)}`,
		);
		assert.deepEqual(trends, reference.items);
	});

	it('Messenger: all 18 operations in one workflow', async (t) => {
		const started = Date.now();
		const messagesBefore = sandbox.state.messages.length;
		results.messenger = await execute(WF.messenger);
		t.diagnostic(`the run took ${Date.now() - started} ms`);
		const state = sandbox.state;
		const result = results.messenger;
		const stored = (id) => plain(state.messages.find((m) => m.id === id));

		// WhatsApp Number → Get Many.
		assert.deepEqual(nodeOutput(result, 'Get WhatsApp Numbers'), plain(state.whatsappNumbers));

		// Chat → Check Existing, Get Messages (oldest first), Mark Important (Execute Once, off).
		assert.deepEqual(nodeOutput(result, 'Check Existing'), [
			{ exists: true, chatId: plan.checkedChat.id },
		]);
		assert.deepEqual(
			sandbox.log
				.filter((e) => e.path === '/api/v1/messenger/chats/check-existing')
				.map((e) => e.query.phone),
			[plan.checkedChat.phone],
		);
		const history = state.messages
			.filter((m) => m.chatId === plan.checkedChat.id)
			.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
		assert.ok(history.length >= 3);
		assert.deepEqual(nodeOutput(result, 'Get Messages'), plain(history));
		const marked = nodeOutput(result, 'Mark Important');
		assert.equal(marked.length, 1, 'Execute Once: one request for all the messages');
		assert.equal(marked[0].id, plan.checkedChat.id);
		assert.equal(marked[0].important, false);
		assert.equal(state.chats.find((c) => c.id === plan.checkedChat.id)?.important, false);

		// Chat → Reopen.
		const [reopened] = nodeOutput(result, 'Reopen Chat');
		assert.equal(reopened.id, plan.closedChat.id);
		assert.equal(reopened.status, 'open');
		assert.equal(state.chats.find((c) => c.id === plan.closedChat.id)?.status, 'open');

		// Message → Download Media: the message, its file in the binary field `data`.
		const [downloaded] = nodeOutput(result, 'Download Media');
		assert.deepEqual([downloaded.id, downloaded.binaryProperty], [plan.mediaMessage.id, 'data']);

		// Message → Send Media by URL, then Get of the id from the previous node.
		const [media] = nodeOutput(result, 'Send Media by URL');
		assert.equal(media.chatId, plan.mediaChat.id);
		assert.equal(media.type, 'document');
		assert.deepEqual(media.content, {
			url: 'https://example.com/brochure.pdf',
			caption: 'The brochure',
			fileName: 'brochure.pdf',
		});
		assert.deepEqual(media, stored(media.id));
		assert.deepEqual(nodeOutput(result, 'Get Message'), [stored(media.id)]);

		// Message → Send Media to Phone: a phone without a chat gets a new one.
		const [toPhone] = nodeOutput(result, 'Send Media to Phone');
		const newChat = state.chats.find((c) => c.phone === plan.newPhone);
		assert.ok(newChat, 'a chat was opened for the phone');
		assert.equal(newChat.status, 'open');
		assert.equal(toPhone.chatId, newChat.id);
		assert.equal(toPhone.type, 'image');
		assert.deepEqual(toPhone.content, { url: 'https://example.com/photo.jpg', caption: 'A photo' });
		assert.deepEqual(toPhone, stored(toPhone.id));

		// Message → Send Location.
		const [location] = nodeOutput(result, 'Send Location');
		assert.equal(location.chatId, plan.locationChat.id);
		assert.equal(location.type, 'location');
		assert.deepEqual(location.content, {
			latitude: 40.4168,
			longitude: -3.7038,
			name: 'Office',
			address: 'Puerta del Sol, Madrid',
		});
		assert.deepEqual(location, stored(location.id));

		// Message → Remove Reaction.
		assert.deepEqual(nodeOutput(result, 'Remove Reaction'), [{ success: true }]);
		assert.equal(state.messages.find((m) => m.id === plan.reacted.id)?.reaction, null);

		// Message → Send Media File: the bytes made in n8n arrive unchanged.
		const [fileMessage] = nodeOutput(result, 'Send Media File');
		const upload = state.uploads.find((u) => u.messageId === fileMessage.id);
		assert.ok(upload, 'the upload is in the sandbox');
		assert.equal(upload.sha256, sha256(plan.file.bytes));
		assert.equal(upload.size, plan.file.bytes.length);
		assert.equal(upload.fileName, plan.file.fileName);
		assert.equal(upload.mimeType, plan.file.mimeType);
		assert.equal(upload.chatId, plan.fileChat.id);
		assert.equal(upload.caption, 'The file');
		assert.equal(fileMessage.type, 'image');
		assert.deepEqual(fileMessage, stored(fileMessage.id));
		assert.equal(state.messages.length, messagesBefore + 4, 'four sends, each once');

		// Contact → Create, Update Attribute (JSON value), Replace Attributes ("From List" mode with
		// a mapped id), Get, Search (another case than the name).
		const [created] = nodeOutput(result, 'Create Contact');
		assert.equal(created.name, plan.contact.name);
		assert.equal(created.phone, plan.contact.normalized);
		assert.equal(created.email, plan.contact.email);
		assert.deepEqual(created.attributes, { plan: 'silver' });
		const [updated] = nodeOutput(result, 'Update Attribute');
		assert.equal(updated.id, created.id);
		assert.deepEqual(updated.attributes, { plan: 'silver', score: { level: 2 } });
		const [replaced] = nodeOutput(result, 'Replace Attributes');
		assert.equal(replaced.id, created.id);
		assert.deepEqual(replaced.attributes, { city: 'Sevilla', vip: true });
		const storedContact = plain(state.contacts.find((c) => c.id === created.id));
		assert.deepEqual(nodeOutput(result, 'Get Contact'), [storedContact]);
		assert.deepEqual(nodeOutput(result, 'Search Contacts'), [storedContact]);

		// Broadcast → Send (email, recipients as rows, a template), then Get Status per message.
		const broadcast = nodeOutput(result, 'Send Broadcast');
		assert.deepEqual(
			broadcast.map((m) => [m.channel, m.recipient, m.status]),
			plan.broadcastEmails.map((email) => ['email', email, 'queued']),
		);
		const statuses = nodeOutput(result, 'Get Broadcast Status');
		assert.deepEqual(
			statuses,
			broadcast.map((m) => plain(state.broadcastMessages.find((b) => b.id === m.id))),
		);
	});

	it('the two workflows called each of the 26 endpoints with a 2xx answer, and nothing failed', () => {
		assert.ok(results.voice && results.messenger, 'both workflows ran');
		const endpoints = ENDPOINTS.filter((e) => e.path !== TOKEN_PATH).map(
			(e) => `${e.method} ${e.path}`,
		);
		assert.equal(endpoints.length, 26);
		const byN8n = sandbox.log.filter(
			(e) => e.clientId === CRED.full.client.clientId && e.path !== TOKEN_PATH,
		);
		const failed = byN8n.filter((e) => e.status < 200 || e.status >= 300);
		assert.deepEqual(failed, [], 'no request failed');
		const answered = new Set(byN8n.map(endpointOf));
		const missing = endpoints.filter((endpoint) => !answered.has(endpoint));
		assert.deepEqual(missing, [], `endpoints never called: ${missing.join(', ')}`);
		assert.equal(ENDPOINTS.filter((e) => e.scope === 'voicebot').length, 8);
		assert.equal(ENDPOINTS.filter((e) => e.scope === 'messenger').length, 18);
	});
});
