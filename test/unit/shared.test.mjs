import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { MessengerTrigger } from '../../nodes/Messenger/MessengerTrigger.node.ts';
import { Messenger } from '../../nodes/Messenger/Messenger.node.ts';
import {
	asNodeError,
	describeFailure,
	InputError,
	TokenExchangeError,
} from '../../nodes/shared/errors.ts';
import { listPages } from '../../nodes/shared/pagination.ts';
import { runPoll } from '../../nodes/shared/poll.ts';
import { apiRequest } from '../../nodes/shared/transport.ts';
import { searchCampaigns } from '../../nodes/VoiceAi/methods/listSearch.ts';
import { VoiceAiTrigger } from '../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import {
	createExecuteContext,
	createLoadOptionsContext,
	createPollContext,
	httpError,
	scriptedHttp,
	TEST_NODE,
} from '../../tools/context.mjs';
import { NodeApiError, NodeOperationError } from '../../tools/nodeShared.mjs';

const credentials = { baseUrl: 'http://127.0.0.1:9', clientId: 'c', requestsPerMinute: 0 };

describe('asNodeError: what n8n shows for an error', () => {
	it("keeps n8n's own errors as they are and adds only a missing item index", () => {
		const apiError = new NodeApiError(
			TEST_NODE,
			{ message: 'x', httpCode: '503' },
			{ httpCode: '503' },
		);
		assert.equal(asNodeError(TEST_NODE, apiError, 2), apiError);
		assert.equal(apiError.context.itemIndex, 2);
		assert.equal(apiError.httpCode, '503');
		const indexed = new NodeOperationError(TEST_NODE, 'y', { itemIndex: 1 });
		assert.equal(asNodeError(TEST_NODE, indexed, 4).context.itemIndex, 1);
	});

	it('turns input errors into a NodeOperationError with the field, description and item', () => {
		const error = asNodeError(
			TEST_NODE,
			new InputError('Chat ID is empty', 'Enter the Chat ID.'),
			3,
		);
		assert.ok(error instanceof NodeOperationError);
		assert.equal(error.message, 'Chat ID is empty');
		assert.equal(error.description, 'Enter the Chat ID.');
		assert.equal(error.context.itemIndex, 3);
	});

	it('recognises a token exchange failure by its class, not by its name', () => {
		// n8n wraps it; the wrapper may carry a network-looking code of its own.
		const real = new TokenExchangeError("The credential's Client ID is empty.", undefined, 'more');
		assert.deepEqual(describeFailure({ message: 'wrapped', code: 'ECONNRESET', cause: real }), {
			otherMessage: "The credential's Client ID is empty.",
			detail: 'more',
		});
		const lookalike = Object.assign(new Error('look-alike'), {
			name: 'TokenExchangeError',
			code: 'ECONNRESET',
		});
		assert.deepEqual(describeFailure(lookalike), { code: 'ECONNRESET' });
	});
});

describe('a failed first poll keeps what the API said', () => {
	it('throws the NodeApiError with its HTTP status, not a NodeOperationError around it', async () => {
		const { http } = scriptedHttp(() => {
			throw httpError(403, { message: 'Missing role: voicebot' });
		});
		const { context } = createPollContext({ params: { event: 'newCampaign' }, http, credentials });
		const error = await new VoiceAiTrigger().poll.call(context).catch((caught) => caught);
		assert.ok(error instanceof NodeApiError, `got ${error?.constructor?.name}`);
		assert.equal(error.httpCode, '403');
		assert.equal(error.context.itemIndex, undefined);
	});

	it('bad trigger settings fail every poll, naming the field, without a request', async () => {
		const { http, calls } = scriptedHttp(() => ({}));
		const staticData = {
			poll: { key: 'broadcastStatusChanged', state: { watching: {}, finished: [] } },
		};
		const { context } = createPollContext({
			params: { event: 'broadcastStatusChanged', messageIds: 'bcm_1, a/b', statuses: [] },
			http,
			credentials,
			staticData,
		});
		await assert.rejects(new MessengerTrigger().poll.call(context), (error) => {
			assert.ok(error instanceof NodeOperationError);
			assert.match(error.message, /Broadcast Message ID 2 "a\/b" is not a valid ID/);
			return true;
		});
		assert.equal(calls.length, 0);
	});

	it('a later failed poll is logged with the state kept', async () => {
		const staticData = { poll: { key: 'k', state: 1 } };
		const { context, warnings } = createPollContext({ params: {}, staticData });
		const failing = async () => {
			throw new NodeApiError(TEST_NODE, { message: 'down' }, { httpCode: '503' });
		};
		assert.equal(
			await runPoll(context, 'k', { baseline: failing, poll: failing, sample: failing }),
			null,
		);
		assert.equal(staticData.poll.state, 1);
		assert.equal(warnings.length, 1);
	});
});

