// Peak memory of a download inside a real n8n (`n8n execute`, n8n's default binary data mode:
// `filesystem` in 2.x): a customer's 100 MiB document, served by the sandbox on its own origin
// (the token required), fetched by Message → Download Media, by n8n's HTTP Request node (Response
// Format: File, Predefined Credential Type: this package's credential), or not at all (Message →
// Get: the baseline, the same message read). Each figure is the maximum resident set size of the
// `n8n execute` process as GNU time reports it (peakRssByVariant of uploadMemoryN8n.mjs); the extra
// over the baseline is divided by the file's size.
import { CUSTOMER_MESSAGES_PATH } from '../sandbox/server.mjs';
import { DEFAULT_N8N_VERSION, PACKAGE_NAME } from '../tools/n8n.mjs';
import { executionError } from '../tools/runData.mjs';
import { chainWorkflow } from '../tools/workflows.mjs';
import { openChat } from './uploadMemory.mjs';
import { peakRssByVariant, withBenchN8n } from './uploadMemoryN8n.mjs';

const MIB = 2 ** 20;
const CREDENTIAL = { id: 'benchDownloadCr1', name: 'Voice sandbox (download bench)' };

/** The node of each variant's workflow, by name, and the binary field it should fill (none: baseline). */
const VARIANTS = {
	baseline: (message) => ({
		name: 'Get',
		type: `${PACKAGE_NAME}.messenger`,
		parameters: { resource: 'message', operation: 'get', messageId: message.id },
	}),
	ours: (message) => ({
		name: 'Download Media',
		type: `${PACKAGE_NAME}.messenger`,
		parameters: {
			resource: 'message',
			operation: 'downloadMedia',
			source: 'messageId',
			messageId: message.id,
			binaryPropertyName: 'data',
			options: { maxFileSize: 1024 },
		},
	}),
	httpRequest: (message) => ({
		name: 'HTTP Request',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			method: 'GET',
			url: message.content.url,
			authentication: 'predefinedCredentialType',
			nodeCredentialType: 'voiceMessagingApi',
			options: { response: { response: { responseFormat: 'file' } } },
		},
	}),
};

/** A customer of the sandbox (another process) sends a document of `sizeBytes`: the message. */
async function customerSendsDocument(url, chatId, sizeBytes) {
	const answer = await fetch(`${url}${CUSTOMER_MESSAGES_PATH}`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({
			chatId,
			type: 'document',
			fileSize: sizeBytes,
			fileName: 'scan.pdf',
			text: 'bench',
		}),
	});
	if (answer.status !== 201) throw new Error(`customer message: ${answer.status}`);
	const { items } = await answer.json();
	return items[0];
}

/** Fails unless the variant's node ran and, for a download, holds the whole file in n8n's store. */
function checkRun(result, variant, sizeBytes) {
	const error = executionError(result);
	if (error) throw new Error(`${variant} failed: ${error.message ?? JSON.stringify(error)}`);
	if (variant === 'baseline') return;
	const runs = result?.data?.resultData?.runData?.[VARIANTS[variant]({ content: {} }).name];
	const file = runs?.at(-1)?.data?.main?.[0]?.[0]?.binary?.data;
	const stored = /^filesystem(-v2)?:/.test(String(file?.id));
	if (!stored || (file.bytes !== undefined && file.bytes !== sizeBytes)) {
		throw new Error(`${variant}: the file is not in n8n's file store: ${JSON.stringify(file)}`);
	}
}

/**
 * @param {{ sizeMiB?: number, runs?: number, version?: string }} [options]
 * @returns {Promise<{ sizeBytes: number, runs: number, baselineSpread: number, baseline: number, ours: number, httpRequest: number }>}
 *   the median peak RSS in bytes of each variant's `n8n execute`, and how far apart the
 *   baseline's runs were
 */
export async function measureDownloadMemoryInN8n({
	sizeMiB = 100,
	runs = 5,
	version = DEFAULT_N8N_VERSION,
} = {}) {
	const sizeBytes = sizeMiB * MIB;
	return await withBenchN8n({ version, credential: CREDENTIAL }, async ({ sandbox, instance }) => {
		const chatId = await openChat(sandbox.url);
		const message = await customerSendsDocument(sandbox.url, chatId, sizeBytes);
		const ids = {};
		for (const [variant, node] of Object.entries(VARIANTS)) {
			ids[variant] = `benchDl${variant.slice(0, 4)}${sizeMiB}`.padEnd(16, '0');
			await instance.importWorkflow(
				chainWorkflow(ids[variant], [
					{ typeVersion: 1, ...node(message), credentials: { voiceMessagingApi: CREDENTIAL } },
				]),
			);
		}
		const measured = await peakRssByVariant(instance, ids, runs, (result, variant) =>
			checkRun(result, variant, sizeBytes),
		);
		return { sizeBytes, ...measured };
	});
}
