// Voice AI → Report → Get Call Trends: the period asked for, the periods split into items (or the
// answer kept whole), and bad dates refused before any request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { VoiceAi } from '../../../nodes/VoiceAi/VoiceAi.node.ts';
import { scriptedNode } from '../../support/unit.mjs';

const { run, itRefusesBeforeAnyRequest } = scriptedNode(new VoiceAi());

describe('Voice AI operations hit their endpoints', () => {
	it('report getCallTrends sends from/to/granularity and splits periods into items', async () => {
		const periods = [
			{ period: '2026-01-01', calls: 3 },
			{ period: '2026-01-02', calls: 5 },
		];
		const { output, calls } = await run(
			{
				resource: 'report',
				operation: 'getCallTrends',
				from: '2026-01-01',
				to: '2026-01-31',
				granularity: 'week',
				options: {},
			},
			() => ({ items: periods }),
		);
		assert.equal(calls[0].url, '/api/v1/voice/reports/trends');
		assert.deepEqual(calls[0].qs, { from: '2026-01-01', to: '2026-01-31', granularity: 'week' });
		assert.deepEqual(
			output.map((o) => o.json),
			periods,
		);
	});

	it('report getCallTrends can keep the whole answer as one item', async () => {
		const answer = { items: [{ period: 'p' }], currency: 'EUR' };
		const { output } = await run(
			{
				resource: 'report',
				operation: 'getCallTrends',
				from: '2026-01-01',
				to: '2026-01-31',
				granularity: 'day',
				options: { splitIntoItems: false },
			},
			() => answer,
		);
		assert.deepEqual(
			output.map((o) => o.json),
			[answer],
		);
	});

	it('report getCallTrends splits periods of another envelope too, and keeps any other answer whole', async () => {
		const params = {
			resource: 'report',
			operation: 'getCallTrends',
			from: '2026-01-01',
			to: '2026-01-31',
			granularity: 'day',
			options: {},
		};
		const periods = [{ period: 'a' }, { period: 'b' }];
		for (const answer of [{ data: periods, meta: {} }, periods]) {
			const { output } = await run(params, () => answer);
			assert.deepEqual(
				output.map((o) => o.json),
				periods,
			);
		}
		const other = { summary: { calls: 3 } };
		const { output } = await run(params, () => other);
		assert.deepEqual(
			output.map((o) => o.json),
			[other],
		);
	});
});

describe('bad input fails before any request, naming the field', () => {
	itRefusesBeforeAnyRequest([
		[
			{
				resource: 'report',
				operation: 'getCallTrends',
				from: 'yesterday-ish',
				to: '2026-01-31',
				granularity: 'day',
				options: {},
			},
			/From "yesterday-ish" is not a date/,
		],
		[
			{
				resource: 'report',
				operation: 'getCallTrends',
				from: '2026-02-01',
				to: '2026-01-01',
				granularity: 'day',
				options: {},
			},
			/From \(2026-02-01\) is after To/,
		],
	]);
});
