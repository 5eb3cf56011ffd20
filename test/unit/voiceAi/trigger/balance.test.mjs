// Voice AI Trigger, Balance Low: fires once when the balance falls below the threshold.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { balanceTransition } from '../../../../nodes/VoiceAi/trigger/balance.ts';

describe('balanceTransition', () => {
	it('fires once on the way down and re-arms on the way up', () => {
		const steps = [30, 25, 19, 5, 19, 20, 21, 3];
		let state = { armed: true };
		const fired = [];
		for (const value of steps) {
			const result = balanceTransition(state, value, 20);
			if (result.fire) fired.push(value);
			state = result.state;
		}
		assert.deepEqual(fired, [19, 3]);
	});
});
