#!/usr/bin/env node
// npm run bench: figures measured in one run against the sandbox on loopback, each with what
// it is compared against. Not a test: it never fails on a timing.
import { arch, cpus, totalmem } from 'node:os';

import { measureUploadMemory } from './uploadMemory.mjs';

const rows = [];
const add = (name, value, goal, note = '') => rows.push({ name, value, goal, note });

const upload = await measureUploadMemory();
add(
	'Send Media File, 20 MiB: peak extra Buffer memory / file size',
	upload.peakBufferRatio.toFixed(2),
	'< 3.0',
	'file bytes + multipart body; the file itself counts as 1.0',
);
add('Send Media File, 20 MiB: peak extra RSS / file size', upload.peakRssRatio.toFixed(2), '< 3.0', 'whole process');

const width = Math.max(...rows.map((r) => r.name.length));
process.stdout.write(`machine: ${cpus().length} × ${cpus()[0]?.model ?? arch()}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}\n\n`);
process.stdout.write(`${'measure'.padEnd(width)}  value   goal    note\n`);
for (const row of rows) {
	process.stdout.write(`${row.name.padEnd(width)}  ${String(row.value).padEnd(6)}  ${row.goal.padEnd(6)}  ${row.note}\n`);
}
