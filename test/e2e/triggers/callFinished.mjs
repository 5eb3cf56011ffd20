// What the Call Finished suites share (callFinished.e2e.test.mjs, callFinishedRestart.e2e.test.mjs):
// the trigger's workflow, and the steps of a suite from usePollingN8n (polling.mjs) whose
// workflows poll the sandbox's call campaigns.

import { DEMO_CLIENTS } from '../../../sandbox/server.mjs';
import { sleep, waitFor } from '../../../tools/processes.mjs';
import { POLL_NOOP_NODE, pollingWorkflow } from '../../../tools/workflows.mjs';
import { pollDiagnostics } from '../harness.mjs';

/** An activated Call Finished workflow on the chosen campaigns, with the suite's credential. */
export const callFinishedWorkflow = ({ id, credential }, cronSecond, parameters) =>
	pollingWorkflow({
		id,
		name: `e2e ${id}`,
		triggerName: 'Call Finished',
		type: 'n8n-nodes-voice-messaging.voiceAiTrigger',
		parameters: { event: 'callFinished', campaignScope: 'chosen', ...parameters },
		credential,
		cronSecond,
	});

/**
 * The steps of a Call Finished suite. Its clock is the polls of the workflow that polls with the
 * voice-only client (its in-progress campaign lists): one such workflow per suite.
 * @param {ReturnType<typeof import('./polling.mjs').usePollingN8n>} suite
 */
export function callFinishedSteps(suite) {
	const polls = () =>
		suite.sandbox.log.filter(
			(e) =>
				e.clientId === DEMO_CLIENTS.voiceOnly.clientId &&
				e.path.endsWith('/voice/campaigns') &&
				e.query.status === 'in_progress',
		).length;
	const dataReads = (campaign) =>
		suite.sandbox.log.filter((e) => e.path === `/api/v1/voice/campaigns/${campaign.id}/data`);
	const diagnostics = () => pollDiagnostics(suite.sandbox, suite, 30);

	/** Every item the workflow's executions have emitted, in order. */
	const itemsOf = ({ id }) => suite.api.emittedItems(id, POLL_NOOP_NODE);

	/** Waits for the next poll (scheduled, or the one at a start) and lets it finish. */
	async function nextPoll() {
		const count = polls();
		await waitFor(() => polls() > count, {
			timeoutMs: 80_000,
			describe: () => `no scheduled poll${diagnostics()}`,
		});
		await sleep(4_000);
	}

	return { polls, dataReads, diagnostics, itemsOf, nextPoll };
}
