// The Voice AI node's resource locator searches, and the Voice AI Trigger's campaign dropdown that
// reuses the campaign search.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { searchAgents, searchCampaigns } from '../../../nodes/VoiceAi/methods/listSearch.ts';
import { VoiceAiTrigger } from '../../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { scriptedLoadOptions } from '../../support/unit.mjs';

describe('resource locator searches', () => {
	const listContext = (pages) => scriptedLoadOptions((options) => pages[options.qs.page - 1]);

	it('lists agents newest first, filters by name or id, and pages on', async () => {
		const { context, calls } = listContext([
			{
				items: [
					{ id: 'agt_1', name: 'Sales Bot', call_type: 'outbound', status: 'active' },
					{ id: 'agt_2', name: 'Support', call_type: 'inbound', status: 'inactive' },
				],
				totalPages: 2,
			},
		]);
		const all = await searchAgents.call(context);
		assert.deepEqual(all.results, [
			{ name: 'Sales Bot (outbound, active)', value: 'agt_1' },
			{ name: 'Support (inbound, inactive)', value: 'agt_2' },
		]);
		assert.equal(all.paginationToken, '2');
		const filtered = await searchAgents.call(context, 'sales');
		assert.deepEqual(
			filtered.results.map((r) => r.value),
			['agt_1'],
		);
		assert.deepEqual(calls[0].qs, { page: 1, limit: 100, sort: 'desc' });
	});

	it('lists campaigns with their status and stops paging on the last page', async () => {
		const { context, calls } = listContext([
			{ items: [] },
			{ items: [{ id: 'cmp_9', name: 'Renewals', status: 'pending' }], totalPages: 2 },
		]);
		const page2 = await searchCampaigns.call(context, undefined, '2');
		assert.deepEqual(page2.results, [{ name: 'Renewals (pending)', value: 'cmp_9' }]);
		assert.equal(page2.paginationToken, undefined);
		assert.equal(calls[0].url, '/api/v1/voice/campaigns');
	});
});

describe('the Voice AI Trigger campaign dropdown', () => {
	it("is the Voice AI node's campaign search: one request, the same labels", async () => {
		const answer = {
			items: [{ id: 'c1', name: 'Spring', status: 'pending' }],
			page: 1,
			totalPages: 3,
		};
		const trigger = scriptedLoadOptions(() => answer);
		const search = scriptedLoadOptions(() => answer);
		const options = await new VoiceAiTrigger().methods.loadOptions.getCampaigns.call(
			trigger.context,
		);
		const { results } = await searchCampaigns.call(search.context);
		assert.deepEqual(
			options,
			results.map(({ name, value }) => ({ name, value })),
		);
		assert.deepEqual(options, [{ name: 'Spring (pending)', value: 'c1' }]);
		assert.equal(trigger.calls.length, 1);
		assert.deepEqual(trigger.calls[0].qs, search.calls[0].qs);
	});
});
