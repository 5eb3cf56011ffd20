// The CLI's --help: every flag in a column of its own, its description beside it and wrapped, so
// no flag runs into its text however long its values are.
import { ALTERNATIVES } from '../alternatives.mjs';

/** The help's width: a terminal's 80 columns. */
export const HELP_WIDTH = 80;
/** Where descriptions start; a longer flag puts its description on the next line. */
const TEXT_COLUMN = 30;

/**
 * `text` in lines of at most `width` characters, broken at spaces (a longer word keeps its line).
 * @param {string} text @param {number} width
 */
export function wrap(text, width) {
	/** @type {string[]} */
	const lines = [];
	/** @type {string[]} */
	const words = [];
	// A brace stays with its neighbour, so no line begins with `}` or ends with `{`.
	for (const word of text.split(/\s+/).filter(Boolean)) {
		const last = words.length - 1;
		if (last >= 0 && (word.startsWith('}') || words[last].endsWith('{'))) words[last] += ` ${word}`;
		else words.push(word);
	}
	let line = '';
	for (const word of words) {
		if (line && line.length + 1 + word.length > width) {
			lines.push(line);
			line = word;
		} else line = line ? `${line} ${word}` : word;
	}
	if (line) lines.push(line);
	return lines;
}

/**
 * Flags and their descriptions in two columns.
 * @param {Array<[flag: string, description: string]>} rows
 */
export function columns(rows) {
	const indent = ' '.repeat(TEXT_COLUMN);
	return rows
		.flatMap(([flag, description]) => {
			const text = wrap(description, HELP_WIDTH - TEXT_COLUMN).map((line) => indent + line);
			const head = `  ${flag}`;
			// Two spaces at least between a flag and its text; else the text starts below.
			if (head.length + 2 > TEXT_COLUMN) return [head, ...text];
			return [head.padEnd(TEXT_COLUMN) + (text[0] ?? '').trimStart(), ...text.slice(1)];
		})
		.join('\n');
}

/** A paragraph wrapped to the help's width. @param {string} text */
const paragraph = (text) => wrap(text, HELP_WIDTH).join('\n');

/**
 * The text of --help.
 * @param {Record<string, readonly [env: string, option: string, fallback: number]>} numericFlags
 */
export function usage(numericFlags) {
	const alternatives = Object.values(ALTERNATIVES).map((spec) => {
		const value =
			spec.kind === 'boolean' ? '' : spec.values ? ` <${spec.values.join('|')}>` : ' <n>';
		return /** @type {[string, string]} */ ([
			`--${spec.flag}${value}`,
			`${spec.says} (default ${spec.default})`,
		]);
	});
	return `Usage: node sandbox/cli.mjs [options]   (or: npm run sandbox -- [options])

Starts the local Integration API sandbox (in memory; data resets on restart).

Options (environment variable in brackets):
${columns([
	['--host <address>', 'listen address, default 127.0.0.1 [SANDBOX_HOST]'],
	...Object.entries(numericFlags).map(
		([flag, [env, , fallback]]) =>
			/** @type {[string, string]} */ ([`--${flag} <n>`, `default ${fallback} [${env}]`]),
	),
	[
		'--faults <json>',
		`inject faults (rates from 0 to 1), e.g. '{"serverErrorRate":0.05, "rateLimitRate":0.1, "retryAfter":false, "tokenExpiryRate":0.02, "slowRate":0.05, "slowMs":500, "resetRate":0.02, "malformedJsonRate":0.02, "seed":1}' [SANDBOX_FAULTS]`,
	],
	[
		'--count-refused',
		"refused requests take a place in the rate limit's window too [SANDBOX_COUNT_REFUSED=1]",
	],
	['--quiet', 'do not print each request'],
	['--help', 'show this text'],
])}

${paragraph("Where the API's description is silent, other answers the real API could give (default: docs/api.md):")}
${columns(alternatives)}

${paragraph('Make a customer write to a running sandbox (the one at --host/--port) instead of starting one:')}
${columns([
	['--write', 'inbound WhatsApp messages from the demo customer (the first chat)'],
	['--text <text>', 'what the customer writes (default: a sample text; the caption of media)'],
	[
		'--chat <id> | --phone <p>',
		'write in that chat, or as that phone (opens a chat when it has none)',
	],
	['--count <n>', 'that many messages (default 1, at most 1000), 1 ms apart'],
	['--type <type>', 'text (default), image, video, audio, document or location'],
	['--at <ISO date>', 'createdAt of the first message (default now)'],
	['--same-time', 'every message gets the same createdAt'],
])}

${paragraph('Every message the sandbox is asked to send is printed (even with --quiet): a broadcast (text or template, Send and Wait for Response) with each link in it on a line of its own, to open and answer; a message to a chat or phone (media, file, location) in one line.')}

${paragraph('--progress-ms 0 stops campaigns and broadcast messages from progressing on their own; --rate-limit 0 and --token-rate-limit 0 disable the limits.')}

${paragraph('Call campaigns: --call-campaigns of them are kept running, each of --call-numbers numbers called two at a time; at every step (--call-step-ms) the calls on a line end (answered, no_answer, busy or failed), some are retried two steps later, and the next numbers are called. --call-step-ms 0 stops them.')}`;
}
