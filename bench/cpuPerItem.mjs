// CPU time per item of the Voice AI node (Billing → Get Balance) against n8n's own HTTP Request
// node making the same call with the same credential (Predefined Credential Type), both in one
// real n8n (`n8n execute`). The sandbox runs in a child process of this one, so its CPU is not
// counted; each `n8n execute` is timed by bash's `time` (user + sys of n8n and the children it
// waited for). Start-up dominates a run, so a workflow with 1 item is the baseline:
// per item = (cpu(N) − cpu(1)) / (N − 1), from the medians of interleaved runs.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { DEMO_CLIENTS } from '../sandbox/server.mjs';
import { createN8nInstance, DEFAULT_N8N_VERSION } from '../tools/n8n.mjs';
import { packPackage } from '../tools/pack.mjs';
import { executionError, nodeOutput, parseRawOutput } from '../tools/runData.mjs';
import { median } from '../tools/stats.mjs';
import { manualTriggerNode, NODE_TYPE, sandboxCredential } from '../tools/workflows.mjs';
import { startSandboxProcess } from './uploadMemory.mjs';

const CREDENTIAL = { id: 'benchCpuCred0001', name: 'Voice sandbox (bench)' };

/** The node under test for each variant, and its name in the run data. */
const VARIANTS = {
	ours: {
		name: 'Voice AI',
		node: () => ({
			type: NODE_TYPE,
			typeVersion: 1,
			parameters: { resource: 'billing', operation: 'getBalance' },
		}),
	},
	httpRequest: {
		name: 'HTTP Request',
		node: (sandboxUrl) => ({
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			parameters: {
				method: 'GET',
				url: `${sandboxUrl}/api/v1/voice/billing/balance`,
				authentication: 'predefinedCredentialType',
				nodeCredentialType: 'voiceMessagingApi',
				options: {},
			},
		}),
	},
};

/** Manual Trigger → Edit Fields (n = [1..count]) → Split Out (n) → the variant's node. */
function workflow(id, variant, count, sandboxUrl) {
	const { name, node } = VARIANTS[variant];
	const link = (to) => ({ main: [[{ node: to, type: 'main', index: 0 }]] });
	return {
		id,
		name: `bench ${id}`,
		active: false,
		settings: { executionOrder: 'v1' },
		connections: {
			'Manual Trigger': link('Edit Fields'),
			'Edit Fields': link('Split Out'),
			'Split Out': link(name),
		},
		nodes: [
			manualTriggerNode({ id: `${id}-t`, position: [0, 0] }),
			{
				id: `${id}-s`,
				name: 'Edit Fields',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [220, 0],
				parameters: {
					mode: 'manual',
					assignments: {
						assignments: [
							{
								id: 'n',
								name: 'n',
								value: `={{ Array.from({ length: ${count} }, (_, i) => i + 1) }}`,
								type: 'array',
							},
						],
					},
					options: {},
				},
			},
			{
				id: `${id}-o`,
				name: 'Split Out',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [440, 0],
				parameters: { fieldToSplitOut: 'n', options: {} },
			},
			{
				id: `${id}-x`,
				name,
				position: [660, 0],
				credentials: { voiceMessagingApi: CREDENTIAL },
				...node(sandboxUrl),
			},
		],
		pinData: {},
	};
}

/**
 * Runs `n8n execute --id=… --rawOutput` under bash's `time`; resolves to the CPU seconds
 * (user + sys, n8n and its waited-for children) and the parsed run data.
 */
