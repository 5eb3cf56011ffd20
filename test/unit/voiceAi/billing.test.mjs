// Voice AI → Billing → Get Balance.
import { describe } from 'node:test';

import { VoiceAi } from '../../../nodes/VoiceAi/VoiceAi.node.ts';
import { scriptedNode } from '../../support/unit.mjs';

const { itSendsOneRequest } = scriptedNode(new VoiceAi());

describe('Voice AI operations hit their endpoints', () => {
	itSendsOneRequest([
		[
			'billing getBalance',
			{ resource: 'billing', operation: 'getBalance' },
			'GET',
			'/api/v1/voice/billing/balance',
			{},
			{ credit: 12.5, currency: 'EUR', minutes: 90, ratePerMinute: 0.14 },
		],
	]);
});
