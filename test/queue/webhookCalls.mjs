// The queue suite's webhook calls to the main instance, and the answers n8n's main loses.
//
// In queue mode a worker sends a production webhook's answer back to the main instance as a Bull
// progress message (Redis pub/sub, which keeps nothing for a subscriber that missed it). On a
// loaded two-core machine the main has now and then answered nothing, although the execution had
// succeeded in the database: the call then hung until its timeout, and the part failed on n8n's
// relay, not on this package. So a call that has no answer a while after its execution ended
// takes that execution's result from the database and the run data, as n8n would have answered
// it, and is counted: each part prints how many answers n8n lost. A call whose execution did not
// end keeps waiting, up to CALL_TIMEOUT_MS.
import { request } from 'node:http';

import { lastRunItems } from '../../tools/runData.mjs';

/** The longest a call waits for an answer or a finished execution. */
const CALL_TIMEOUT_MS = 600_000;
/** How long after its execution ended a call without an answer counts as one n8n lost. */
const LOST_AFTER_S = 30;
/** A call asks the database only after this long without an answer (most answer in seconds). */
const FIRST_CHECK_MS = 60_000;
const CHECK_EVERY_MS = 10_000;

/**
 * POSTs `body` (with a `callId` added, unique in the run) to a production webhook of the main
 * instance; resolves to the status and JSON answer. Through node:http, not fetch: the answer waits
 * for the execution, which may wait its turn in a worker's pacing for minutes on a loaded machine,
 * and fetch gives up on headers after 300 s (UND_ERR_HEADERS_TIMEOUT).
 * @param {{ baseUrl: string, lostAnswer: (callId: string) => Promise<Answer | undefined> }} main
 * @param {string} path @param {Record<string, unknown>} body @param {string} callId
 * @returns {Promise<Answer>}
 * @typedef {{ status: number | undefined, text: string, json: any, lost?: boolean }} Answer
 */
export function callWebhook({ baseUrl, lostAnswer }, path, body, callId) {
	const payload = JSON.stringify({ ...body, callId });
	return new Promise((resolve, reject) => {
		let settled = false;
		let checking = false;
		/** @type {NodeJS.Timeout | undefined} */
		let check;
		const settle = (fn, value) => {
			if (settled) return;
			settled = true;
			clearInterval(check);
			fn(value);
		};
		const req = request(
			`${baseUrl}/webhook/${path}`,
			{
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'content-length': Buffer.byteLength(payload),
				},
				timeout: CALL_TIMEOUT_MS,
			},
			(response) => {
				let text = '';
				response.setEncoding('utf8');
				response.on('data', (chunk) => (text += chunk));
				response.on('error', (error) => settle(reject, error));
				response.on('end', () => {
					let json;
					try {
						json = JSON.parse(text);
					} catch {
						json = undefined;
					}
					settle(resolve, { status: response.statusCode, text, json });
				});
			},
		);
		const sentAt = Date.now();
		check = setInterval(async () => {
			if (checking || settled || Date.now() - sentAt < FIRST_CHECK_MS) return;
			checking = true;
			try {
				const answer = await lostAnswer(callId);
				if (answer) {
					settle(resolve, answer);
					req.destroy();
				}
			} catch {
				// The database or the REST API was busy: the next check asks again.
			} finally {
				checking = false;
			}
		}, CHECK_EVERY_MS);
		req.on('timeout', () =>
			req.destroy(new Error(`webhook ${path}: no answer in ${CALL_TIMEOUT_MS / 1000} s`)),
		);
		req.on('error', (error) => settle(reject, error));
		req.end(payload);
	});
}

/**
 * The answer n8n's main would have sent for the call `callId` (a webhook with response mode "Last
 * Node": the first item of the last node that ran; 500 for a failed execution), when its execution
 * ended over LOST_AFTER_S seconds ago; otherwise undefined.
 * @param {{ query: (sql: string) => Promise<string[][]> }} postgres the cluster's database
 * @param {{ runDataOf: (id: string) => Promise<{ data: any, runData: any }> }} api the main's REST API
 * @param {string} callId
 * @returns {Promise<Answer | undefined>}
 */
export async function answerFromDatabase(postgres, api, callId) {
	// n8n stores run data with `flatted`: every string of it once, as a JSON string.
	const rows = await postgres.query(
		`SELECT e.id, e.status FROM execution_entity e JOIN execution_data d ON d."executionId" = e.id
		 WHERE d.data LIKE '%"${callId}"%' AND e."stoppedAt" < now() - interval '${LOST_AFTER_S} seconds'`,
	);
	if (rows.length === 0) return undefined;
	const [[id, status]] = rows;
	if (status !== 'success') {
		const text = JSON.stringify({ message: 'Workflow execution failed', execution: id, status });
		return { status: 500, text, json: JSON.parse(text), lost: true };
	}
	const { data, runData } = await api.runDataOf(id);
	const [json] = lastRunItems(runData, data.resultData.lastNodeExecuted);
	return { status: 200, text: JSON.stringify(json), json, lost: true };
}
