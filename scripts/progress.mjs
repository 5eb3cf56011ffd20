#!/usr/bin/env node
// Runs a long install and says how it goes instead of minutes of silence: a line when it starts,
// what it is doing and the time taken every 15 s, and a line when it is done. For npm (run with
// --loglevel=http) that is the phase it is in, read from its requests: resolving the dependencies
// (packages looked up; nothing is written yet, so a size would not move), then downloading
// (packages fetched, and the size installed so far when given a folder); for other commands the
// size so far. The command's own output (npm's or apt-get's) is held back and shown only when it
// fails. Everything goes to stderr, so a script's stdout (the path it reports) stays clean.
// Used by the scripts/ensure-*.sh installers and scripts/ensure-deps.mjs; withProgress does the
// same for a step of a script (npm start).
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

/** A step's time: tenths of a second under 10 s, then as formatDuration. @param {number} ms */
export function formatStepTime(ms) {
	return ms < 9_950 ? `${(ms / 1000).toFixed(1)} s` : formatDuration(ms);
}

/** What npm is doing so far, counted from the request lines it prints with --loglevel=http. */
export function npmActivity() {
	let lookups = 0;
	let downloads = 0;
	let partial = '';
	return {
		/** Feeds the command's output, in chunks as they come. @param {string} chunk */
		add(chunk) {
			const lines = (partial + chunk).split('\n');
			partial = lines.pop() ?? '';
			for (const line of lines) {
				const request = /^npm http fetch \S+ \d+ (\S+)/.exec(line);
				if (!request) continue;
				// Package documents are looked up while resolving; tarballs come once it is done.
				if (request[1].endsWith('.tgz')) downloads += 1;
				else lookups += 1;
			}
		},
		/** The phase in words, or undefined when npm printed no request (or it is not npm). */
		describe() {
			if (downloads > 0) return `downloading packages (${downloads} fetched)`;
			if (lookups > 0) return `resolving dependencies (${lookups} packages looked up)`;
			return undefined;
		},
		get downloading() {
			return downloads > 0;
		},
	};
}

/** Whether a line of a command's output is one of npm's request lines (not worth showing). */
const isRequestLine = (line) => line.startsWith('npm http fetch ');

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
	const npm = npmActivity();
	const sofar = () => {
		// While npm resolves nothing is written yet: a size would not move.
		const bytes =
			size === undefined || (npm.describe() && !npm.downloading) ? undefined : sizeOf(size);
		return [
			npm.describe(),
			bytes === undefined ? undefined : formatBytes(bytes),
			formatDuration(Date.now() - started),
		]
			.filter(Boolean)
			.join(', ');
	};
	say(`${what}${note ? ` ${note.replaceAll(homedir(), '~')}` : ''}…`);
	return new Promise((resolve) => {
		const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
		let output = '';
		const keep = (chunk) => {
			const shown = String(chunk)
				.split('\n')
				.filter((line) => !isRequestLine(line))
				.join('\n');
			output = (output + shown).slice(-KEPT_OUTPUT_CHARS);
		};
		child.stdout.on('data', keep);
		child.stderr.on('data', keep);
		// npm prints its request lines on stderr.
		child.stderr.on('data', (chunk) => npm.add(String(chunk)));
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

/**
 * Runs a step of a script (a promise-returning `task`) and says how it goes: `what…` when it
 * starts, `what… <time>` every `intervalMs` while it runs, and nothing at the end: the caller
 * says what came of it (`elapsed` in words is handed over with the result).
 * @template T
 * @param {string} what @param {() => Promise<T>} task
 * @param {{ intervalMs?: number, say?: (line: string) => void }} [options]
 * @returns {Promise<{ value: T, elapsed: string, ms: number }>}
 */
export async function withProgress(
	what,
	task,
	{ intervalMs = PROGRESS_INTERVAL_MS, say = (line) => process.stderr.write(`${line}\n`) } = {},
) {
	const started = Date.now();
	say(`${what}…`);
	const timer = setInterval(
		() => say(`${what}… ${formatDuration(Date.now() - started)}`),
		intervalMs,
	);
	try {
		const value = await task();
		const ms = Date.now() - started;
		return { value, elapsed: formatStepTime(ms), ms };
	} finally {
		clearInterval(timer);
	}
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
