// n8n's community package scan (@n8n/scan-community-package), as `npm run scan` runs it
// (scripts/scan-package.mjs): the scanner's two ESLint legs on this repository and on the run's
// packed tarball both pass; and the same tarball with a console.log line added to a built file
// fails the tarball leg, naming the file and no-console, with exit code 1, so the scan really
// lints what ships. No n8n: the scanner only (scripts/ensure-scanner.sh installs it once); a few
// seconds each. The npm provenance and the downloads of n8n's own scan are not run here
// (docs/releasing.md).
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

import { cleanupTarball, packedTarball, ROOT, run } from '../harness.mjs';
import { makeTempDir, removeDir } from '../../../tools/processes.mjs';

/** A built file of the package, where the added line goes. */
const BUILT_FILE = 'dist/nodes/VoiceAi/VoiceAi.node.js';

/**
 * `npm run scan` on `tarball`: resolves to its exit code and output. With NODE_ENV=test, as the
 * test runner's environment reaches it (the script unsets it: an ESLint plugin of the scanner
 * checks file names otherwise).
 */
async function scan(tarball) {
	const args = [join(ROOT, 'scripts/scan-package.mjs'), '--tarball', tarball];
	const env = { ...process.env, NODE_ENV: 'test' };
	return run(process.execPath, args, { env, timeoutMs: 120_000 }).then(
		({ stdout, stderr }) => ({ code: 0, output: `${stdout}${stderr}` }),
		(error) => ({ code: error.code, output: `${error.stdout}${error.stderr}` }),
	);
}

describe('n8n’s community package scan', () => {
	const folders = [];
	after(async () => {
		for (const folder of folders) removeDir(folder);
		await cleanupTarball();
	});

	it('passes both legs: the repository’s sources and the packed package', async () => {
		const { code, output } = await scan(await packedTarball());
		assert.equal(code, 0, output);
		assert.match(output, /^source leg \(.*\): passed$/m);
		assert.match(output, /^tarball leg \(.*\): passed$/m);
		assert.match(output, /^scan passed/m);
	});

	it('fails the tarball leg, naming the file and no-console, for a console.log in a built file', async () => {
		const folder = makeTempDir('voice-messaging-scan-test-');
		folders.push(folder);
		const unpacked = join(folder, 'unpacked');
		mkdirSync(unpacked);
		await run('tar', ['-xzf', await packedTarball(), '-C', unpacked]);
		// On a line of its own: the built file ends in a source map comment without a newline.
		appendFileSync(join(unpacked, 'package', BUILT_FILE), "\nconsole.log('scan test');\n");
		const tarball = join(folder, 'logging.tgz');
		await run('tar', ['-czf', tarball, '-C', unpacked, 'package']);

		const { code, output } = await scan(tarball);
		assert.equal(code, 1, output);
		assert.match(output, /^source leg \(.*\): passed$/m);
		assert.match(output, /^tarball leg \(.*\): FAILED \(ESLint violations found\)$/m);
		const report = output.slice(output.indexOf('--- tarball leg ---'));
		assert.ok(report.includes(BUILT_FILE), output);
		assert.match(report, /error\s+Unexpected console statement\s+no-console/);
		assert.match(output, /^scan FAILED/m);
	});
});
