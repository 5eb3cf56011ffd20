// What the Call Finished unit suites share (callFinishedScale, callFinishedDefects): a scripted API
// of call campaigns whose records a test changes between (and during) polls, the polls of one
// Call Finished node against it, and the records and keys the tests write.
import { VoiceAiTrigger } from '../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { scriptedPoll } from './unit.mjs';

const trigger = new VoiceAiTrigger();

/** A minute of the scripted API's clock (2025-01-01 00:mm UTC), as ISO text. */
export const at = (minute) => new Date(Date.UTC(2025, 0, 1, 0, minute)).toISOString();

/** A record of campaign data as docs/api.md gives it. */
export const record = (phoneNumber, status, attempts = 1, calledAt = at(attempts)) => ({
	phoneNumber,
	status,
	attempts,
	calledAt,
});

/** Items as `number#attempts:status`, in order. */
export const keys = (items) => items.map((i) => `${i.phoneNumber}#${i.attempts}:${i.status}`);

/**
 * A scripted API of campaigns (id → { status, records: () => records, updatedAt? }), each data page
 * `pageSize` records of `records()` as it is when that page is asked for; `beforeData(page, id)`
 * runs first (calls end, records move), and `failAt(n, options)` may throw for the n-th request.
 * Answers carry a Date header of `clock()` (the real clock by default) when n8n asks for the full
 * response.
 */
export function campaignsApi(campaigns, { pageSize = 100, beforeData, failAt, clock } = {}) {
	let requests = 0;
	const body = ({ url, qs = {} }) => {
		const all = Object.entries(campaigns).map(([id, c]) => ({
			id,
			name: `Campaign ${id}`,
			agentName: 'Lucia',
			status: c.status,
			createdAt: at(0),
			...(c.updatedAt ? { updatedAt: c.updatedAt } : {}),
		}));
		if (url.endsWith('/api/v1/voice/campaigns')) {
			const items = qs.status ? all.filter((c) => c.status === qs.status) : all;
			return { items, total: items.length, page: 1, totalPages: 1 };
		}
		const [, id, data] = /\/campaigns\/([^/]+)(\/data)?$/.exec(url) ?? [];
		if (!data) return all.find((c) => c.id === id);
		const page = Number(qs.page);
		beforeData?.(page, id);
		const records = campaigns[id].records();
		return {
			items: records.slice((page - 1) * pageSize, page * pageSize),
			totalPages: Math.max(1, Math.ceil(records.length / pageSize)),
			page,
		};
	};
	return (options) => {
		requests++;
		failAt?.(requests, options);
		const answer = body(options);
		if (!options.returnFullResponse) return answer;
		const date = new Date(clock?.() ?? Date.now()).toUTCString();
		return { body: answer, headers: { date }, statusCode: 200 };
	};
}

/** Polls of one Call Finished node (its static data kept between them) against `respond`. */
export function callWatcher(respond, params = {}) {
	const staticData = {};
	return {
		staticData,
		async poll() {
			const { context, calls, emittedErrors } = scriptedPoll(respond, {
				params: { event: 'callFinished', ...params },
				staticData,
			});
			const result = await trigger.poll.call(context);
			return { items: result ? result[0].map((i) => i.json) : [], calls, emittedErrors };
		},
	};
}
