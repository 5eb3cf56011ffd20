// n8n's community package scan (@n8n/scan-community-package, installed once into the cache by
// scripts/ensure-scanner.sh) on this repository and on a packed tarball. n8n's own scan
// (analyzePackageByName) checks the package's npm provenance, downloads the published tarball and
// the source its provenance names, then lints both with ESLint: the source's node and credential
// files and package.json, and the tarball's .js files and package.json. Here the same two legs,
// with the scanner's own analyzePackage and rules, run on the working tree and on `npm pack`'s
// output; the provenance check and the downloads are the real scan's, at publish time.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { makeTempDir, ROOT, run, runSetupScript } from './processes.mjs';

/** The scanner's module inside the folder scripts/ensure-scanner.sh installs it in. */
const SCANNER_MODULE = 'node_modules/@n8n/scan-community-package/scanner/scanner.mjs';

/**
 * The legs of the scanner's analyzePackageByName, in its order: the folder each lints (its
 * variable there) and the file patterns it passes (the name of the scanner's export that holds
 * them, or the patterns themselves). scanLegs runs these; a scanner whose legs differ is refused
 * (scannerLegProblems) rather than imitated wrongly.
 * @type {Array<{ name: 'source' | 'tarball', folder: string, patterns: string | string[] }>}
 */
export const LEGS = [
	{ name: 'source', folder: 'sourceDir', patterns: 'SOURCE_FILE_PATTERNS' },
	{ name: 'tarball', folder: 'packageDir', patterns: ['**/*.js', 'package.json'] },
];

/** A leg's patterns as the scanner's source writes them. @param {string | string[]} patterns */
const patternsText = (patterns) =>
	typeof patterns === 'string' ? patterns : `[${patterns.map((p) => `'${p}'`).join(', ')}]`;

/**
 * Why the scanner's analyzePackageByName does not lint as LEGS says, one line each (none: it
 * does). @param {string} scannerSource the text of scanner.mjs
 */
export function scannerLegProblems(scannerSource) {
	const body = /analyzePackageByName\s*=[^]*$/.exec(scannerSource)?.[0];
	if (!body) return ['scanner.mjs has no analyzePackageByName'];
	const calls = [...body.matchAll(/analyzePackage\((\w+),\s*([^)]*?)\s*\)/g)].map(
		([, folder, patterns]) => ({ folder, patterns }),
	);
	const expected = LEGS.map(({ folder, patterns }) => ({
		folder,
		patterns: patternsText(patterns),
	}));
	if (JSON.stringify(calls) === JSON.stringify(expected)) return [];
	const show = (list) => list.map((c) => `analyzePackage(${c.folder}, ${c.patterns})`).join('; ');
	return [`analyzePackageByName runs ${show(calls) || 'no analyzePackage'}, not ${show(expected)}`];
}

/** The folder the scanner is installed in (installed the first time). */
export async function ensureScanner() {
	return (await runSetupScript('ensure-scanner.sh')).split('\n').pop();
}

/**
 * Why the scanner cannot give n8n's verdict in this process, or undefined. Under NODE_ENV=test
 * (the test runner sets it) eslint-plugin-n8n-nodes-base takes itself for its own test run and
 * checks file names against its fixtures': the source leg then fails every node file (read when
 * the plugin loads, so it must be unset before the first scan of a process).
 * @param {NodeJS.ProcessEnv} env
 */
export function scanEnvProblem(env) {
	if (env.NODE_ENV === 'test') {
		return 'NODE_ENV=test: eslint-plugin-n8n-nodes-base would check the files as its own test fixtures (scripts/scan-package.mjs unsets it)';
	}
}

/**
 * The scanner's module: its version, analyzePackage and SOURCE_FILE_PATTERNS. Throws when its
 * analyzePackageByName lints otherwise than LEGS, or when this process's environment would change
 * its rules (scanEnvProblem).
 */
export async function loadScanner() {
	const envProblem = scanEnvProblem(process.env);
	if (envProblem) throw new Error(`the scan cannot run here: ${envProblem}`);
	const home = await ensureScanner();
	const file = join(home, SCANNER_MODULE);
	const problems = scannerLegProblems(readFileSync(file, 'utf8'));
	if (problems.length) throw new Error(`${file}: ${problems.join('; ')}; update LEGS`);
	const scanner = await import(pathToFileURL(file).href);
	const require = createRequire(file);
	// The scanner makes a temporary folder when loaded (for its downloads) and leaves it behind
	// unless asked: removed when this process exits.
	require('tmp').setGracefulCleanup();
	const { version } = require('../package.json');
	return { version, ...scanner };
}

/**
 * Unpacks `tarball` into a new temporary folder as the scanner does (tar, the first path
 * component dropped) and resolves to that folder.
 * @param {string} tarball
 */
export async function unpackTarball(tarball) {
	const folder = makeTempDir('voice-messaging-scan-');
	await run('tar', ['-xzf', tarball, '-C', folder, '--strip-components=1']);
	return folder;
}

/**
 * @typedef {{ passed: boolean, message?: string, details?: string, error?: unknown }} LegResult
 *   what the scanner's analyzePackage resolves to
 */

/**
 * Runs both legs: the source leg on `sourceDir` (the repository, by default), the tarball leg on
 * `packageDir` (an unpacked tarball). Resolves to the scanner's version and each leg's result.
 * @param {{ sourceDir?: string, packageDir: string }} folders
 * @returns {Promise<{ version: string, source: LegResult, tarball: LegResult }>}
 */
export async function scanLegs({ sourceDir = ROOT, packageDir }) {
	const scanner = await loadScanner();
	const folders = { source: sourceDir, tarball: packageDir };
	const results = {};
	for (const { name, patterns } of LEGS) {
		const files = typeof patterns === 'string' ? scanner[patterns] : patterns;
		// Without patterns analyzePackage would lint its defaults: another scan than n8n's.
		if (!Array.isArray(files)) throw new Error(`the scanner exports no ${patterns}`);
		results[name] = await scanner.analyzePackage(folders[name], files);
	}
	return { version: scanner.version, source: results.source, tarball: results.tarball };
}

/** What each leg lints, in words. */
const LINTS = {
	source: 'nodes/, credentials/ and package.json of the repository',
	tarball: 'every .js file and package.json of the packed package',
};

/**
 * The verdict on both legs, as analyzePackageByName gives it (passed when both passed), and the
 * text to print: a line per leg, then the scanner's formatted details (ESLint's stylish output,
 * each failing file with its rule) or, when a leg could not run, its message and error.
 * @param {{ source: LegResult, tarball: LegResult }} legs
 * @returns {{ passed: boolean, failed: string[], text: string }}
 */
export function scanVerdict(legs) {
	const failed = LEGS.map(({ name }) => name).filter((name) => !legs[name]?.passed);
	const lines = LEGS.map(({ name }) => {
		const result = legs[name];
		// A leg passes with a message too: "No files found to analyze", said so.
		const outcome = result?.passed
			? `passed${result.message ? ` (${result.message})` : ''}`
			: `FAILED (${result?.message ?? 'no result'})`;
		return `${name} leg (${LINTS[name]}): ${outcome}`;
	});
	for (const name of failed) {
		const result = legs[name];
		const error = result?.error;
		const shown =
			result?.details?.trim() ||
			(error instanceof Error ? (error.stack ?? error.message) : error && String(error));
		if (shown) lines.push('', `--- ${name} leg ---`, shown);
	}
	return { passed: failed.length === 0, failed, text: lines.join('\n') };
}
