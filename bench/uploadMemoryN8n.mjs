// Peak memory of an upload inside a real n8n (`n8n execute`, n8n's default binary data mode:
// `filesystem` in 2.x): Read/Write Files from Disk reads a file, then it goes to the sandbox with
// Send Media File, with n8n's HTTP Request node (multipart, Predefined Credential Type: this
// package's credential), or nowhere (No Operation: the baseline). Each figure is the maximum
// resident set size of the `n8n execute` process as GNU time reports it (`/usr/bin/time -v`, from
// the kernel's wait4 rusage); the extra over the baseline is divided by the file's size.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DEMO_CLIENTS } from '../sandbox/server.mjs';
import { createN8nInstance, DEFAULT_N8N_VERSION, PACKAGE_NAME } from '../tools/n8n.mjs';
import { packPackage } from '../tools/pack.mjs';
import { executionError, nodeOutput, parseRawOutput } from '../tools/runData.mjs';
import { median } from '../tools/stats.mjs';
import { chainWorkflow, sandboxCredential } from '../tools/workflows.mjs';
import { openChat, startSandboxProcess } from './uploadMemory.mjs';

const TIME = '/usr/bin/time';
const MIB = 2 ** 20;
const CREDENTIAL = { id: 'benchUploadCred1', name: 'Voice sandbox (upload bench)' };
const MEDIA_FILE_PATH = '/api/v1/messenger/messages/send/media-file';

/** The last node of each variant's workflow, by name. */
const VARIANTS = {
	baseline: () => ({ name: 'No Operation', type: 'n8n-nodes-base.noOp', typeVersion: 1 }),
	ours: (chatId) => ({
		name: 'Messenger',
		type: `${PACKAGE_NAME}.messenger`,
		typeVersion: 1,
		parameters: {
			resource: 'message',
			operation: 'sendMediaFile',
			chatId,
			binaryPropertyName: 'data',
			options: {},
		},
	}),
	httpRequest: (chatId, sandboxUrl) => ({
		name: 'HTTP Request',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			method: 'POST',
			url: `${sandboxUrl}${MEDIA_FILE_PATH}`,
			authentication: 'predefinedCredentialType',
			nodeCredentialType: 'voiceMessagingApi',
			sendBody: true,
			contentType: 'multipart-form-data',
			bodyParameters: {
				parameters: [
					{ parameterType: 'formData', name: 'chatId', value: chatId },
					{ parameterType: 'formBinaryData', name: 'file', inputDataFieldName: 'data' },
				],
			},
			options: {},
		},
	}),
};

/** Manual Trigger → Read File (`filePath`) → the variant's node. */
function workflow(id, variant, filePath, chatId, sandboxUrl) {
	return chainWorkflow(id, [
		{
			name: 'Read File',
			type: 'n8n-nodes-base.readWriteFile',
			typeVersion: 1.1,
			parameters: { operation: 'read', fileSelector: filePath, options: {} },
		},
		{
			parameters: {},
			...VARIANTS[variant](chatId, sandboxUrl),
			credentials: { voiceMessagingApi: CREDENTIAL },
		},
	]);
}

/** Writes `bytes` random bytes to `path`, a MiB at a time. */
function writeRandomFile(path, bytes) {
	writeFileSync(path, '');
	for (let written = 0; written < bytes; written += MIB) {
		appendFileSync(path, randomBytes(Math.min(MIB, bytes - written)));
	}
}

/** Runs `n8n execute` under GNU time; resolves to its peak RSS in bytes and the run data. */
function measuredExecute(instance, workflowId) {
	return new Promise((resolve, reject) => {
		const child = spawn(
			TIME,
			['-v', instance.n8nBin, 'execute', `--id=${workflowId}`, '--rawOutput'],
			{ cwd: instance.userFolder, env: instance.env, stdio: ['ignore', 'pipe', 'pipe'] },
		);
		let stdout = '';
		let stderr = '';
		const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
		child.stdout.on('data', (chunk) => (stdout += chunk));
		child.stderr.on('data', (chunk) => (stderr += chunk));
		child.on('error', reject);
		child.on('close', () => {
			clearTimeout(timer);
			const match = stderr.match(/Maximum resident set size \(kbytes\): (\d+)/);
			try {
				if (!match) throw new Error('GNU time printed no maximum resident set size');
				resolve({ peakRss: Number(match[1]) * 1024, result: parseRawOutput(stdout) });
			} catch (error) {
				reject(new Error(`${workflowId}: ${error.message}\n${stderr.slice(-3000)}`));
			}
		});
	});
}

/** Fails unless the variant's node ran and, for an upload, the API recorded the whole file. */
function checkRun(result, variant, sizeBytes) {
	const error = executionError(result);
	if (error) throw new Error(`${variant} failed: ${error.message ?? JSON.stringify(error)}`);
	if (variant === 'baseline') return;
	const [message] = nodeOutput(result, VARIANTS[variant]('', '').name);
	if (message?.content?.size !== sizeBytes) {
		throw new Error(`${variant}: the API recorded ${JSON.stringify(message).slice(0, 500)}`);
	}
}