describe('transport: a 404 asked for as "gone"', () => {
	it('answers undefined with missingAsUndefined and fails without it', async () => {
		const { http, calls } = scriptedHttp(() => {
			throw httpError(404, { message: 'Campaign not found' });
		});
		const context = createExecuteContext({ params: {}, http, credentials });
		assert.equal(
			await apiRequest.call(context, 'GET', '/api/v1/voice/campaigns/x', {
				missingAsUndefined: true,
			}),
			undefined,
		);
		await assert.rejects(apiRequest.call(context, 'GET', '/api/v1/voice/campaigns/x'), /not found/);
		assert.equal(calls.length, 2, 'a 404 is not retried');
	});
});

describe('pagination: the one page loop', () => {
	it('follows totalPages from the first page asked for, and stops when the caller leaves', async () => {
		const { http, calls } = scriptedHttp((options) => ({
			items: [{ id: `p${options.qs.page}` }],
			page: options.qs.page,
			totalPages: 5,
		}));
		const context = createExecuteContext({ params: {}, http, credentials });
		const seen = [];
		for await (const page of listPages.call(context, '/api/v1/voice/agents', {
			firstPage: 2,
			pageSize: 1,
		})) {
			seen.push([page.page, page.nextPage]);
			if (page.page === 4) break;
		}
		assert.deepEqual(seen, [
			[2, 3],
			[3, 4],
			[4, 5],
		]);
		assert.deepEqual(
			calls.map((call) => [call.qs.page, call.qs.limit]),
			[
				[2, 1],
				[3, 1],
				[4, 1],
			],
		);
	});
});

describe('the Voice AI Trigger campaign dropdown', () => {
	it("is the Voice AI node's campaign search: one request, the same labels", async () => {
		const answer = {
			items: [{ id: 'c1', name: 'Spring', status: 'pending' }],
			page: 1,
			totalPages: 3,
		};
		const trigger = scriptedHttp(() => answer);
		const search = scriptedHttp(() => answer);
		const options = await new VoiceAiTrigger().methods.loadOptions.getCampaigns.call(
			createLoadOptionsContext({ credentials, http: trigger.http }),
		);
		const { results } = await searchCampaigns.call(
			createLoadOptionsContext({ credentials, http: search.http }),
		);
		assert.deepEqual(
			options,
			results.map(({ name, value }) => ({ name, value })),
		);
		assert.deepEqual(options, [{ name: 'Spring (pending)', value: 'c1' }]);
		assert.equal(trigger.calls.length, 1);
		assert.deepEqual(trigger.calls[0].qs, search.calls[0].qs);
	});
});

describe('Broadcast → Get Status takes a limit of its own', () => {
	const run = (messageIds) => {
		const { http, calls } = scriptedHttp((options) => ({
			id: options.url.split('/').pop(),
			status: 'sent',
		}));
		const context = createExecuteContext({
			params: { resource: 'broadcast', operation: 'getStatus', messageIds },
			http,
			credentials,
		});
		return { result: new Messenger().execute.call(context), calls };
	};

	it('reads 100 IDs, one request each', async () => {
		const ids = Array.from({ length: 100 }, (_, i) => `bcm_${i}`);
		const { result, calls } = run(ids);
		assert.equal((await result)[0].length, 100);
		assert.equal(calls.length, 100);
	});

	it('refuses 101 before any request, saying what to do', async () => {
		const ids = Array.from({ length: 101 }, (_, i) => `bcm_${i}`);
		const { result, calls } = run(ids.join(','));
		await assert.rejects(result, (error) => {
			assert.match(error.message, /Broadcast Message IDs has 101 entries; at most 100/);
			assert.match(error.description, /Split the IDs over several items/);
			return true;
		});
		assert.equal(calls.length, 0);
	});
});

describe('run as an AI agent tool', () => {
	const run = (type) => {
		const { http, calls } = scriptedHttp(() => ({}));
		const context = createExecuteContext({
			params: {
				resource: 'message',
				operation: 'sendMediaToPhone',
				phone: '600 12 34',
				url: 'https://example.com/a.pdf',
				mediaType: 'document',
				options: {},
			},
			http,
			credentials,
			node: { ...TEST_NODE, type },
		});
		return { result: new Messenger().execute.call(context), calls };
	};

	it('answers a failed call with the error as the output, for the model to read', async () => {
		const { result, calls } = run('n8n-nodes-voice-messaging.messengerTool');
		const [[item]] = await result;
		assert.match(
			item.json.error,
			/Phone "600 12 34" is not a phone number in international format/,
		);
		assert.match(item.json.description, /country code/);
		assert.deepEqual(item.pairedItem, { item: 0 });
		assert.equal(calls.length, 0);
	});

	it('as a plain node the same call stops the workflow', async () => {
		const { result, calls } = run('n8n-nodes-voice-messaging.messenger');
		await assert.rejects(result, /is not a phone number in international format/);
		assert.equal(calls.length, 0);
	});
});
