import type { IWebhookDescription } from 'n8n-workflow';

/**
 * The waiting webhooks of Send and Wait for Response, as n8n's own nodes declare them: the path
 * is the node's ID, under /webhook-waiting/<execution>/, and they exist only while an execution
 * waits at the node (restartWebhook). GET shows the page, POST records the answer.
 */
export const waitingWebhooks: IWebhookDescription[] = (['GET', 'POST'] as const).map(
	(httpMethod) => ({
		name: 'default',
		httpMethod,
		responseMode: 'onReceived',
		responseData: '',
		path: '={{ $nodeId }}',
		restartWebhook: true,
		isFullPath: true,
	}),
);

/** What the editor shows on the node while an execution waits at it. */
export const WAITING_TOOLTIP =
	'={{ $parameter["operation"] === "sendAndWait" ? "Execution will continue after the person’s response" : "" }}';
