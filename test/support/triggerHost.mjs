// n8n's side of a long-running trigger (a node with trigger()), as n8n 2.41 runs one: it saves
// the node's static data only at the end of an activation and at each emit (docs/testing.md),
// stops it with the closeFunction it returned, and at a restart (n8n starting again, another main
// taking the lead) activates it again from what it saved, reloaded as n8n loads a workflow's
// static data: a JSON copy wrapped in its observable proxies. Everything happens on a clock the
// caller drives (test/support/virtualTime.mjs): the host settles each call by moving it on.
import { ObservableObject } from 'n8n-workflow';

import { createTriggerContext } from '../../tools/context.mjs';

/** n8n's static data as a restart loads it: the saved JSON, wrapped in its proxies. */
export const reloadedStaticData = (json) => ObservableObject.create(JSON.parse(json));

/**
 * A host for `makeNode()`'s trigger(). `context` takes createTriggerContext's options (params,
 * credentials, store); `http(type, options)` answers the requests. Resolves nothing by itself:
 * `activate(mode)` and `close()` settle on `clock` within `limitMs` of virtual time each.
 * Recorded: `emits` (items, deduplication key, the virtual time, the activation's number),
 * `failed` (failed executions), `lateRequests` and `lateEmits` (after a closeFunction resolved:
 * each a defect), `closeMs` (the virtual time each closeFunction took), `refused` (an activation
 * whose trigger() threw).
 */
export function triggerHost({ makeNode, context, http, clock, limitMs = 120_000 }) {
	let saved = '{}';
	let current;
	let activations = 0;
	const host = {
		emits: [],
		failed: [],
		refused: [],
		lateRequests: [],
		lateEmits: [],
		closeMs: [],
		get saved() {
			return JSON.parse(saved);
		},
		get active() {
			return current !== undefined;
		},
	};

	host.activate = async (mode) => {
		const number = ++activations;
		const live = { closed: false };
		const staticData = reloadedStaticData(saved);
		const guarded = async (type, options) => {
			if (live.closed) host.lateRequests.push({ activation: number, url: options.url });
			return await http(type, options);
		};
		const double = createTriggerContext({
			...context,
			http: guarded,
			staticData,
			activation: mode,
		});
		double.context.emit = (data, _response, _done, deduplicationKey) => {
			if (live.closed) host.lateEmits.push({ activation: number, items: data[0] });
			// n8n saves the static data when emit is called (before the execution runs).
			saved = JSON.stringify(staticData);
			host.emits.push({ items: data[0], deduplicationKey, at: Date.now(), activation: number });
		};
		double.context.saveFailedExecution = (error) => host.failed.push({ error, at: Date.now() });
		let response;
		try {
			response = await clock.settle(makeNode().trigger.call(double.context), limitMs);
		} catch (error) {
			host.refused.push({ error, activation: number });
			return false;
		}
		// The end of the activation: n8n saves the static data.
		saved = JSON.stringify(staticData);
		current = { response, live };
		return true;
	};

	host.close = async () => {
		if (!current) return;
		const { response, live } = current;
		current = undefined;
		const started = Date.now();
		await clock.settle(Promise.resolve(response.closeFunction?.()), limitMs);
		host.closeMs.push(Date.now() - started);
		live.closed = true;
	};

	host.restart = async (mode) => {
		await host.close();
		return await host.activate(mode);
	};
	return host;
}
