// Polling triggers for real, for the triggers/ suites: published workflows in a running n8n
// against the suite's own sandbox, each polling with its own API client so that the sandbox log
// tells their polls apart; executions read back through n8n's REST API.
//
// n8n 2.41.1 polls at most once a minute: it rejects any 6-field cron whose seconds field is not a
// single number ("The polling interval is too short. It has to be at least a minute."). Its first
// poll runs at activation (the trigger's baseline); the next ones follow the cron. The workflows
// use `mode: 'custom'` with a fixed second chosen so the first scheduled poll comes soon after the
// baseline (the `everyMinute` mode is the same interval at a random second). The suites never rely
// on that timing: they count polls in the sandbox log.
import { after, before } from 'node:test';

import { startSandbox } from '../../../sandbox/server.mjs';
import {
	cleanupPack,
	createN8nInstance,
	isN8n1,
	logIn,
	n8nRestApi,
	packPackage,
	startWithOwner,
} from '../harness.mjs';

/** Seconds from writing the workflows until n8n has made its baseline poll (import, publish, start). */
const EXPECTED_STARTUP_S = 30;
/** Margin after the baseline before the first scheduled poll, for a test to change the sandbox. */
const CHANGE_MARGIN_S = 12;

/** The second of every minute the workflows poll at: soon after their baseline, not too soon. */
export const firstCronSecond = () =>
	Math.floor(Date.now() / 1000 + EXPECTED_STARTUP_S + CHANGE_MARGIN_S) % 60;

/** Milliseconds until the next scheduled poll at `cronSecond` (60 000 when it is now). */
export function msToNextPoll(cronSecond) {
	const now = new Date();
	return (
		(((cronSecond - now.getUTCSeconds() + 60) % 60) * 1000 || 60_000) - now.getUTCMilliseconds()
	);
}

/**
 * Registers the hooks of a polling suite: a sandbox, n8n `version` with the package, the
 * credentials and workflows `setUp(sandbox, cronSecond)` gives (the workflows published before
 * n8n starts), the owner logged in. The returned object's fields resolve in `before`; `restart`
 * starts n8n again after `server.stop()`.
 * @param {{ version: string, setUp: (sandbox: any, cronSecond: number) => { credentials: any[], workflows: any[] } }} options
 */
export function usePollingN8n({ version, setUp }) {
	const owner = { email: 'owner@e2e.example', password: 'E2e-owner-Passw0rd' };
	const browserId = 'e2e-browser';
	const suite = {
		/** @type {Awaited<ReturnType<typeof startSandbox>>} */
		sandbox: undefined,
		/** @type {Awaited<ReturnType<typeof createN8nInstance>>} */
		n8n: undefined,
		/** @type {{ baseUrl: string, output: () => string, stop: () => Promise<void> }} */
		server: undefined,
		/** @type {ReturnType<typeof n8nRestApi>} */
		api: undefined,
		/** The second of every minute at which the workflows poll. */
		cronSecond: 0,
		activate,
		restart,
	};

	/** Publishes (1.x: activates) an imported workflow; n8n activates it when it starts. */
	async function activate(id) {
		const args = isN8n1(version)
			? ['update:workflow', `--id=${id}`, '--active=true']
			: ['publish:workflow', `--id=${id}`];
		await suite.n8n.n8n(args);
	}

	const restApi = (cookie) =>
		n8nRestApi({ baseUrl: suite.server.baseUrl, cookie, n8nDir: suite.n8n.n8nDir, browserId });

	async function start() {
		const { server, cookie } = await startWithOwner(suite.n8n, owner, browserId);
		suite.server = server;
		suite.api = restApi(cookie);
	}

	async function restart() {
		if (!isN8n1(version)) return start();
		// 1.x: the owner exists after the first start; log in again.
		suite.server = await suite.n8n.start();
		suite.api = restApi(await logIn(suite.server.baseUrl, owner, browserId));
	}

	before(async () => {
		suite.sandbox = await startSandbox({ port: 0, host: '127.0.0.1', progressIntervalMs: 0 });
		const tarball = await packPackage();
		suite.n8n = await createN8nInstance({
			tarball,
			version,
			// The first poll's result and any "poll failed" warning show up at info; the default.
			extraEnv: { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all', GENERIC_TIMEZONE: 'UTC' },
		});
		suite.cronSecond = firstCronSecond();
		const { credentials, workflows } = setUp(suite.sandbox, suite.cronSecond);
		await suite.n8n.importCredentials(credentials);
		for (const workflow of workflows) {
			await suite.n8n.importWorkflow(workflow);
			await activate(workflow.id);
		}
		await start();
	});

	after(async () => {
		await suite.server?.stop();
		await suite.n8n?.cleanup();
		await suite.sandbox?.close();
		cleanupPack();
	});

	return suite;
}