function timedExecute(instance, workflowId, outFile) {
	return new Promise((resolve, reject) => {
		const script =
			'TIMEFORMAT="%U %S"; { time "$0" execute --id="$1" --rawOutput >"$2" 2>"$2.err"; } 2>&1';
		const child = spawn('bash', ['-c', script, instance.n8nBin, workflowId, outFile], {
			cwd: instance.userFolder,
			env: instance.env,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let out = '';
		let err = '';
		const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
		child.stdout.on('data', (chunk) => (out += chunk));
		child.stderr.on('data', (chunk) => (err += chunk));
		child.on('error', reject);
		child.on('close', () => {
			clearTimeout(timer);
			const match = out.trim().match(/(\d+(?:\.\d+)?) (\d+(?:\.\d+)?)\s*$/);
			const stdout = readFileSync(outFile, 'utf8');
			const stderr = readFileSync(`${outFile}.err`, 'utf8');
			if (!match) {
				reject(
					new Error(`no timing from bash for ${workflowId}: ${out} ${err}\n${stderr.slice(-2000)}`),
				);
				return;
			}
			let result;
			try {
				result = parseRawOutput(stdout);
			} catch (error) {
				reject(
					new Error(`${workflowId}: ${error.message}\n--- stderr ---\n${stderr.slice(-2000)}`),
				);
				return;
			}
			resolve({ cpuSeconds: Number(match[1]) + Number(match[2]), result });
		});
	});
}

/**
 * @param {{ items?: number, runs?: number, version?: string, details?: boolean }} [options]
 *   items: N per large run (default 300); runs: timed runs per workflow (default 3);
 *   details: also return every sample.
 * @returns {Promise<{ ours: number, httpRequest: number, ratio: number, items: number, runs: number }>}
 *   ms of CPU per item for each node, and ours / httpRequest.
 */
export async function measureCpuPerItem({
	items = 300,
	runs = 3,
	version = DEFAULT_N8N_VERSION,
	details = false,
} = {}) {
	if (!(items > 1)) throw new Error('items must be more than 1');
	const sandbox = await startSandboxProcess({ rateLimitPerMinute: 0, tokenRateLimitPerMinute: 0 });
	let instance;
	try {
		instance = await createN8nInstance({ version, tarball: await packPackage() });
		await instance.importCredentials([
			sandboxCredential(CREDENTIAL, sandbox, DEMO_CLIENTS.full, { requestsPerMinute: 0 }),
		]);
		const ids = {};
		for (const variant of Object.keys(VARIANTS)) {
			for (const count of [1, items]) {
				const id = `benchCpu${variant === 'ours' ? 'Ours' : 'Http'}${count === 1 ? 'One0' : 'Many'}`;
				ids[`${variant}:${count}`] = id;
				await instance.importWorkflow(workflow(id, variant, count, sandbox.url));
			}
		}

		const outFile = join(instance.userFolder, 'bench-output.json');
		const execute = async (variant, count) => {
			const { cpuSeconds, result } = await timedExecute(
				instance,
				ids[`${variant}:${count}`],
				outFile,
			);
			const error = executionError(result);
			if (error)
				throw new Error(`${variant} × ${count} failed: ${error.message ?? JSON.stringify(error)}`);
			const output = nodeOutput(result, VARIANTS[variant].name);
			if (output.length !== count || !output.every((item) => typeof item.credit === 'number')) {
				throw new Error(
					`${variant} × ${count}: ${output.length} items, expected ${count} balances: ${JSON.stringify(output[0])}`,
				);
			}
			return cpuSeconds * 1000;
		};

		// Untimed warm-up: the first execution fetches and stores the token; disk caches fill.
		for (const variant of Object.keys(VARIANTS)) await execute(variant, items);

		/** @type {Record<string, number[]>} */
		const samples = {};
		for (let run = 0; run < runs; run++) {
			for (const count of [items, 1]) {
				for (const variant of Object.keys(VARIANTS)) {
					(samples[`${variant}:${count}`] ??= []).push(await execute(variant, count));
				}
			}
		}
		rmSync(outFile, { force: true });
		rmSync(`${outFile}.err`, { force: true });

		const perItem = (variant) =>
			(median(samples[`${variant}:${items}`]) - median(samples[`${variant}:1`])) / (items - 1);
		const ours = perItem('ours');
		const httpRequest = perItem('httpRequest');
		const figures = { ours, httpRequest, ratio: ours / httpRequest, items, runs };
		return details ? { ...figures, samples } : figures;
	} finally {
		await instance?.cleanup();
		await sandbox.close();
	}
}
