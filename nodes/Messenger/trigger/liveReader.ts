import type { IHttpRequestOptions, IPollFunctions, ITriggerFunctions } from 'n8n-workflow';

/** The trigger was deactivated or n8n is stopping: no request goes out any more. */
export class LiveStopped extends Error {
	override name = 'LiveStopped';
}

/**
 * The trigger's context seen as a poll's, so that Message Received's reading code (cursor,
 * delivery, chat of a phone) serves the live loop unchanged. It sends nothing once the trigger
 * is stopped, and its requests keep to the live triggers' budget once one is set.
 */
export function readerOf(context: ITriggerFunctions, live: { stopped: boolean }): IPollFunctions {
	const helpers = {
		...context.helpers,
		async httpRequestWithAuthentication(
			this: ITriggerFunctions,
			type: string,
			options: IHttpRequestOptions,
		): Promise<unknown> {
			if (live.stopped) throw new LiveStopped('The trigger was stopped');
			return await context.helpers.httpRequestWithAuthentication.call(this, type, options);
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
