#!/usr/bin/env node
// Runs a long install and says how it goes instead of minutes of silence: a line when it starts,
// the size installed so far (when given a folder) and the time taken every 15 s, and a line when
// it is done. The command's own output (npm's or apt-get's) is held back and shown only when it
// fails. Everything goes to stderr, so a script's stdout (the path it reports) stays clean.
// Used by the scripts/ensure-*.sh installers and scripts/ensure-deps.mjs.
// Usage: node scripts/progress.mjs "installing <what>" [--size <folder>] [--note <text>] -- <command> [args…]
//   --size   the folder whose size is reported
//   --note   added to the first line only (where to, how long)
import { spawn, spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const PROGRESS_INTERVAL_MS = 15_000;
/** How much of a failed command's output is shown. */
const KEPT_OUTPUT_CHARS = 20_000;

/** @param {number} bytes */
export function formatBytes(bytes) {
	const units = ['kB', 'MB', 'GB', 'TB'];
	let value = bytes / 1000;
	let unit = 0;
	while (value >= 1000 && unit < units.length - 1) {
		value /= 1000;
		unit += 1;
	}
	return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** @param {number} ms */
export function formatDuration(ms) {
	const seconds = Math.round(ms / 1000);
	return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** Bytes under `folder` (du), or undefined while it does not exist yet. */
function sizeOf(folder) {
	const du = spawnSync('du', ['-sk', folder], { encoding: 'utf8' });
	const kilobytes = Number.parseInt(du.stdout ?? '', 10);
	return Number.isNaN(kilobytes) ? undefined : kilobytes * 1024;
}

/**
 * Runs `command` and reports on it as described above; resolves to its exit code.
 * @param {string} what what is going on, e.g. "installing n8n 2.41.1"
 * @param {string} command @param {string[]} args
 * @param {{ size?: string, note?: string, cwd?: string, env?: NodeJS.ProcessEnv, intervalMs?: number, say?: (line: string) => void }} [options]
 */
export function runWithProgress(
	what,
	command,
	args,
	{
		size,
		note,
		cwd,
		env,
		intervalMs = PROGRESS_INTERVAL_MS,
		say = (line) => process.stderr.write(`${line}\n`),
	} = {},
) {
	const started = Date.now();
	const sofar = () => {
		const bytes = size === undefined ? undefined : sizeOf(size);
		const elapsed = formatDuration(Date.now() - started);
		return bytes === undefined ? elapsed : `${formatBytes(bytes)}, ${elapsed}`;
	};
	say(`${what}${note ? ` ${note.replaceAll(homedir(), '~')}` : ''}…`);
	return new Promise((resolve) => {
		const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
		let output = '';
		const keep = (chunk) => (output = (output + chunk).slice(-KEPT_OUTPUT_CHARS));
		child.stdout.on('data', keep);
		child.stderr.on('data', keep);
		const timer = setInterval(() => say(`${what}… ${sofar()}`), intervalMs);
		const finish = (code, problem) => {
			clearInterval(timer);
			if (code === 0) say(`${what}: done, ${sofar()}`);
			else say(`${what} failed (${problem}); its last output:\n${output.trimEnd()}`);
			resolve(code);
		};
		child.on('error', (error) => finish(127, error.message));
		child.on('close', (code, signal) => finish(code ?? 1, `exit ${code ?? signal}`));
	});
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const { values, positionals } = parseArgs({
		options: { size: { type: 'string' }, note: { type: 'string' } },
		allowPositionals: true,
	});
	const [what, command, ...args] = positionals;
	if (!what || !command) {
		console.error(
			'usage: node scripts/progress.mjs <what> [--size <folder>] [--note <text>] -- <command> [args…]',
		);
		process.exit(2);
	}
	process.exit(await runWithProgress(what, command, args, values));
}
