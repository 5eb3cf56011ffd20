// scripts/progress.mjs: what a long install prints while it runs.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

import {
	formatBytes,
	formatDuration,
	npmActivity,
	runWithProgress,
} from '../../../scripts/progress.mjs';

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

describe('what npm is doing (its request lines, --loglevel=http)', () => {
	const lookup = (name) =>
		`npm http fetch GET 200 https://registry.npmjs.org/${name} 12ms (cache miss)\n`;
	const download = (name) =>
		`npm http fetch GET 200 https://registry.npmjs.org/${name}/-/${name}-1.0.0.tgz 30ms (cache miss)\n`;

	it('resolving while it looks packages up, downloading once tarballs come; lines may arrive in pieces', () => {
		const npm = npmActivity();
		assert.equal(npm.describe(), undefined, 'nothing said before npm says anything');
		const two = lookup('a') + lookup('b');
		npm.add(two.slice(0, 30));
		npm.add(two.slice(30));
		npm.add('npm warn deprecated something\n');
		assert.equal(npm.describe(), 'resolving dependencies (2 packages looked up)');
		assert.equal(npm.downloading, false);
		npm.add(download('a') + lookup('c') + download('b'));
		assert.equal(npm.describe(), 'downloading packages (2 fetched)');
		assert.equal(npm.downloading, true);
	});

	it('says the phase while npm resolves (no size: nothing is written yet), then the size', async () => {
		const folder = join(dir, 'npm-like');
		const resolved = join(dir, 'resolved');
		const downloaded = join(dir, 'downloaded');
		/** @type {string[]} */
		const lines = [];
		// Like npm: lookups (nothing written), then tarballs and files; each phase ends only
		// once a progress line described it, so no timing decides the test.
		const npmLike = [
			`printf '%s' "$LOOKUPS" >&2`,
			'while [ ! -e "$2" ]; do sleep 0.02; done',
			'mkdir -p "$1" && head -c 3000000 /dev/zero > "$1/file"',
			`printf '%s' "$DOWNLOADS" >&2`,
			'while [ ! -e "$3" ]; do sleep 0.02; done',
		].join('\n');
		const code = await runWithProgress(
			'installing n8n',
			'bash',
			['-c', npmLike, 'bash', folder, resolved, downloaded],
			{
				size: folder,
				intervalMs: 20,
				env: {
					...process.env,
					LOOKUPS: lookup('n8n') + lookup('express') + lookup('zod'),
					DOWNLOADS: download('n8n'),
				},
				say: (line) => {
					lines.push(line);
					if (/resolving/.test(line)) writeFileSync(resolved, '');
					if (/downloading.*MB/.test(line)) writeFileSync(downloaded, '');
				},
			},
		);
		assert.equal(code, 0);
		assert.ok(
			lines.some((line) =>
				/^installing n8n… resolving dependencies \(3 packages looked up\), \d+ s$/.test(line),
			),
			lines.join('\n'),
		);
		assert.ok(
			lines.some((line) =>
				/^installing n8n… downloading packages \(1 fetched\), 3\.0 MB, \d+ s$/.test(line),
			),
			lines.join('\n'),
		);
		assert.match(
			lines.at(-1) ?? '',
			/^installing n8n: done, downloading packages \(1 fetched\), 3\.0 MB, \d+ s$/,
		);
	});

	it('leaves the request lines out of a failed install’s output', async () => {
		/** @type {string[]} */
		const lines = [];
		const code = await runWithProgress(
			'installing n8n',
			'bash',
			['-c', `printf '%s' "$LOOKUPS" >&2; echo "npm error code ETARGET" >&2; exit 1`],
			{
				env: { ...process.env, LOOKUPS: lookup('n8n').repeat(50) },
				say: (line) => lines.push(line),
			},
		);
		assert.equal(code, 1);
		assert.match(lines.at(-1) ?? '', /npm error code ETARGET/);
		assert.doesNotMatch(lines.at(-1) ?? '', /npm http fetch/);
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
