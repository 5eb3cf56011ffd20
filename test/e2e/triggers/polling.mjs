// Polling triggers for real, for the triggers/ suites: activated workflows in the run's n8n
// (test/support/n8n.mjs) against the suite's own sandbox, with its own credentials (each workflow
// polls with its own API client, so that the sandbox log tells their polls apart) and workflow IDs;
// executions read back through n8n's REST API.
//
// n8n 2.41.1 polls at most once a minute: it rejects any 6-field cron whose seconds field is not a
// single number ("The polling interval is too short. It has to be at least a minute."). Its first
// poll runs at activation (the trigger's baseline); the next ones follow the cron. The workflows
// use `mode: 'custom'` with a fixed second chosen so the first scheduled poll comes soon after the
// baseline (the `everyMinute` mode is the same interval at a random second). The suites never rely
// on that timing: they count polls in the sandbox log.
import { after, before } from 'node:test';

import {
	BROWSER_ID,
	isN8n1,
	logIn,
	n8nRestApi,
	OWNER,
	startWithOwner,
	useSandboxAndN8n,
} from '../harness.mjs';

/** Seconds from writing the workflows until n8n has made their baseline poll (import, activate). */
const EXPECTED_ACTIVATION_S = 8;
/** Margin after the baseline before the first scheduled poll, for a test to change the sandbox. */
const CHANGE_MARGIN_S = 12;

/**
 * The environment that switches on n8n 2.41's durable scheduler for polls (off by default): it
 * abandons a poll after N8N_SCHEDULER_POLL_TIMEOUT (45 s), offers the node getPollBudgetMs(), keeps
 * a trigger's state as durable cursors and backs off after a failed poll.
 */
export const DURABLE_SCHEDULER_ENV = Object.freeze({
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
});

/** The second of every minute the workflows poll at: soon after their baseline, not too soon. */
export const firstCronSecond = () =>
	Math.floor(Date.now() / 1000 + EXPECTED_ACTIVATION_S + CHANGE_MARGIN_S) % 60;

/** Milliseconds until the next scheduled poll at `cronSecond` (60 000 when it is now). */
export function msToNextPoll(cronSecond) {
	const now = new Date();
	return (
		(((cronSecond - now.getUTCSeconds() + 60) % 60) * 1000 || 60_000) - now.getUTCMilliseconds()
	);
}

/**
 * Registers the hooks of a polling suite: a sandbox with `credentials(sandbox)`, the run's n8n of
 * `version` (with `ownN8n`, one of the suite's own, which `restart()` starts again after
 * `server.stop()`; with `env`, one of the suite's own started with that environment) and the workflows `workflows(sandbox, cronSecond)` gives, activated. The
 * returned object's fields resolve in `before`: `api` reads executions (on the latest start),
 * `output()` is n8n's output.
 * @param {{ version: string, ownN8n?: boolean, env?: NodeJS.ProcessEnv, credentials: (sandbox: any) => any[], workflows: (sandbox: any, cronSecond: number) => any[] }} options
 */
export function usePollingN8n({ version, ownN8n = false, env, credentials, workflows }) {
	// Registered first, so it runs before the n8n is released: a restarted server is not the one
	// the handle knows.
	after(async () => {
		if (suite.server !== suite.n8n?.server) await suite.server?.stop();
	});
	// A restart needs an n8n of the suite's own; nothing else differs from the run's.
	const e2e = useSandboxAndN8n({ version, env: ownN8n ? { ...env } : env, credentials });
	/** `sandbox` and `n8n` (useSandboxAndN8n) and what is below. */
	const suite = Object.assign(e2e, {
		/** @type {Pick<ReturnType<typeof n8nRestApi>, 'executionsOf' | 'runDataOf' | 'emittedItems'>} */
		api: undefined,
		/** Own n8n only: the running server (a new one after each restart). */
		server: undefined,
		/** The second of every minute at which the workflows poll. */
		cronSecond: 0,
		output: () => (suite.server ?? suite.n8n).output(),
		restart,
	});

	/** Own n8n only: starts it again (after `server.stop()`) and logs in again. */
	async function restart() {
		const { instance } = suite.n8n;
		let cookie;
		if (isN8n1(version)) {
			// 1.x: the owner exists after the first start; log in again.
			suite.server = await instance.start();
			cookie = await logIn(suite.server.baseUrl, OWNER, BROWSER_ID);
		} else {
			({ server: suite.server, cookie } = await startWithOwner(instance, OWNER, BROWSER_ID));
		}
		const { baseUrl } = suite.server;
		// Workflows by the IDs they were imported with, as before the restart (1.x gives new ones).
		suite.api = n8nRestApi({
			baseUrl,
			cookie,
			n8nDir: instance.n8nDir,
			browserId: BROWSER_ID,
			workflowId: suite.n8n.workflowId,
		});
	}

	before(async () => {
		suite.api = suite.n8n;
		suite.server = suite.n8n.server;
		suite.cronSecond = firstCronSecond();
		for (const workflow of workflows(suite.sandbox, suite.cronSecond))
			await suite.n8n.importWorkflow({ ...workflow, active: true });
	});

	return suite;
}
