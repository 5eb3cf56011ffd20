// Tokens revoked and expiring while both workers are busy: every item succeeds, and the token
// requests stay within the token endpoint's 10 a minute. The calls go on until the tokens issued
// after the revocation have run out and been replaced, as the sandbox's log counts it, not for a
// fixed time; and those tokens live long enough that a loaded machine, whose executions may wait
// seconds between getting a token and sending with it, still sends within their lifetime.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { WORKERS } from './cluster.mjs';
import { FANOUT, FANOUT_WORKFLOW } from './queueWorkflows.mjs';

/** The lifetime of the tokens issued after the revocation. */
const LIFETIME_SECONDS = 30;
/** The sandbox's default lifetime: what tokens get once the first short-lived one ran out. */
const LONG_LIFETIME_SECONDS = 3600;
/** Beyond this the calls stop even without an expiry; the assertions then say what is missing. */
const GIVE_UP_MS = (LIFETIME_SECONDS + 180) * 1000;

/** @param {ReturnType<typeof import('./cluster.mjs').useQueueCluster>} q */
export function tokenExpiryTests(q) {
	// Last: the shared-limit test before it (two minutes) leaves this part a token-endpoint minute
	// of its own.
	it('tokens revoked and expiring while both workers are busy: every item succeeds within the token limit', async () => {
		const { sandbox } = q;
		const tokensBefore = q.tokenRequestsOf(FANOUT).length;
		const logBefore = sandbox.log.length;
		// Tokens issued from now on live LIFETIME_SECONDS; the ones in use are revoked once the run
		// is under way, and the calls go on until the new tokens have run out and been replaced.
		sandbox.setOptions({ tokenLifetimeSeconds: LIFETIME_SECONDS });
		const startedAt = Date.now();
		let revokedAt = 0;
		/** When the first 401 for a token issued after the revocation came. */
		let expiredAt = 0;
		// A 401 for the fan-out client this long after the revocation met a token issued after it
		// (exp counts from the issue time in whole seconds: up to 1 s sooner than the lifetime).
		const ranOut = (entry) =>
			entry.status === 401 &&
			entry.clientId === FANOUT.client.clientId &&
			Date.parse(entry.at) > revokedAt + (LIFETIME_SECONDS - 1) * 1000;
		let scanned = logBefore;
		// One expiry is what this test shows: the tokens issued after the first one ran out live
		// long, so however slowly the calls go, the token requests stay one per worker per expiry.
		const watch = setInterval(() => {
			if (!revokedAt || expiredAt) return;
			for (; scanned < sandbox.log.length; scanned++) {
				if (!ranOut(sandbox.log[scanned])) continue;
				expiredAt = Date.parse(sandbox.log[scanned].at);
				sandbox.setOptions({ tokenLifetimeSeconds: LONG_LIFETIME_SECONDS });
				return;
			}
		}, 100);
		const replaced = () =>
			expiredAt > 0 &&
			q
				.tokenRequestsOf(FANOUT)
				.some((entry) => entry.status === 200 && Date.parse(entry.at) >= expiredAt);
		const results = [];
		try {
			for (
				let round = 0;
				(results.length < 200 || !replaced()) && Date.now() - startedAt < GIVE_UP_MS;
				round++
			) {
				results.push(
					...(await q.fanOut(`expiry ${round}`, 50, (answered) => {
						if (round === 0 && answered === 25) {
							sandbox.expireTokens();
							revokedAt = Date.now();
						}
					})),
				);
			}
		} finally {
			clearInterval(watch);
		}
		const endedAt = Date.now();
		sandbox.setOptions({ tokenLifetimeSeconds: LONG_LIFETIME_SECONDS });
		await q.assertAllSucceeded(results, FANOUT_WORKFLOW);

		const phase = sandbox.log.slice(logBefore);
		const rejected = phase.filter((entry) => entry.status === 401);
		const expired = rejected.filter(ranOut);
		assert.ok(rejected.length > 0, 'the revoked tokens met 401 answers');
		const timeline = () =>
			`\nrevoked at +${revokedAt - startedAt} ms, ended at +${endedAt - startedAt} ms; 401s at ${rejected
				.map((entry) => `+${Date.parse(entry.at) - startedAt}`)
				.join(' ')}; token requests at ${sandbox
				.tokenRequests()
				.filter((entry) => Date.parse(entry.at) >= startedAt)
				.map((entry) => `+${Date.parse(entry.at) - startedAt} ${entry.clientId}`)
				.join(', ')}`;
		assert.ok(
			expired.length > 0,
			`tokens issued after the revocation expired during the run${timeline()}`,
		);
		// Per worker: one token after the revocation, plus one per lifetime that ran out.
		const tokens = q.tokenRequestsOf(FANOUT).slice(tokensBefore);
		const lifetimes = 1 + Math.ceil((endedAt - revokedAt) / 1000 / LIFETIME_SECONDS);
		assert.ok(
			tokens.length >= 2 && tokens.length <= WORKERS * lifetimes,
			`${tokens.length} token requests; at most ${WORKERS} × ${lifetimes} lifetimes expected${timeline()}${q.diagnostics()}`,
		);
		// The token endpoint (10 a minute per IP, for all processes and clients) never refused,
		// and no minute of the whole suite saw more than 10 token requests.
		const all = sandbox.tokenRequests();
		assert.deepEqual(
			all.filter((entry) => entry.status !== 200),
			[],
			'no token request was refused',
		);
		const times = all.map((entry) => Date.parse(entry.at));
		const busiestMinute = Math.max(
			...times.map((t) => times.filter((u) => u >= t && u < t + 60_000).length),
		);
		assert.ok(busiestMinute <= 10, `busiest minute: ${busiestMinute} token requests`);
		console.log(
			`# expiry: ${results.length} calls in ${((endedAt - startedAt) / 1000).toFixed(1)} s, ` +
				`${rejected.length} answers 401 (${expired.length} after a token ran out), ` +
				`${tokens.length} token requests; busiest minute of the suite: ${busiestMinute} token requests`,
		);
	});
}
