#!/usr/bin/env node
// npm run scan: n8n's community package scan (@n8n/scan-community-package) on this package before
// it is published. Builds and packs the package as the tests do (tools/pack.mjs), then runs the
// scanner's two ESLint legs (tools/communityScan.mjs): the repository's node and credential
// sources with package.json, and the packed tarball's .js files with its package.json. Exits 1
// when either leg fails, after the scanner's own report of each failing file and rule (2 when the
// scan could not run). Not checked here: the npm provenance and the downloads of n8n's scan, which
// need a published version (docs/releasing.md).
// Usage: node scripts/scan-package.mjs [--tarball <file.tgz>]
//   --tarball  scan this tarball instead of building and packing one (the tests pass theirs)
import { parseArgs } from 'node:util';

import { scanLegs, scanVerdict, unpackTarball } from '../tools/communityScan.mjs';
import { packPackage, removePack } from '../tools/pack.mjs';
import { removeDir, ROOT } from '../tools/processes.mjs';
import { formatStepTime, withProgress } from './progress.mjs';

const { values } = parseArgs({ options: { tarball: { type: 'string' } } });
// As n8n runs its scan: not as a test run, which changes the rules of one of its ESLint plugins
// (tools/communityScan.mjs scanEnvProblem). The test runner's NODE_ENV reaches this process.
if (process.env.NODE_ENV === 'test') delete process.env.NODE_ENV;

const say = (/** @type {string} */ line) => console.log(line);
/**
 * Runs a step, saying what it does and, when done, the time it took.
 * @template T @param {string} what @param {() => Promise<T>} task @returns {Promise<T>}
 */
async function step(what, task) {
	const { value, elapsed } = await withProgress(what, task, { say });
	say(`${what}: done, ${elapsed}`);
	return value;
}

const started = Date.now();
try {
	const tarball = values.tarball ?? (await step('building and packing the package', packPackage));
	const packageDir = await unpackTarball(tarball);
	try {
		const legs = await step("n8n's community package scan, both legs", () =>
			scanLegs({ sourceDir: ROOT, packageDir }),
		);
		const { passed, text } = scanVerdict(legs);
		say(`@n8n/scan-community-package ${legs.version}, without provenance and download:`);
		say(text);
		say(`scan ${passed ? 'passed' : 'FAILED'}, ${formatStepTime(Date.now() - started)} in all`);
		process.exitCode = passed ? 0 : 1;
	} finally {
		removeDir(packageDir);
	}
} catch (error) {
	console.error(`the scan could not run: ${error instanceof Error ? error.stack : error}`);
	process.exitCode = 2;
} finally {
	await removePack();
}
