import type { Failure, IBinaryData, IExecuteFunctions, IPollFunctions } from 'n8n-workflow';

import type { RequestFailure } from './errors';
import { failureCause, InputError } from './errors';
import { networkFailureWords } from './errorWords';
import { fileIdentity } from './fileNames';
import type { BodyStream, FileAnswer } from './fileTransport';
import { FileRequestError, MAX_REDIRECTS, requestFile } from './fileTransport';
import { pollClockOf } from './pollClock';

/** The Max File Size a download gets when the node does not set one, in MiB. */
export const DEFAULT_MAX_FILE_SIZE_MIB = 100;

/** A message's media as the message describes it: where it is and what it should be called. */
export interface MediaLink {
	messageId: string;
	url: string;
	fileName?: unknown;
	mimeType?: unknown;
}

/**
 * A download that failed: the message names the message and what went wrong, the description
 * what to do. `reason` is what the trigger and tests read: gone, expired, tooLarge, failed.
 * `failure`: the cause when the file's host is the one failing (a 429, a 5xx, a timeout, a network
 * error, a transfer that broke off), not the file: a trigger fails its poll with it.
 */
export class DownloadError extends InputError {
	override name = 'DownloadError';

	constructor(
		message: string,
		description: string,
		readonly reason: 'gone' | 'expired' | 'tooLarge' | 'failed',
		readonly httpStatus?: number,
		readonly failure?: Failure,
	) {
		super(message, description);
	}
}

/** The cause of a failed request when it is the host's (overloaded, down, out of reach), not the file's. */
function hostFailure(failure: RequestFailure): Failure | undefined {
	const cause = failureCause(failure);
	return cause?.cause === 'rate-limited' || cause?.cause === 'temporarily-unavailable'
		? cause
		: undefined;
}

const mib = (bytes: number) => `${Math.round((bytes / 2 ** 20) * 10) / 10} MiB`;

function tooLarge(link: MediaLink, maxBytes: number, size?: number): DownloadError {
	return new DownloadError(
		`The media of message ${link.messageId} is larger than the Max File Size (${mib(maxBytes)})`,
		`${size === undefined ? 'The download passed the limit and was stopped' : `The file is ${mib(size)}`}. Raise Max File Size if the file is expected, or leave large files to another tool.`,
		'tooLarge',
	);
}

/** The error for a failed request, naming the message. */
function requestFailed(link: MediaLink, error: FileRequestError): DownloadError {
	const { status, code } = error.failure;
	const id = link.messageId;
	if (error.redirect === 'tooMany') {
		return new DownloadError(
			`The media link of message ${id} redirected more than ${MAX_REDIRECTS} times`,
			'The link leads in circles or through too many hops; the download was stopped.',
			'failed',
		);
	}
	if (error.redirect === 'notHttp') {
		return new DownloadError(
			`The media link of message ${id} redirected to an address that is not http(s)`,
			'Only http and https links are followed.',
			'failed',
		);
	}
	if (status === 404 || status === 410) {
		return new DownloadError(
			`The media of message ${id} is gone (HTTP ${status})`,
			'The file was deleted or its link no longer points to it. Ask the customer to send it again.',
			'gone',
			status,
		);
	}
	if (status === 403) {
		return new DownloadError(
			`The media link of message ${id} has expired or is not allowed (HTTP 403)`,
			'Signed media links stop working after a while: read the message again (Message → Get) for a fresh link and download it at once.',
			'expired',
			status,
		);
	}
	const what =
		status !== undefined
			? `the server answered HTTP ${status}`
			: code
				? networkFailureWords(code)
				: 'the request failed';
	return new DownloadError(
		`The media of message ${id} could not be downloaded: ${what}`,
		code ? `Network error code: ${code}` : 'Try again later.',
		'failed',
		status,
		hostFailure(error.failure),
	);
}

/**
 * Counts the body's bytes as n8n's store reads them and stops the body with an error once they
 * pass `maxBytes`. A 'data' listener sees every chunk whoever reads (pipe or read()); the stream
 * is paused again at once so that nothing flows before n8n reads it.
 */
function limitBody(
	body: BodyStream,
	link: MediaLink,
	maxBytes: number,
): { exceeded: () => boolean; failed: Promise<never> } {
	let received = 0;
	let exceeded = false;
	// Listened to at once: a transfer may break before n8n's store starts reading.
	const failed = new Promise<never>((_resolve, reject) => body.on('error', reject));
	body.on('data', (chunk: Buffer) => {
		received += chunk.length;
		if (received > maxBytes && !exceeded) {
			exceeded = true;
			body.destroy(tooLarge(link, maxBytes));
		}
	});
	body.pause();
	return { exceeded: () => exceeded, failed };
}

/** Whether the answer's Content-Length already says the file is too large. */
function declaredSize(headers: Record<string, unknown>): number | undefined {
	const size = Number(headers['content-length']);
	return Number.isSafeInteger(size) && size >= 0 ? size : undefined;
}

/**
 * Downloads a message's media into n8n's binary data as a stream: in filesystem or S3 mode the
 * file goes to n8n's store chunk by chunk, so memory stays flat whatever its size. MIME type and
 * name come from the answer, else from the message (see fileNames.ts). Fails with a DownloadError
 * naming the message: gone (404/410), expired (403), larger than `maxBytes`, or another failure.
 */
export async function downloadFile(
	context: IExecuteFunctions | IPollFunctions,
	link: MediaLink,
	maxBytes: number,
): Promise<IBinaryData> {
	let answer: FileAnswer | undefined;
	let failed: unknown;
	try {
		answer = await requestFile(context, link.url);
	} catch (error) {
		failed = error;
	}
	if (!answer) {
		throw failed instanceof FileRequestError ? requestFailed(link, failed) : failed;
	}
	const size = declaredSize(answer.headers);
	if (size !== undefined && size > maxBytes) {
		answer.body.destroy();
		throw tooLarge(link, maxBytes, size);
	}
	const { fileName, mimeType } = fileIdentity(answer.headers, { ...link, id: link.messageId });
	const limit = limitBody(answer.body, link, maxBytes);
	let stored: IBinaryData | undefined;
	let code: unknown;
	try {
		stored = await Promise.race([
			context.helpers.prepareBinaryData(
				answer.body as unknown as Parameters<typeof context.helpers.prepareBinaryData>[0],
				fileName,
				mimeType,
			),
			limit.failed,
		]);
	} catch (error) {
		code = (error as { code?: unknown }).code;
	}
	if (limit.exceeded()) throw tooLarge(link, maxBytes);
	if (stored) return stored;
	// Cut off at the end of the poll's time (attemptLimits): the poll stops, the file waits.
	const clock = pollClockOf(context);
	if (clock && !clock.hasRoom()) {
		throw clock.timeUp(`downloading the media of message ${link.messageId}`, {
			cause: 'temporarily-unavailable',
		});
	}
	throw new DownloadError(
		`The media of message ${link.messageId} could not be downloaded: the transfer broke off`,
		typeof code === 'string' ? `Network error code: ${code}` : 'Try again later.',
		'failed',
		undefined,
		{ cause: 'temporarily-unavailable' },
	);
}
