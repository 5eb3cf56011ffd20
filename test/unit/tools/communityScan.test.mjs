// How `npm run scan` (scripts/scan-package.mjs) judges n8n's community package scan
// (tools/communityScan.mjs): the verdict on the scanner's two legs, what it prints when one fails,
// and the check that the installed scanner still lints as the two legs here do. The scanner
// itself runs in test/e2e/package/scan.e2e.test.mjs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
	loadScanner,
	scanEnvProblem,
	scannerLegProblems,
	scanVerdict,
} from '../../../tools/communityScan.mjs';

const STYLISH = [
	'/tmp/unpacked/dist/nodes/VoiceAi/VoiceAi.node.js',
	'  91:1  error  Unexpected console statement  no-console',
	'',
	'✖ 1 problem (1 error, 0 warnings)',
].join('\n');

describe('the verdict on the scan’s two legs', () => {
	it('passes when both legs pass, a line each', () => {
		const { passed, failed, text } = scanVerdict({
			source: { passed: true },
			tarball: { passed: true },
		});
		assert.equal(passed, true);
		assert.deepEqual(failed, []);
		assert.match(text, /^source leg \(.*\): passed\ntarball leg \(.*\): passed$/);
	});

	it('fails when one leg fails, and prints the scanner’s report of it', () => {
		const { passed, failed, text } = scanVerdict({
			source: { passed: true },
			tarball: { passed: false, message: 'ESLint violations found', details: `\n${STYLISH}\n` },
		});
		assert.equal(passed, false);
		assert.deepEqual(failed, ['tarball']);
		assert.match(text, /^tarball leg \(.*\): FAILED \(ESLint violations found\)$/m);
		assert.ok(text.endsWith(`--- tarball leg ---\n${STYLISH}`), text);
	});

	it('fails when a leg could not run (no details): its message and error', () => {
		const error = new Error('Cannot read properties of undefined (reading ‘Cjs’)');
		const { passed, failed, text } = scanVerdict({
			source: { passed: false, message: `Analysis failed: ${error.message}`, error },
			tarball: { passed: true },
		});
		assert.equal(passed, false);
		assert.deepEqual(failed, ['source']);
		assert.match(text, /^source leg \(.*\): FAILED \(Analysis failed: Cannot read/m);
		assert.ok(text.includes(`--- source leg ---\n${error.stack}`), text);
	});

	it('passes a leg that found no file as the scanner does, and says so', () => {
		const { passed, text } = scanVerdict({
			source: { passed: true },
			tarball: { passed: true, message: 'No files found to analyze' },
		});
		assert.equal(passed, true);
		assert.match(text, /^tarball leg \(.*\): passed \(No files found to analyze\)$/m);
	});

	it('fails on a missing leg: no result is no pass', () => {
		const { passed, failed, text } = scanVerdict({ source: { passed: true } });
		assert.equal(passed, false);
		assert.deepEqual(failed, ['tarball']);
		assert.match(text, /^tarball leg \(.*\): FAILED \(no result\)$/m);
	});
});

describe('the installed scanner lints as the two legs here', () => {
	/** analyzePackageByName as @n8n/scan-community-package 0.32.0 has it (its legs). */
	const scanner = (legs) => `
export const analyzePackage = async (packageDir, filePatterns) => {};
export const analyzePackageByName = async (packageName, version) => {
		const packageDir = await downloadAndExtractPackage(packageName, exactVersion);
		${legs}
		return { packageName };
};`;

	it('0.32.0’s legs: the source with SOURCE_FILE_PATTERNS, the tarball’s .js and package.json', () => {
		const legs = `const sourceResult = await analyzePackage(sourceDir, SOURCE_FILE_PATTERNS);
		const distResult = await analyzePackage(packageDir, ['**/*.js', 'package.json']);`;
		assert.deepEqual(scannerLegProblems(scanner(legs)), []);
	});

	it('a scanner whose legs changed is refused, saying what it runs', () => {
		const legs = `const distResult = await analyzePackage(packageDir, ['**/*.js', '**/*.ts', 'package.json']);`;
		const problems = scannerLegProblems(scanner(legs));
		assert.equal(problems.length, 1);
		assert.match(problems[0], /runs analyzePackage\(packageDir, \['\*\*\/\*\.js', '\*\*\/\*\.ts'/);
		assert.deepEqual(scannerLegProblems('export const analyzePackage = () => {};'), [
			'scanner.mjs has no analyzePackageByName',
		]);
	});
});

describe('the environment the scan runs in', () => {
	it('not NODE_ENV=test (a test run of one of its plugins): refused before anything loads', async () => {
		assert.match(scanEnvProblem({ NODE_ENV: 'test' }) ?? '', /eslint-plugin-n8n-nodes-base/);
		assert.equal(scanEnvProblem({}), undefined);
		assert.equal(scanEnvProblem({ NODE_ENV: 'production' }), undefined);
		// As the test runner (scripts/test.mjs) runs this file: the scanner is not loaded here.
		const before = process.env.NODE_ENV;
		process.env.NODE_ENV = 'test';
		try {
			await assert.rejects(loadScanner(), /the scan cannot run here: NODE_ENV=test/);
		} finally {
			if (before === undefined) delete process.env.NODE_ENV;
			else process.env.NODE_ENV = before;
		}
	});
});
