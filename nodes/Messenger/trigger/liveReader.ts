import type { IHttpRequestOptions, IPollFunctions, ITriggerFunctions } from 'n8n-workflow';

/** The trigger was deactivated or n8n is stopping: no request goes out any more. */
export class LiveStopped extends Error {
	override name = 'LiveStopped';
}

/**
 * The answer of a request, or LiveStopped as soon as `stop` fires: a host that does not honour the
 * request's abort signal keeps no deactivation waiting (its late answer is dropped).
 */
async function unlessStopped<T>(request: Promise<T>, stop: AbortSignal): Promise<T> {
	let onStop = () => undefined as void;
	const stopped = new Promise<never>((_resolve, reject) => {
		onStop = () => reject(new LiveStopped('The trigger was stopped'));
		stop.addEventListener('abort', onStop, { once: true });
	});
	try {
		return await Promise.race([request, stopped]);
	} finally {
		stop.removeEventListener('abort', onStop);
	}
}

/**
 * The trigger's context seen as a poll's, so that Message Received's reading code (cursor,
 * delivery, chat of a phone) serves the live loop unchanged. It sends nothing once the trigger
 * is stopped (`stop` also ends a request under way), and its requests keep to the live triggers'
 * budget once one is set.
 */
export function readerOf(
	context: ITriggerFunctions,
	live: { stopped: boolean },
	stop?: AbortSignal,
): IPollFunctions {
	const helpers = {
		...context.helpers,
		async httpRequestWithAuthentication(
			this: ITriggerFunctions,
			type: string,
			options: IHttpRequestOptions,
		): Promise<unknown> {
			if (live.stopped || stop?.aborted) throw new LiveStopped('The trigger was stopped');
			const request = context.helpers.httpRequestWithAuthentication.call(this, type, options);
			return stop ? await unlessStopped(request, stop) : await request;
		},
	};
	const reader = {
		getNode: () => context.getNode(),
		getWorkflow: () => context.getWorkflow(),
		getMode: () => context.getMode(),
		getActivationMode: () => context.getActivationMode(),
		getWorkflowStaticData: (type: string) => context.getWorkflowStaticData(type),
		getNodeParameter: (name: string, fallback?: unknown) =>
			context.getNodeParameter(name, fallback),
		getCredentials: async (type: string) => await context.getCredentials(type),
		getTimezone: () => context.getTimezone(),
		logger: context.logger,
		helpers,
	};
	return reader as unknown as IPollFunctions;
}
