// shared/rateLimitHints.ts: how long the server asks to be left alone, in each header spelling.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { serverPauseMs } from '../../../nodes/shared/rateLimitHints.ts';

describe("the server's pause from a 429's headers", () => {
	const now = Date.parse('2025-01-01T00:00:00Z');
	const cases = [
		[{ 'Retry-After': '3' }, 3000],
		[{ 'retry-after': '0.25' }, 250],
		[{ 'Retry-After': 'Wed, 01 Jan 2025 00:00:07 GMT' }, 7000],
		[{ 'RateLimit-Reset': '12' }, 12_000],
		[{ 'X-RateLimit-Reset': String(now / 1000 + 20) }, 20_000],
		[{ RateLimit: 'limit=100, remaining=0, reset=9' }, 9000],
		[{ RateLimit: '"default";r=0;t=4' }, 4000],
		[{ 'Retry-After': '2', 'X-RateLimit-Reset': '40' }, 2000],
		[new Headers({ 'Retry-After': '5' }), 5000],
		[{ 'X-RateLimit-Remaining': '0' }, undefined],
		[{ 'Retry-After': 'soon' }, undefined],
		[undefined, undefined],
	];
	for (const [headers, expected] of cases) {
		it(`${JSON.stringify(headers instanceof Headers ? Object.fromEntries(headers) : headers)} → ${expected}`, () => {
			assert.equal(serverPauseMs(headers, now), expected);
		});
	}
});
