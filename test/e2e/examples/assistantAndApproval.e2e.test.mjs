// The assistant and approval examples in examples/ in a real n8n (the run's shared one:
// test/support/n8n.mjs), against the sandbox, with the credentials `npm start` creates: the AI Agent example (a Chat Trigger) as
// the editor's chat panel runs it (REST, the message typed given as the trigger's output), with the
// sandbox's stand-in model; the approval example (Send and Wait for Response), whose execution
// waits for the person's answer, which `n8n execute` cannot give.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { STAND_IN_NOTE } from '../../../sandbox/chatModel.mjs';
import { waitFor } from '../harness.mjs';
import { MANUAL_TRIGGER, examplesN8n, exampleSuite, itemsOf, nodeOfType } from './examples.mjs';

const { example, files, notRun } = exampleSuite('assistantAndApproval');

describe('assistant and approval examples in a real n8n', { timeout: 6 * 60_000 }, () => {
	const ex = examplesN8n(files);

	it('ops-assistant: in one chat, the stand-in model calls the tool each question names and answers with what it returned', async () => {
		const workflow = example('ops-assistant.json');
		const trigger = nodeOfType(workflow, '@n8n/n8n-nodes-langchain.chatTrigger');
		const agent = nodeOfType(workflow, '@n8n/n8n-nodes-langchain.agent');
		assert.equal(agent.typeVersion, 3.1, 'the agent version the editor adds');
		nodeOfType(workflow, '@n8n/n8n-nodes-langchain.memoryBufferWindow');
		const model = nodeOfType(workflow, '@n8n/n8n-nodes-langchain.lmChatOpenAi');
		assert.equal(
			model.parameters.responsesApiEnabled,
			false,
			'chat completions, as any OpenAI-compatible service has',
		);
		const sessionId = 'e2e-ops-assistant';
		/** Sends a chat message as the editor's chat panel does; the tool requests and the answer. */
		const ask = async (chatInput) => {
			const logStart = ex.sandbox.log.length;
			const run = await ex.n8n.runManually(workflow.id, trigger.name, {
				timeoutMs: 120_000,
				triggerItems: [{ sessionId, action: 'sendMessage', chatInput }],
			});
			assert.equal(
				run.error,
				undefined,
				`${JSON.stringify(run.error)?.slice(0, 2000)}\n${ex.output()}`,
			);
			const api = ex.sandbox.log.slice(logStart).filter((e) => !e.path.endsWith('/auth/token'));
			return {
				api: api.map((e) => `${e.method} ${e.path} ${e.status}`),
				answer: itemsOf(run.runData, agent.name)[0].output,
			};
		};
		ex.sandbox.chatModel.reset();

		const { balance } = ex.sandbox.state;
		let reply = await ask('What is my balance?');
		assert.deepEqual(reply.api, ['GET /api/v1/voice/billing/balance 200']);
		assert.ok(reply.answer.startsWith(STAND_IN_NOTE), reply.answer);
		assert.ok(reply.answer.includes(`"credit":${balance.credit}`), reply.answer);

		const contact = ex.sandbox.state.contacts[2];
		const before = ex.sandbox.state.messages.length;
		reply = await ask(
			`Send the document https://example.com/brochure.pdf to ${contact.phone} with "Our brochure"`,
		);
		assert.deepEqual(reply.api, ['POST /api/v1/messenger/messages/send/media-to-phone 200']);
		const sent = ex.sandbox.state.messages.slice(before);
		assert.equal(sent.length, 1);
		assert.equal(ex.sandbox.state.chats.find((c) => c.id === sent[0].chatId).phone, contact.phone);
		assert.equal(sent[0].type, 'document');
		assert.deepEqual(sent[0].content, {
			url: 'https://example.com/brochure.pdf',
			caption: 'Our brochure',
		});
		assert.ok(reply.answer.includes(sent[0].id), reply.answer);

		// The memory gave the model the first exchange along with the second question.
		const [, , third] = ex.sandbox.chatModel.requests;
		assert.ok(
			third.messages.some((m) => m.role === 'user' && m.content === 'What is my balance?'),
			JSON.stringify(third.messages).slice(0, 2000),
		);
	});

	it('approve-campaign-cancel: the execution waits for the person on WhatsApp; approving cancels the campaign, declining keeps it', async () => {
		const workflow = example('approve-campaign-cancel.json');
		const trigger = nodeOfType(workflow, MANUAL_TRIGGER);
		const ask = nodeOfType(workflow, 'n8n-nodes-voice-messaging.messenger');
		assert.equal(ask.parameters.operation, 'sendAndWait');
		const { rest, runDataOf, workflowId } = ex.n8n;
		for (const approved of [true, false]) {
			const campaign = ex.sandbox.addCampaign({ status: 'in_progress' });
			const sentBefore = ex.sandbox.state.sent.length;
			const { executionId } = await rest('POST', `/rest/workflows/${workflowId(workflow.id)}/run`, {
				triggerToStartFrom: { name: trigger.name },
			});
			const sent = await waitFor(
				() => ex.sandbox.state.sent.length > sentBefore && ex.sandbox.state.sent.at(-1),
				{
					timeoutMs: 30_000,
					describe: () => `nothing sent\n${ex.output()}`,
				},
			);
			assert.equal(sent.recipient, ask.parameters.phone);
			assert.ok(sent.text.includes(campaign.id), sent.text);
			await waitFor(async () => (await runDataOf(executionId)).execution.status === 'waiting', {
				timeoutMs: 30_000,
				describe: () => `execution ${executionId} is not waiting`,
			});
			const link = sent.text.slice(sent.text.lastIndexOf(' ') + 1);
			const page = await (await fetch(link)).text();
			assert.ok(page.includes('Cancel it') && page.includes('Keep it running'));
			const body = new FormData();
			body.append('approved', String(approved));
			assert.equal((await fetch(link, { method: 'POST', body })).status, 200);
			const run = await waitFor(
				async () => {
					const data = await runDataOf(executionId);
					return !['waiting', 'running', 'new'].includes(data.execution.status) && data;
				},
				{ timeoutMs: 60_000, describe: () => `execution ${executionId} did not finish` },
			);
			assert.equal(run.execution.status, 'success', JSON.stringify(run.error)?.slice(0, 1000));
			const stored = ex.sandbox.state.campaigns.find((c) => c.id === campaign.id);
			if (approved) {
				assert.equal(itemsOf(run.runData, 'Cancel the campaign')[0].status, 'cancelled');
				assert.equal(stored.status, 'cancelled');
			} else {
				assert.deepEqual(itemsOf(run.runData, 'Kept running'), [
					{ campaignId: campaign.id, outcome: 'declined on WhatsApp' },
				]);
				assert.equal(stored.status, 'in_progress');
			}
		}
	});

	it('approve-campaign-cancel: with no campaign that can still be cancelled, it says so and sends nothing', async () => {
		const workflow = example('approve-campaign-cancel.json');
		const { campaigns } = ex.sandbox.state;
		const statuses = campaigns.map((c) => c.status);
		for (const campaign of campaigns) {
			if (['pending', 'in_progress'].includes(campaign.status)) campaign.status = 'completed';
		}
		try {
			const sentBefore = ex.sandbox.state.sent.length;
			const run = await ex.n8n.runManually(workflow.id, nodeOfType(workflow, MANUAL_TRIGGER).name);
			assert.equal(run.error, undefined, JSON.stringify(run.error)?.slice(0, 1000));
			assert.match(
				itemsOf(run.runData, 'Nothing to cancel')[0].outcome,
				/No campaign can be cancelled/,
			);
			assert.deepEqual(itemsOf(run.runData, 'Ask on WhatsApp'), []);
			assert.equal(ex.sandbox.state.sent.length, sentBefore);
		} finally {
			campaigns.forEach((campaign, i) => (campaign.status = statuses[i]));
		}
	});

	it('every example of this suite (RUN_BY in examples.mjs) was run by a test above', () => {
		assert.deepEqual(
			notRun(),
			[],
			'examples without a test: add one to test/e2e/examples/assistantAndApproval.e2e.test.mjs',
		);
	});
});
