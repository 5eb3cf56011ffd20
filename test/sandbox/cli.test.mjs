// The sandbox's command line: --help laid out in columns, and what it prints of the sends.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';

import { ALTERNATIVES } from '../../sandbox/alternatives.mjs';
import { HELP_WIDTH, columns, wrap } from '../../sandbox/cli/usage.mjs';
import { DEMO_CLIENTS } from '../../sandbox/server.mjs';
import { ROOT, waitFor } from '../../tools/processes.mjs';
import { apiCall } from '../support/sandboxApi.mjs';

const CLI = 'sandbox/cli.mjs';
/** A flag with its value, or two flags joined by `|`, as option rows begin. */
const FLAG = /^ {2}(--[a-z-]+(?: <[^>]+>)?(?: \| --[a-z-]+(?: <[^>]+>)?)?)(.*)$/;

describe('sandbox CLI', () => {
	test('--help: every flag in its column, its text two spaces after or on the next lines, 80 columns', () => {
		const help = spawnSync(process.execPath, [CLI, '--help'], { cwd: ROOT, encoding: 'utf8' });
		assert.equal(help.status, 0, help.stderr);
		const lines = help.stdout.trimEnd().split('\n');
		const rows = lines.filter((line) => line.startsWith('  --'));
		assert.ok(rows.length > 20, `${rows.length} option rows`);
		for (const row of rows) {
			const [, flag, rest] = FLAG.exec(row) ?? [];
			assert.ok(flag, `an option row that begins with a flag: ${row}`);
			// Either the flag alone (its text below) or at least two spaces before the text.
			assert.match(rest, /^$|^ {2,}\S/, `the flag runs into its text: ${row}`);
		}
		for (const [index, line] of lines.entries()) {
			assert.ok(line.length <= HELP_WIDTH, `line ${index + 1} is ${line.length} long: ${line}`);
			if (!line.startsWith('  --') || FLAG.exec(line)?.[2] !== '') continue;
			assert.match(lines[index + 1], /^ {30}\S/, `the text below ${line.trim()}`);
		}
		for (const spec of Object.values(ALTERNATIVES))
			assert.ok(
				rows.some((row) => row.startsWith(`  --${spec.flag}`)),
				spec.flag,
			);
	});

	test('columns: a long flag puts its text below; words wrap at the width, braces stay with a word', () => {
		const laid = columns([
			['--short', 'a text'],
			['--a-flag-as-long-as-the-column <x>', 'its text'],
		]).split('\n');
		assert.deepEqual(laid, [
			`  --short${' '.repeat(21)}a text`,
			'  --a-flag-as-long-as-the-column <x>',
			`${' '.repeat(30)}its text`,
		]);
		assert.deepEqual(wrap('as { items, total } or { data }', 12), [
			'as { items,',
			'total } or',
			'{ data }',
		]);
		assert.deepEqual(wrap('averyveryverylongword short', 10), ['averyveryverylongword', 'short']);
	});

	test('prints a message sent to a chat in one line, a broadcast with its link below', async (t) => {
		const child = spawn(
			process.execPath,
			[CLI, '--port', '0', '--quiet', '--progress-ms', '0', '--rate-limit', '0'],
			{ cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
		);
		t.after(() => child.kill('SIGTERM'));
		let output = '';
		child.stdout.on('data', (chunk) => (output += chunk));
		// Only the send lines go into messages: the banner shows the demo secrets.
		const sendLines = () => output.split('\n').filter((line) => / sent |^ {4}link: /.test(line));
		await waitFor(() => /listening on (http:\S+)/.test(output), {
			timeoutMs: 10_000,
			intervalMs: 20,
			describe: () => 'the sandbox CLI to listen',
		});
		const sandbox = { url: /listening on (http:\S+)/.exec(output)?.[1] };
		const media = await apiCall(
			sandbox,
			DEMO_CLIENTS.full,
			'POST',
			'/api/v1/messenger/messages/send/media-to-phone',
			{ phone: '+34600555444', url: 'https://example.com/menu.pdf', type: 'document' },
		);
		await apiCall(sandbox, DEMO_CLIENTS.full, 'POST', '/api/v1/messenger/broadcast/messages', {
			channel: 'whatsapp',
			recipients: [{ phone: '+34600555444' }],
			text: 'Approve? https://n8n.example.com/webhook-waiting/1',
		});
		await waitFor(() => sendLines().length >= 3, {
			timeoutMs: 5_000,
			intervalMs: 20,
			describe: () => `the send lines, so far: ${sendLines().join(' | ')}`,
		});
		const lines = sendLines();
		assert.equal(lines.length, 3, lines.join('\n'));
		assert.match(
			lines[0],
			new RegExp(
				`^\\S+ sent ${media.id} by whatsapp to \\+34600555444 in chat ${media.chatId}: document https://example\\.com/menu\\.pdf$`,
			),
		);
		assert.match(lines[1], /^\S+ sent bcm_\w+ by whatsapp to \+34600555444: "Approve\? https:/);
		assert.equal(lines[2], '    link: https://n8n.example.com/webhook-waiting/1');
	});
});