/**
 * A sandbox in its own process (no rate limits; `sandboxOptions` added) and an n8n of `version`
 * with the package and `credential` pointing at it (client `full`, no pacing), for `measure`.
 * @template T
 * @param {{ version: string, credential: { id: string, name: string }, sandboxOptions?: Record<string, unknown>, extraEnv?: NodeJS.ProcessEnv }} setup
 * @param {(parts: { sandbox: Awaited<ReturnType<typeof startSandboxProcess>>, instance: Awaited<ReturnType<typeof createN8nInstance>> }) => Promise<T>} measure
 * @returns {Promise<T>}
 */
export async function withBenchN8n({ version, credential, sandboxOptions, extraEnv }, measure) {
	if (!existsSync(TIME)) throw new Error(`${TIME} (GNU time) is needed to measure peak RSS`);
	const sandbox = await startSandboxProcess({
		rateLimitPerMinute: 0,
		tokenRateLimitPerMinute: 0,
		...sandboxOptions,
	});
	let instance;
	try {
		instance = await createN8nInstance({ version, tarball: await packPackage(), extraEnv });
		await instance.importCredentials([
			sandboxCredential(credential, sandbox, DEMO_CLIENTS.full, { requestsPerMinute: 0 }),
		]);
		return await measure({ sandbox, instance });
	} finally {
		await instance?.cleanup();
		await sandbox.close();
	}
}

/**
 * Runs the workflows `ids` (by variant: baseline, ours, httpRequest) `runs` times each,
 * interleaved so that a slow moment of the machine does not fall on one variant only; `check`
 * fails a run that did not do its work. The median peak RSS of each, and the baseline's spread.
 * @param {Awaited<ReturnType<typeof createN8nInstance>>} instance
 * @param {Record<'baseline' | 'ours' | 'httpRequest', string>} ids
 * @param {number} runs @param {(result: unknown, variant: string) => void} check
 */
export async function peakRssByVariant(instance, ids, runs, check) {
	/** @type {Record<string, number[]>} */
	const samples = { baseline: [], ours: [], httpRequest: [] };
	for (let run = 0; run < runs; run++) {
		for (const variant of Object.keys(samples)) {
			const { peakRss, result } = await measuredExecute(instance, ids[variant]);
			check(result, variant);
			samples[variant].push(peakRss);
		}
	}
	return {
		runs,
		baselineSpread: Math.max(...samples.baseline) - Math.min(...samples.baseline),
		baseline: median(samples.baseline),
		ours: median(samples.ours),
		httpRequest: median(samples.httpRequest),
	};
}

/**
 * @param {{ sizesMiB?: number[], runs?: number, version?: string }} [options]
 * @returns {Promise<Array<{ sizeBytes: number, runs: number, baselineSpread: number, baseline: number, ours: number, httpRequest: number }>>}
 *   per file size, the median peak RSS in bytes of each variant's `n8n execute`, and how far apart
 *   the baseline's runs were (reading a large file into n8n's store varies by some MB)
 */
export async function measureUploadMemoryInN8n({
	sizesMiB = [100, 500],
	runs = 5,
	version = DEFAULT_N8N_VERSION,
} = {}) {
	// Read/Write Files from Disk reads only below N8N_RESTRICT_FILE_ACCESS_TO.
	const filesDir = mkdtempSync(join(tmpdir(), 'voice-messaging-bench-files-'));
	try {
		return await withBenchN8n(
			{
				version,
				credential: CREDENTIAL,
				sandboxOptions: { maxUploadBytes: Math.max(...sizesMiB) * MIB },
				extraEnv: { N8N_RESTRICT_FILE_ACCESS_TO: filesDir },
			},
			async ({ sandbox, instance }) => {
				const chatId = await openChat(sandbox.url);
				const figures = [];
				for (const sizeMiB of sizesMiB) {
					const sizeBytes = sizeMiB * MIB;
					const filePath = join(filesDir, `bench-${sizeMiB}.pdf`);
					writeRandomFile(filePath, sizeBytes);
					const ids = {};
					for (const variant of Object.keys(VARIANTS)) {
						ids[variant] = `benchUpl${variant.slice(0, 4)}${sizeMiB}`.padEnd(16, '0');
						await instance.importWorkflow(
							workflow(ids[variant], variant, filePath, chatId, sandbox.url),
						);
					}
					const measured = await peakRssByVariant(instance, ids, runs, (result, variant) =>
						checkRun(result, variant, sizeBytes),
					);
					rmSync(filePath, { force: true });
					figures.push({ sizeBytes, ...measured });
				}
				return figures;
			},
		);
	} finally {
		rmSync(filesDir, { recursive: true, force: true });
	}
}
