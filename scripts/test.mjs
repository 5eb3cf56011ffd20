#!/usr/bin/env node
// Runs the test suites with node's own test runner; TypeScript sources load through tsx.
// Usage: node scripts/test.mjs [--with-queue] [suite | path below test/ ...]
//   suites: unit, sandbox, integration, e2e, queue (default: unit, sandbox, integration and e2e,
//   in that order; queue runs only when named). A path (a file or folder below test/, e.g.
//   test/e2e/actions) runs only those files, within the suite it belongs to. --with-queue adds the
//   queue suite. When the e2e and queue suites both run, the queue suite runs beside the e2e
//   files (its cluster is its own; both mostly wait for polls), as CI runs them.
//
// The e2e files share one running n8n per line, started here before them (test/support/n8n.mjs).
// Afterwards a leak check scans everything the suites printed, and the logs of every n8n they
// ran, for the demo clients' secrets and for every token the sandboxes issued: zero hits or
// the run fails.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

import { DEMO_CLIENTS } from '../sandbox/server.mjs';
import { startSharedN8ns } from '../tools/n8nRun.mjs';
import { DEFAULT_N8N_VERSION, N8N_1_VERSION } from '../tools/n8n.mjs';
import { runSetupScript } from '../tools/processes.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const testRoot = join(root, 'test');

function testFiles(dir) {
	let found = [];
	for (const name of readdirSync(dir).sort()) {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) found = found.concat(testFiles(path));
		else if (name.endsWith('.test.mjs')) found.push(relative(root, path));
	}
	return found;
}

const work = mkdtempSync(join(tmpdir(), 'voice-messaging-test-run-'));
const tokenLog = join(work, 'tokens.txt');
const logDir = join(work, 'logs');
const printed = [];

/** Runs `node --test` on `files`; `onOutput(chunk, stream)` gets what it prints. Resolves to its exit code. */
function nodeTest(files, args, extraEnv, onOutput) {
	return new Promise((resolve) => {
		const child = spawn(
			process.execPath,
			['--import', 'tsx', '--test', ...args, '--test-reporter=spec', ...files],
			{
				cwd: root,
				stdio: ['ignore', 'pipe', 'pipe'],
				env: {
					...process.env,
					NODE_ENV: 'test',
					SANDBOX_TOKEN_LOG: tokenLog,
					E2E_LOG_DIR: logDir,
					...extraEnv,
				},
			},
		);
		child.stdout.on('data', (chunk) => onOutput(chunk, process.stdout));
		child.stderr.on('data', (chunk) => onOutput(chunk, process.stderr));
		child.on('close', (code) => resolve(code));
	});
}

/** Runs one suite in one `node --test`, passing its output through and keeping a copy for the leak check. */
function runSuite(files, concurrency, extraEnv = {}) {
	return nodeTest(files, [`--test-concurrency=${concurrency}`], extraEnv, (chunk, stream) => {
		printed.push(chunk);
		stream.write(chunk);
	});
}

/**
 * The summaries of failures of the runs printed whole (node's "failing tests" section, else the
 * tail), printed again at the very end: a long run's log is often read from its end.
 */
const failures = [];

/**
 * Runs `files` in one `node --test` beside other runs and prints its output whole when it ends,
 * under `heading`, so that runs side by side do not interleave. Resolves to its exit code and output.
 */
async function runWhole(heading, files, args, extraEnv) {
	const chunks = [];
	const code = await nodeTest(files, args, extraEnv, (chunk) => chunks.push(chunk));
	const text = Buffer.concat(chunks).toString('utf8');
	printed.push(Buffer.from(text));
	process.stdout.write(`\n## ${heading}\n${text}`);
	if (code !== 0) {
		const recap = text.indexOf('✖ failing tests:');
		failures.push(
			`\n## ${heading} (exit code ${code})\n${recap === -1 ? text.slice(-6000) : text.slice(recap)}`,
		);
	}
	return { code, text };
}

/**
 * Runs each file in a `node --test` of its own, `concurrency` at a time, in the order given (node's
 * runner sorts the files it is given by name). Each file's output is printed whole when it ends,
 * and the suite's totals after the last.
 */
