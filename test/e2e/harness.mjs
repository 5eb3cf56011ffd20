// The e2e suites' own helpers: which n8n line a suite file runs on (and which of its tests), the
// run data of an execution, and workflow and credential records. Installing and running n8n,
// packing the package and Chromium are dev tools (tools/), re-exported here for the suites, and
// so is the n8n every e2e file uses (test/support/n8n.mjs: useN8n, useSandboxAndN8n, OWNER).
import { join } from 'node:path';
import { it as nodeTestIt } from 'node:test';
import { pathToFileURL } from 'node:url';

import { DEFAULT_N8N_VERSION } from '../../tools/n8n.mjs';
import { removePack } from '../../tools/pack.mjs';
import { ROOT } from '../../tools/processes.mjs';

export * from '../../tools/chromium.mjs';
export * from '../../tools/n8n.mjs';
export * from '../../tools/n8nRest.mjs';
export { packPackage } from '../../tools/pack.mjs';
export { ROOT, freePort, run, runSetupScript, sleep, waitFor } from '../../tools/processes.mjs';
export * from '../../tools/runData.mjs';
export { median } from '../../tools/stats.mjs';
export * from '../../tools/workflows.mjs';
export * from '../support/n8n.mjs';

/**
 * Which n8n version a suite file runs on, and which of its tests. Run directly (`npm test` runs
 * each file in its own process) a file gets DEFAULT_N8N_VERSION and all its tests, exactly as
 * before. `importSuite` (the e2e files named n8n1) imports a file with another version and,
 * optionally, a subset of its tests, or with `env`: on an n8n of its own started with that
 * environment; a file is a module, so it registers its suite once per process.
 * @typedef {{ version: string, only?: string[], env?: NodeJS.ProcessEnv, registered: Set<string> }} SuiteImport
 * @type {SuiteImport | undefined}
 */
let suiteImport;
/** Suite files imported into this process: they share one tarball (see cleanupPack). */
let importedSuites = 0;

/**
 * Called once at the top of a suite file: the n8n version to run on, the environment of an n8n of
 * the suite's own (undefined: the run's n8n), the suite's title for it and the `it` to register
 * tests with (node:test's own, or one that marks tests outside the chosen subset as skipped, with
 * the reason).
 * @param {string} title the suite's title on the default version
 * @returns {{ version: string, env?: NodeJS.ProcessEnv, title: string, it: typeof nodeTestIt }}
 */
export function suiteOptions(title) {
	const current = suiteImport;
	if (!current) return { version: DEFAULT_N8N_VERSION, title, it: nodeTestIt };
	const { version, only, env, registered } = current;
	/** @type {typeof nodeTestIt} */
	const it = (name, options, fn) => {
		if (typeof options === 'function') [options, fn] = [{}, options];
		registered.add(name);
		const skip = only && !only.includes(name) && `not in the subset run on n8n ${version}`;
		return nodeTestIt(name, skip ? { ...options, skip } : options, fn);
	};
	const subset = only ? ', subset' : '';
	const own = env ? `, own n8n with ${Object.keys(env).join(', ')}` : '';
	return { version, env, title: `${title} (n8n ${version}${subset}${own})`, it };
}

/**
 * Registers the suite of another test file with another n8n version (and optionally only the
 * tests named in `only`; the others show as skipped), or with `env`, for a suite that passes it on
 * (suiteOptions) to an n8n of its own. Fails when a name in `only` matches no test, so renaming a
 * test cannot silently drop it from the subset.
 * @param {string} file a test file below this folder, e.g. 'actions/voiceAi.e2e.test.mjs'
 * @param {{ version: string, only?: string[], env?: NodeJS.ProcessEnv }} options
 */
export async function importSuite(file, { version, only, env }) {
	if (suiteImport) throw new Error('importSuite: one suite file at a time');
	suiteImport = { version, only, env, registered: new Set() };
	importedSuites++;
	try {
		await import(pathToFileURL(join(ROOT, 'test', 'e2e', file)).href);
		const { registered } = suiteImport;
		if (registered.size === 0) {
			throw new Error(`${file} registered no tests: already imported, or no suiteOptions() call`);
		}
		const unknown = (only ?? []).filter((name) => !registered.has(name));
		if (unknown.length) throw new Error(`${file} has no tests named ${JSON.stringify(unknown)}`);
	} finally {
		suiteImport = undefined;
	}
}

/**
 * What a polling suite prints when a wait runs out: the last requests the sandbox saw and the
 * tail of n8n's output.
 * @param {{ log: Array<Record<string, unknown>> }} sandbox
 * @param {{ output(): string } | undefined} server
 */
export function pollDiagnostics(sandbox, server, entries = 20) {
	const requests = sandbox.log
		.slice(-entries)
		.map(
			(e) => `${e.at} ${e.clientId} ${e.method} ${e.path} ${JSON.stringify(e.query)} → ${e.status}`,
		)
		.join('\n');
	return `\n--- sandbox log (tail) ---\n${requests}\n--- n8n output (tail) ---\n${server?.output().slice(-4000)}`;
}

/** Removes the packed tarball's folder (call once at the end of a file). */
export function cleanupPack() {
	// Suites imported through importSuite run one after another in one process: they keep the one
	// tarball (no second build); the process's exit handler removes it.
	if (importedSuites > 0) return;
	return removePack();
}
