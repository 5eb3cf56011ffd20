// scripts/progress.mjs: what a long install prints while it runs.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

import { formatBytes, formatDuration, runWithProgress } from '../../../scripts/progress.mjs';

const dir = mkdtempSync(join(tmpdir(), 'voice-messaging-progress-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('runWithProgress', () => {
	it('says what it installs, then the size so far while the command runs, then done', async () => {
		const folder = join(dir, 'installed');
		const marker = join(dir, 'reported');
		/** @type {string[]} */
		const lines = [];
		// The command ends only once a progress line was printed, so no timing decides the test.
		const waitForReport = `mkdir -p "$1" && head -c 2000000 /dev/zero > "$1/file" && echo npm noise && while [ ! -e "$2" ]; do sleep 0.02; done`;
		const code = await runWithProgress(
			'installing a thing',
			'bash',
			['-c', waitForReport, 'bash', folder, marker],
			{
				size: folder,
				intervalMs: 20,
				say: (line) => {
					lines.push(line);
					if (/MB/.test(line) && !existsSync(marker)) writeFileSync(marker, '');
				},
			},
		);
		assert.equal(code, 0);
		assert.equal(lines[0], 'installing a thing…');
		const during = lines.slice(1, -1);
		assert.ok(
			during.some((line) => /^installing a thing… [\d.]+ MB, \d+ s$/.test(line)),
			during.join('\n'),
		);
		assert.match(lines.at(-1) ?? '', /^installing a thing: done, 2\.0 MB, \d+ s$/);
		assert.ok(!lines.some((line) => line.includes('npm noise')), 'the command output is held back');
	});

	it('shows the output of a failed command and resolves to its exit code', async () => {
		/** @type {string[]} */
		const lines = [];
		const code = await runWithProgress(
			'installing a broken thing',
			'bash',
			['-c', 'echo "npm error 404 not found" >&2; exit 3'],
			{ say: (line) => lines.push(line) },
		);
		assert.equal(code, 3);
		assert.match(lines.at(-1) ?? '', /^installing a broken thing failed \(exit 3\)/);
		assert.match(lines.at(-1) ?? '', /npm error 404 not found/);
	});
});

describe('formatting', () => {
	it('sizes in decimal units', () => {
		assert.equal(formatBytes(512_000), '512 kB');
		assert.equal(formatBytes(1_234_000_000), '1.2 GB');
		assert.equal(formatBytes(48_000_000), '48 MB');
	});

	it('durations in seconds, then minutes and seconds', () => {
		assert.equal(formatDuration(45_400), '45 s');
		assert.equal(formatDuration(185_000), '3 min 5 s');
	});
});
