import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

import { isApiOrigin } from '../nodes/shared/auth/baseUrl';
import { sharedAccessToken } from '../nodes/shared/auth/tokenShare';

export class VoiceMessagingApi implements ICredentialType {
	name = 'voiceMessagingApi';

	displayName = 'Voice & Messaging API';

	icon: Icon = {
		light: 'file:../icons/voiceMessaging.svg',
		dark: 'file:../icons/voiceMessaging.dark.svg',
	};

	documentationUrl = 'https://github.com/voice-messaging/n8n-nodes-voice-messaging#credential';

	// Lets users call endpoints the nodes do not wrap (calls, recordings, transcription) from
	// the HTTP Request node with this credential: Predefined Credential Type → Voice & Messaging API.
	httpRequestNode = {
		name: 'Voice & Messaging API',
		docsUrl:
			'https://github.com/voice-messaging/n8n-nodes-voice-messaging#endpoints-this-package-does-not-wrap',
		apiBaseUrlPlaceholder: 'https://api.example.com/api/v1/',
	};

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://api.example.com',
			description:
				'Address of the Integration API, without /api/v1. For the local sandbox it is printed when the sandbox starts, e.g. http://127.0.0.1:4010.',
		},
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			required: true,
			default: '',
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
		},
		{
			displayName: 'Requests per Minute',
			name: 'requestsPerMinute',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 100,
			description:
				'The most requests this credential sends in any minute from one n8n process (the API allows 100 per minute per IP). Processes behind one IP share the limit on their own: a 429 slows the process down and it climbs back toward this ceiling. Lower it only to leave room for other tools on your IP; 0 turns pacing off.',
		},
		{
			displayName: 'Live Trigger Requests per Minute',
			name: 'liveRequestsPerMinute',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 60,
			description:
				'The most requests all Messenger Live Triggers on this credential send in any minute from one n8n process, within Requests per Minute: the rest is left for the replies and other workflows. They read chats in conversation every few seconds and quiet chats in turn within it.',
		},
		{
			// Filled by preAuthentication and stored (encrypted) with the credential, so every
			// execution reuses one token until the API answers 401; then n8n asks for a new one.
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
	];

	async preAuthentication(
		this: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
	): Promise<IDataObject> {
		// One exchange per token lifetime in this process, however many executions ask at once.
		const accessToken = await sharedAccessToken(
			(options) => this.helpers.httpRequest(options),
			credentials,
		);
		return { accessToken };
	}

	/**
	 * The token goes to the API's own origin only (the Base URL's scheme, host and port): a
	 * media link on a storage host, or a redirect to one, is fetched without it. The HTTP Request
	 * node with this credential follows the same rule.
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		// n8n's HTTP Request node sends its request the older way, with `uri` instead of `url`.
		const { uri } = requestOptions as IHttpRequestOptions & { uri?: unknown };
		const url = requestOptions.url ?? (uri === undefined ? '' : String(uri));
		if (!isApiOrigin(credentials.baseUrl, url, requestOptions.baseURL)) {
			return requestOptions;
		}
		return {
			...requestOptions,
			headers: {
				...(requestOptions.headers ?? {}),
				Authorization: `Bearer ${String(credentials.accessToken ?? '')}`,
			},
		};
	}

	// The token endpoint itself answers for every workspace, whatever products it has, so a
	// messenger-only workspace passes the test; a wrong secret fails in preAuthentication or here.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.trim().replace(/\\/+$/, "").replace(/\\/api\\/v1$/i, "")}}',
			url: '/api/v1/auth/token',
			method: 'POST',
			body: {
				client_id: '={{$credentials.clientId}}',
				client_secret: '={{$credentials.clientSecret}}',
			},
			json: true,
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: 'The API rejected the Client ID or Client Secret (401). Check both values.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 429,
					message:
						'The token endpoint allows 10 requests a minute and that limit is reached. Wait a minute and test again.',
				},
			},
		],
	};
}
