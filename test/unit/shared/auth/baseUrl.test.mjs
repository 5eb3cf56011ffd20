// shared/auth/baseUrl.ts: the Base URL as users paste it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { normalizeBaseUrl } from '../../../../nodes/shared/auth/baseUrl.ts';

describe('normalizeBaseUrl', () => {
	it('drops spaces, trailing slashes and a pasted /api/v1', () => {
		assert.equal(normalizeBaseUrl(' https://api.example.com/ '), 'https://api.example.com');
		assert.equal(normalizeBaseUrl('https://api.example.com/api/v1/'), 'https://api.example.com');
		assert.equal(normalizeBaseUrl('http://127.0.0.1:4010//'), 'http://127.0.0.1:4010');
		assert.equal(normalizeBaseUrl('https://h/prefix'), 'https://h/prefix');
	});
});
