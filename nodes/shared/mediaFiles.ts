import type {
	IBinaryKeyData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	IPollFunctions,
} from 'n8n-workflow';

import type { MediaLink } from './download';
import { DEFAULT_MAX_FILE_SIZE_MIB, DownloadError, downloadFile } from './download';
import { asNodeError } from './errors';
import { PollTimeUp } from './pollClock';
import { requireNumberInRange, requireText } from './validation';

/** The largest Max File Size the option takes, in MiB (n8n's binary store takes larger files, but 2 GiB is where Node's buffers stop in memory mode). */
export const MAX_FILE_SIZE_LIMIT_MIB = 2048;

/** How downloads are made: into which binary field, and up to which size. */
export interface MediaSettings {
	download: boolean;
	binaryPropertyName: string;
	maxBytes: number;
}

export const binaryPropertyOption: INodeProperties = {
	displayName: 'Put Output File in Field',
	name: 'binaryPropertyName',
	type: 'string',
	default: 'data',
	hint: 'The name of the output binary field to put the file in',
};

export const maxFileSizeOption: INodeProperties = {
	displayName: 'Max File Size (MiB)',
	name: 'maxFileSize',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MAX_FILE_SIZE_LIMIT_MIB },
	default: DEFAULT_MAX_FILE_SIZE_MIB,
	description:
		'A larger file is not downloaded: the item gets an error instead. The file is streamed into n8n’s binary data, so memory does not grow with it in filesystem or S3 mode.',
};

/** The Download Media options of an operation or trigger that outputs messages. */
export function downloadMediaOptions(what: string): INodeProperties[] {
	return [
		{
			displayName: 'Download Media',
			name: 'downloadMedia',
			type: 'boolean',
			default: false,
			description: `Whether to download the file of every ${what} that has one (image, voice note, video, document) into the item's binary data. Other messages come unchanged.`,
		},
		{ ...binaryPropertyOption, displayOptions: { show: { downloadMedia: [true] } } },
		{ ...maxFileSizeOption, displayOptions: { show: { downloadMedia: [true] } } },
	];
}

/** Download settings from an Options collection (or an operation's own parameters), checked. */
export function mediaSettings(
	options: IDataObject,
	download = options.downloadMedia === true,
): MediaSettings {
	const binaryPropertyName = requireText(
		options.binaryPropertyName ?? 'data',
		'Put Output File in Field',
		{ maxLength: 200 },
	).trim();
	const maxMib = requireNumberInRange(
		options.maxFileSize ?? DEFAULT_MAX_FILE_SIZE_MIB,
		'Max File Size (MiB)',
		0.001,
		MAX_FILE_SIZE_LIMIT_MIB,
	);
	return { download, binaryPropertyName, maxBytes: Math.floor(maxMib * 2 ** 20) };
}

/** The media of a message record (`content.url`), or undefined for a message without a file. */
export function mediaLinkOf(message: unknown): MediaLink | undefined {
	if (!message || typeof message !== 'object') return undefined;
	const { id, content } = message as IDataObject;
	if (!content || typeof content !== 'object') return undefined;
	const { url, fileName, mimeType } = content as IDataObject;
	if (typeof url !== 'string' || url.trim() === '') return undefined;
	return { messageId: String(id ?? ''), url: url.trim(), fileName, mimeType };
}

type MediaContext = IExecuteFunctions | IPollFunctions;

/** What a failed download leaves on the item, as a Continue On Fail item says it. */
function mediaErrorOf(context: MediaContext, error: unknown): IDataObject {
	const shown = asNodeError(context.getNode(), error);
	return shown.description
		? { message: shown.message, description: shown.description }
		: { message: shown.message };
}

/** Reads a message again for its current media link (a signed link that expired gets a new one). */
export type FreshLink = (messageId: string) => Promise<MediaLink | undefined>;

/** A message's file; a link that expired or is gone is asked for again once, when `freshLink` can. */
async function downloadWithFreshLink(
	context: MediaContext,
	link: MediaLink,
	maxBytes: number,
	freshLink: FreshLink | undefined,
) {
	let failed: unknown;
	try {
		return await downloadFile(context, link, maxBytes);
	} catch (error) {
		failed = error;
	}
	const stale = failed instanceof DownloadError && ['expired', 'gone'].includes(failed.reason);
	const fresh = stale && freshLink ? await freshLink(link.messageId) : undefined;
	if (!fresh || fresh.url === link.url) throw failed;
	return await downloadFile(context, fresh, maxBytes);
}

/**
 * Each message's file (when it has one) downloaded into `binary` under the settings' field
 * name, then `<name>_2`, `<name>_3` … for further files of the same item; each message that got
 * one records the field in `binaryProperty`. With `keepErrors` a failed download leaves
 * `mediaError` on its message instead of failing (a trigger never loses the message); the end of
 * a poll's time (PollTimeUp) is thrown whatever `keepErrors` says: the file waits for the next poll.
 * So is a failure for which `failsAll` is true (a trigger's outage: the poll fails and the file
 * is asked for again at the next one).
 */
export async function attachFiles(
	context: MediaContext,
	messages: IDataObject[],
	settings: MediaSettings,
	keepErrors: boolean,
	freshLink?: FreshLink,
	failsAll?: (error: unknown) => boolean,
): Promise<IBinaryKeyData | undefined> {
	const binary: IBinaryKeyData = {};
	let count = 0;
	for (const message of messages) {
		const link = mediaLinkOf(message.message ?? message);
		if (!link) continue;
		const name =
			count === 0 ? settings.binaryPropertyName : `${settings.binaryPropertyName}_${count + 1}`;
		let failed: unknown;
		try {
			binary[name] = await downloadWithFreshLink(context, link, settings.maxBytes, freshLink);
			message.binaryProperty = name;
			count++;
		} catch (error) {
			failed = error;
		}
		if (failed === undefined) continue;
		if (failed instanceof PollTimeUp || failsAll?.(failed)) throw failed;
		if (!keepErrors) throw asNodeError(context.getNode(), failed);
		message.mediaError = mediaErrorOf(context, failed);
	}
	return count > 0 ? binary : undefined;
}

/** One output item per message, each with its file when settings ask for downloads. */
export async function messageItems(
	context: MediaContext,
	messages: IDataObject[],
	settings: MediaSettings,
	keepErrors: boolean,
): Promise<INodeExecutionData[]> {
	const items: INodeExecutionData[] = [];
	for (const message of messages) {
		const json = { ...message };
		const binary = settings.download
			? await attachFiles(context, [json], settings, keepErrors)
			: undefined;
		items.push(binary ? { json, binary } : { json });
	}
	return items;
}