async function runPool(files, concurrency, extraEnv) {
	const queue = [...files];
	const totals = { tests: 0, pass: 0, fail: 0, skipped: 0 };
	const failedFiles = [];
	const lane = async () => {
		for (let file = queue.shift(); file; file = queue.shift()) {
			console.log(`# started ${file}`);
			const { code, text } = await runWhole(file, [file], [], extraEnv);
			for (const key of Object.keys(totals))
				totals[key] += Number(new RegExp(`^ℹ ${key} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
			if (code !== 0) failedFiles.push(file);
		}
	};
	await Promise.all(Array.from({ length: concurrency }, lane));
	const summary = Object.entries(totals).map(([key, count]) => `${key} ${count}`);
	console.log(`\n# totals: ${summary.join(', ')}; failed: ${failedFiles.join(', ') || 'none'}`);
	return failedFiles.length ? 1 : 0;
}

function filesBelow(dir) {
	try {
		return readdirSync(dir).flatMap((name) => {
			const path = join(dir, name);
			return statSync(path).isDirectory() ? filesBelow(path) : [path];
		});
	} catch {
		return [];
	}
}

/** Secrets and tokens found in what the run printed or logged, as "where: what" lines. */
function leaks() {
	let tokens = [];
	try {
		tokens = readFileSync(tokenLog, 'utf8').split('\n').filter(Boolean);
	} catch {
		// no sandbox issued a token in this run
	}
	const secrets = [
		...Object.entries(DEMO_CLIENTS).map(([name, client]) => [
			`client secret of ${name}`,
			client.clientSecret,
		]),
		...tokens.map((token, i) => [`token #${i + 1}`, token]),
	];
	const sources = [['test output', Buffer.concat(printed).toString('utf8')]];
	for (const file of filesBelow(logDir))
		sources.push([relative(work, file), readFileSync(file, 'utf8')]);
	const hits = [];
	for (const [where, text] of sources) {
		for (const [what, value] of secrets) if (text.includes(value)) hits.push(`${where}: ${what}`);
	}
	return {
		hits,
		secrets: secrets.length,
		bytes: sources.reduce((sum, [, text]) => sum + text.length, 0),
	};
}

/**
 * The runs asked for, in order: each suite with its files. A suite name runs its folder; a path
 * runs its files in the suite (test/<suite>/...) it is in.
 */
function selectedRuns(args) {
	const runs = [];
	for (const arg of args.length ? args : ['unit', 'sandbox', 'integration', 'e2e']) {
		const isPath = arg.includes('/') || arg.endsWith('.mjs');
		const path = isPath ? resolve(root, arg) : join(testRoot, arg);
		const suite = relative(testRoot, path).split(sep)[0];
		if (!existsSync(path)) {
			console.error(`no such suite or path: ${arg}`);
			process.exit(1);
		}
		const files = statSync(path).isDirectory() ? testFiles(path) : [relative(root, path)];
		if (files.length === 0) {
			console.error(`no test files in ${relative(root, path)}`);
			process.exit(1);
		}
		const last = runs.at(-1);
		if (last?.suite === suite) last.files.push(...files);
		else runs.push({ suite, files });
	}
	return runs;
}

/**
 * Files run at once per suite. Node's default is one less than the cores: one file at a time on
 * the 2-core machines CI and contributors have. Unit, sandbox and integration files are CPU-bound
 * and short; e2e files spend most of their time waiting for n8n's polls (a minute apart), each in
 * its own workflows, credentials and sandbox, so three overlap their waits. The queue suite is one
 * file holding a cluster of its own.
 */
const CONCURRENCY = { unit: 2, sandbox: 2, integration: 2, e2e: 3, queue: 1 };

/**
 * The e2e files, longest first, so that the short ones fill the other slots at the end instead of
 * long ones running side by side: the restarts (several minutes of polls, n8n started again),
 * then the other polling triggers' files (polls a minute apart), then the rest.
 */
function slowFirst(files) {
	const rank = (file) =>
		/restart/i.test(file) ? 0 : file.includes(`${sep}triggers${sep}`) ? 1 : 2;
	return [...files].sort((a, b) => rank(a) - rank(b));
}

/**
 * What the files of a run install on a machine's first run, besides n8n and its Node (installed
 * when the shared n8ns start, before the e2e files): the installer, and which files need it (a
 * suite, or files whose text matches). Run once here before the files start side by side, so that
 * parallel lanes do not each start an install (two apt-get at once: one fails on dpkg's lock). The
 * installers also wait for each other on a lock (scripts/apt-install.sh, scripts/ensure-*.sh), for
 * a file run on its own or a second checkout on the same machine.
 */
const INSTALLS = [
	{ script: 'ensure-chromium.sh', needed: (suite, text) => /chromium|editorPage/i.test(text) },
	{ script: 'ensure-verdaccio.sh', needed: (suite, text) => /tools\/registry\.mjs/.test(text) },
	{ script: 'ensure-scanner.sh', needed: (suite, text) => /scripts\/scan-package\.mjs/.test(text) },
	{ script: 'ensure-queue-services.sh', needed: (suite) => suite === 'queue' },
];

/**
 * Runs, one after the other, the installers that `runs` need. One that fails (no root for
 * apt-get, say) is reported and the run goes on: the files that need it fail with the same message
 * when they call it, and the others still run.
 * @param {Array<{ suite: string, files: string[] }>} runs
 */
async function installBeforeLanes(runs) {
	const texts = runs.flatMap(({ suite, files }) =>
		files.map((file) => ({ suite, text: readFileSync(join(root, file), 'utf8') })),
	);
	for (const { script, needed } of INSTALLS) {
		if (!texts.some(({ suite, text }) => needed(suite, text))) continue;
		console.log(`# before the files start: scripts/${script}`);
		await runSetupScript(script).catch((error) =>
			console.error(
				`# scripts/${script} failed; the files that need it will fail:\n${error.message}`,
			),
		);
	}
}

const args = process.argv.slice(2);
const runs = selectedRuns(args.filter((arg) => arg !== '--with-queue'));
if (args.includes('--with-queue') && !runs.some((run) => run.suite === 'queue'))
	runs.push(...selectedRuns(['queue']));
/** The queue suite's run, when it goes beside the e2e files. */
const beside = runs.some((run) => run.suite === 'e2e')
	? runs.find((run) => run.suite === 'queue')
	: undefined;

let failed = false;
for (const { suite, files } of runs) {
	if (suite === beside?.suite) continue;
	console.log(`\n# suite: ${suite} (${files.length} files)`);
	// What the files (and the queue suite beside them) install on a first run, before they start.
	if (suite === 'e2e' || suite === 'queue')
		await installBeforeLanes(runs.filter((run) => run.suite === suite || run === beside));
	// The e2e files share one running n8n per line (test/support/n8n.mjs), started here once.
	let shared;
	if (suite === 'e2e') {
		try {
			shared = await startSharedN8ns([DEFAULT_N8N_VERSION, N8N_1_VERSION], logDir);
		} catch (error) {
			console.error(`could not start the e2e run's n8n: ${error.stack ?? error}`);
			failed = true;
			continue;
		}
	}
	/** @type {Promise<{ code: number | null }> | undefined} */
	let besideRun;
	try {
		// Started once the run's tarball exists (the shared n8ns'), which its cluster installs too.
		if (suite === 'e2e' && beside) {
			console.log(`# started the queue suite (${beside.files.length} files) beside the e2e files`);
			besideRun = runWhole(
				'the queue suite',
				beside.files,
				[`--test-concurrency=${CONCURRENCY.queue}`],
				shared?.env,
			);
		}
		const code =
			suite === 'e2e'
				? await runPool(slowFirst(files), CONCURRENCY.e2e, shared?.env)
				: await runSuite(files, CONCURRENCY[suite], shared?.env);
		const besideCode = (await besideRun)?.code ?? 0;
		if (code !== 0 || besideCode !== 0) failed = true;
	} finally {
		// The queue suite ends before the run's tarball goes with the shared n8ns.
		await besideRun?.catch(() => {});
		await shared?.stop();
	}
}
// A long run's log is often read from its end: the failures come again there.
if (failures.length) console.log(`\n# the failing runs' summaries, again${failures.join('')}`);

const check = leaks();
if (check.hits.length) {
	console.error(`\nleak check FAILED: ${check.hits.length} hits\n${check.hits.join('\n')}`);
	failed = true;
} else {
	console.log(
		`\nleak check: ${check.secrets} secrets and tokens, 0 hits in ${check.bytes} characters of output and logs`,
	);
}
rmSync(work, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
