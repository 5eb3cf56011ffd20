// The credential's authenticate: the token goes to the API's own origin only (the Base URL's
// scheme, host and port), never to a media link or redirect on another host.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { VoiceMessagingApi } from '../../../../credentials/VoiceMessagingApi.credentials.ts';

const credential = new VoiceMessagingApi();
const stored = { baseUrl: 'https://api.example.com/api/v1/', accessToken: 'token-123' };
const sent = async (options) => (await credential.authenticate(stored, options)).headers ?? {};

describe('the credential sends the token to the API origin only', () => {
	it('adds it to a path on the base URL and to an absolute URL on the same origin', async () => {
		assert.equal(
			(await sent({ url: '/api/v1/voice/agents', baseURL: 'https://api.example.com' }))
				.Authorization,
			'Bearer token-123',
		);
		assert.equal(
			(await sent({ url: 'https://API.example.com:443/media/1', headers: { Accept: '*/*' } }))
				.Authorization,
			'Bearer token-123',
		);
	});

	it('reads the address of a request made the older way (`uri`, as the HTTP Request node sends)', async () => {
		assert.equal(
			(await sent({ uri: 'https://api.example.com/media/1', encoding: null })).Authorization,
			'Bearer token-123',
		);
		assert.equal((await sent({ uri: 'https://storage.example.net/f/1' })).Authorization, undefined);
	});

	for (const url of [
		'https://storage.example.net/files/1?signature=x',
		'http://api.example.com/media/1', // another scheme is another origin
		'https://api.example.com:8443/media/1', // another port too
		'https://api.example.com.evil.test/media/1',
		'ftp://api.example.com/file',
		'not a url',
	]) {
		it(`leaves it out for ${url}`, async () => {
			const headers = await sent({ url, headers: { Accept: '*/*' } });
			assert.equal(headers.Authorization, undefined);
			assert.equal(headers.Accept, '*/*');
		});
	}

	it('does not change the options it was given', async () => {
		const options = { url: '/x', baseURL: 'https://api.example.com', headers: {} };
		await credential.authenticate(stored, options);
		assert.deepEqual(options.headers, {});
	});
});
