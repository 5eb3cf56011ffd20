// What the README, the docs/ pages it links, CONTRIBUTING.md and sandbox/README.md say that the
// code and the repository's files can hold them to: the upload types and Download Media's limits
// (docs/messenger.md), Send and Wait for Response (docs/messenger.md), the pacing rule
// (docs/limits-and-scaling.md), the sandbox's alternative answers (docs/api.md), and the Node.js
// and n8n versions (CONTRIBUTING.md, docs/testing.md, the README); and that CONTRIBUTING.md's map
// matches the repository. A change to one side without the other fails here.
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { Messenger } from '../../nodes/Messenger/Messenger.node.ts';
import {
	ALLOWED_UPLOAD_MIME_PREFIXES,
	UPLOAD_DOCUMENT_EXTENSIONS,
} from '../../nodes/Messenger/actions/message/media.ts';
import { DEFAULT_LABELS } from '../../nodes/Messenger/sendAndWait/properties.ts';
import { DEFAULT_MAX_FILE_SIZE_MIB } from '../../nodes/shared/download.ts';
import { LIVE_LOOP } from '../../nodes/Messenger/trigger/liveLoop.ts';
import { ChatSchedule, LIVE_SCHEDULE } from '../../nodes/Messenger/trigger/liveSchedule.ts';
import { MAX_REDIRECTS } from '../../nodes/shared/fileTransport.ts';
import { MAX_FILE_SIZE_LIMIT_MIB } from '../../nodes/shared/mediaFiles.ts';
import { ADAPTIVE_RULE } from '../../nodes/shared/pacing.ts';
import { POLL_BUDGET } from '../../nodes/shared/pollClock.ts';
import { ENDED_CAMPAIGN_READS } from '../../nodes/VoiceAi/trigger/callFinishedDescription.ts';
import { QUIET_SHARE } from '../../nodes/VoiceAi/trigger/callReads.ts';
import { MAX_UNDECIDED, calledAtSettings } from '../../nodes/VoiceAi/trigger/calledAt.ts';
import { STATE_BITS } from '../../nodes/VoiceAi/trigger/callState.ts';
import { retrySettings } from '../../nodes/shared/transport.ts';
import { ALTERNATIVES } from '../../sandbox/alternatives.mjs';
import { devNodeMajor, n8nLineNodeRule, readRepoFile } from '../support/unit.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const README = readRepoFile('README.md');
const CONTRIBUTING = readRepoFile('CONTRIBUTING.md');
const MESSENGER_DOC = readRepoFile('docs/messenger.md');
const LIMITS_DOC = readRepoFile('docs/limits-and-scaling.md');
const API_DOC = readRepoFile('docs/api.md');
const TESTING_DOC = readRepoFile('docs/testing.md');
const TRIGGERS_DOC = readRepoFile('docs/triggers.md');
const TROUBLESHOOTING_DOC = readRepoFile('docs/troubleshooting.md');
const messenger = new Messenger();

/** A `## ` section of a Markdown page, up to the next `## ` heading. */
function section(markdown, heading) {
	const start = markdown.indexOf(`\n## ${heading}\n`);
	assert.notEqual(start, -1, `no section "## ${heading}"`);
	const end = markdown.indexOf('\n## ', start + 1);
	return markdown.slice(start, end === -1 ? undefined : end);
}

describe('docs/messenger.md lists the upload types the node allows', () => {
	it('names every allowed type, and no other, in the Send Media File paragraph', () => {
		const paragraph = /\*\*Send Media File\*\* uploads[^]*?stops\s+the\s+item/.exec(
			MESSENGER_DOC,
		)?.[0];
		assert.ok(paragraph, 'docs/messenger.md has the Send Media File paragraph');
		const named = new Set([...paragraph.matchAll(/`([^`]+)`/g)].map((match) => match[1]));
		const prefixes = [...named].filter((token) => token.endsWith('/*'));
		const extensions = [...named].filter((token) => token.startsWith('.'));
		assert.deepEqual(
			prefixes.map((token) => token.slice(0, -1)).sort(),
			[...ALLOWED_UPLOAD_MIME_PREFIXES].sort(),
		);
		assert.deepEqual(extensions.sort(), Object.values(UPLOAD_DOCUMENT_EXTENSIONS).sort());
	});
});

describe("docs/messenger.md states Download Media's limits as the code has them", () => {
	it('names the default and largest Max File Size and the most redirects followed', () => {
		const limits = section(MESSENGER_DOC, 'Download Media').replace(/\s+/g, ' ');
		assert.ok(
			limits.includes(
				`**Max File Size (MiB)**: default ${DEFAULT_MAX_FILE_SIZE_MIB}, at most ${MAX_FILE_SIZE_LIMIT_MIB}.`,
			),
		);
		assert.ok(limits.includes(`followed one request each, at most ${MAX_REDIRECTS};`));
	});
});

describe('docs/messenger.md describes Send and Wait for Response as the node has it', () => {
	it('names every response type and form field type, and the default link label', () => {
		const sendAndWait = section(MESSENGER_DOC, 'Send and Wait for Response');
		const own = messenger.description.properties.filter((p) =>
			p.displayOptions?.show?.operation?.includes('sendAndWait'),
		);
		const names = (parameter) =>
			own.find((p) => p.name === parameter).options.map((o) => o.name.toLowerCase());
		for (const name of names('responseType')) {
			assert.ok(sendAndWait.toLowerCase().includes(name), name);
		}
		const fieldTypes = own
			.find((p) => p.name === 'formFields')
			.options[0].values.find((v) => v.name === 'fieldType')
			.options.map((o) => o.name.toLowerCase());
		assert.equal(fieldTypes.length, 6);
		for (const type of fieldTypes) assert.ok(sendAndWait.toLowerCase().includes(type), type);
		assert.ok(sendAndWait.includes(`\`${DEFAULT_LABELS.link}: https://…\``));
	});
});

describe('docs/limits-and-scaling.md states the pacing rule', () => {
	it("states the adaptive rule's numbers as the pacer has them", () => {
		const oneLine = LIMITS_DOC.replace(/\s+/g, ' ');
		const { cutShare, steadyWindows, pauseJitterShare } = ADAPTIVE_RULE;
		const words = { 1: 'one', 2: 'two', 3: 'three' };
		for (const phrase of [
			`cuts its rate to ${cutShare.min * 100}–${cutShare.max * 100} % of what it sent in the last window`,
			`by one request a window for ${words[steadyWindows]} windows`,
			`a cut drawn from ${cutShare.min * 100}–${cutShare.max * 100} %, pauses spread by up to ${pauseJitterShare * 100} %`,
		]) {
			assert.ok(oneLine.includes(phrase), `docs/limits-and-scaling.md: "${phrase}"`);
		}
	});
});

describe('the time a poll may take, and the retries within it, as the code has them', () => {
	const seconds = (ms) => `${ms / 1000} seconds`;
	const words = ['', '', 'twice', '3 times', '4 times', '5 times', '6 times'];
	it('docs/triggers.md: the budget, the share of the interval, the 2-minute request timeout, the retries', () => {
		const part = section(TRIGGERS_DOC, 'Poll time, budget and failures');
		assert.match(
			part,
			new RegExp(`shorter of what n8n gives it and ${seconds(POLL_BUDGET.maxMs)}`),
		);
		assert.equal(POLL_BUDGET.intervalShare, 0.75, 'the page says "three quarters"');
		assert.match(part, /three\s+quarters of the poll interval/);
		assert.match(
			part,
			new RegExp(`no answer for ${retrySettings.requestTimeoutMs / 60_000} minutes`),
		);
		assert.match(part, new RegExp(`a GET up to\\s+${words[retrySettings.transientAttempts]}`));
		assert.match(part, new RegExp(`a 429 up to ${words[retrySettings.rateLimitAttempts]}`));
	});
	it('the README and docs/troubleshooting.md: at most the same 40 seconds', () => {
		const budget = POLL_BUDGET.maxMs / 1000;
		assert.match(README, new RegExp(`A poll takes at most ${budget} seconds`));
		assert.match(README, new RegExp(`end of its time budget \\(${budget} s\\)`));
		assert.match(TROUBLESHOOTING_DOC, new RegExp(`\\(at most ${budget} s\\)`));
		assert.match(
			LIMITS_DOC,
			new RegExp(`no answer for ${retrySettings.requestTimeoutMs / 60_000} minutes`),
		);
	});
});

describe('docs/api.md and the sandbox README list every alternative the sandbox offers', () => {
	it('each flag with its values, and the list of tested outcomes names each flag', () => {
		const tested = section(API_DOC, 'Tested against other answers');
		const sandboxReadme = readRepoFile('sandbox/README.md');
		for (const [option, spec] of Object.entries(ALTERNATIVES)) {
			assert.ok(sandboxReadme.includes(`\`${option}\` (\`--${spec.flag}\`)`), option);
			for (const value of spec.values ?? []) {
				assert.ok(sandboxReadme.includes(`\`${value}\``), `${option}: ${value}`);
			}
			if (option === 'opaqueToken' || option === 'ignoreStatusFilter') {
				assert.ok(tested.includes(`\`--${spec.flag}`), option);
				continue;
			}
			for (const value of spec.values ?? [20]) {
				if (value === spec.default) continue;
				assert.ok(tested.includes(`--${spec.flag} ${value}`), `${option} ${value}`);
			}
		}
	});
});

describe('the Node.js and n8n versions the docs name', () => {
	const required = devNodeMajor();
	const rule = n8nLineNodeRule();
	const tested = [...TESTING_DOC.matchAll(/^\| (\d+\.[\d.]+) +\| (\d+) +\|/gm)];

	it('is the dev tools’ Node that CONTRIBUTING.md names for a fresh clone, and the README too', () => {
		const setUp = /On a fresh clone[^]*?Node\.js (\d+)/.exec(CONTRIBUTING);
		assert.equal(Number(setUp?.[1]), required);
		const develop = /## Develop\n[^]*?fetch Node\.js (\d+)/.exec(README);
		assert.equal(Number(develop?.[1]), required);
	});

	it('are the n8n versions the tests install, in docs/testing.md’s table and the README', () => {
		const tools = readRepoFile('tools/n8n.mjs');
		const installed = [
			/DEFAULT_N8N_VERSION = process\.env\.N8N_VERSION \|\| '([\d.]+)'/.exec(tools)?.[1],
			/N8N_1_VERSION = '([\d.]+)'/.exec(tools)?.[1],
		];
		assert.deepEqual(
			tested.map(([, version]) => version),
			installed,
		);
		const intro = README.slice(0, README.indexOf('\n## ')).replace(/\s+/g, ' ');
		assert.ok(intro.includes(`tested on ${installed[0]} and ${installed[1]}`), 'README intro');
	});

	it('is the Node each line runs on in docs/testing.md’s Tested n8n versions table', () => {
		const rows = tested.map(([, version, node]) => [version.split('.')[0], node]);
		assert.deepEqual(
			rows.map(([major, node]) => [major, Number(node)]),
			[
				['2', rule?.[2] && Number(rule[2])],
				['1', rule?.[1] && Number(rule[1])],
			],
		);
	});
});

describe('CONTRIBUTING.md maps the repository as it is', () => {
	const CONTRIBUTING = readRepoFile('CONTRIBUTING.md');
	const layout = /## Layout\n+```\n([^]*?)```/.exec(CONTRIBUTING)?.[1] ?? '';

	it('names every top-level folder and test/ folder, and only ones that exist', () => {
		const named = [...layout.matchAll(/^(\S+\/)/gm)].map((match) => match[1]);
		assert.ok(named.length > 10, 'the Layout block lists the folders');
		for (const folder of named) assert.ok(existsSync(join(root, folder)), `${folder} exists`);
		const tracked = (dir) =>
			readdirSync(join(root, dir), { withFileTypes: true })
				.filter((entry) => entry.isDirectory() && !/^(\.|node_modules$|dist$)/.test(entry.name))
				.map((entry) => `${dir}${entry.name}/`);
		for (const folder of [...tracked(''), ...tracked('test/')]) {
			if (folder === 'nodes/' || folder === 'test/') continue;
			assert.ok(named.includes(folder), `CONTRIBUTING.md's Layout names ${folder}`);
		}
	});

	it('cites only files that exist', () => {
		const cited = [...CONTRIBUTING.matchAll(/`((?:[\w.-]+\/)+[\w.-]+\.\w+)`/g)]
			.map((match) => match[1])
			.filter((path) => !path.includes('<'));
		assert.ok(cited.length > 10, 'the guide cites files');
		for (const path of cited) {
			const candidates = [path, `nodes/${path}`, `nodes/shared/${path}`, `nodes/VoiceAi/${path}`];
			assert.ok(
				candidates.some((candidate) => existsSync(join(root, candidate))),
				`${path} exists`,
			);
		}
	});
});

describe('Call Finished as docs/triggers.md tells it, held to the code', () => {
	it('the reads after a campaign ended, and the bytes a record takes', () => {
		const part = section(TRIGGERS_DOC, 'Voice AI Trigger');
		assert.match(part, new RegExp(`at most ${ENDED_CAMPAIGN_READS} reads after the end`));
		assert.match(part, new RegExp(`still \`calling\` ${ENDED_CAMPAIGN_READS} reads after`));
		assert.match(part, new RegExp(`its number's exact key and ${STATE_BITS} bits of state`));
	});

	it('the share kept for quiet campaigns, and the rules that tell what calledAt stamps', () => {
		const part = section(TRIGGERS_DOC, 'Voice AI Trigger');
		const text = part.replace(/\s+/g, ' ');
		assert.equal(QUIET_SHARE, 4, 'the docs say "a quarter"');
		assert.match(text, /A quarter of the setting \(at least 1\) is kept for the quiet campaigns/);
		assert.ok(text.includes(`(_Data Requests per Poll_ / ${QUIET_SHARE}) polls`));
		assert.ok(text.includes(`Times within ${calledAtSettings.clockSlackMs / 1000} s`));
		assert.ok(
			text.includes(`(${MAX_UNDECIDED.toLocaleString('en-US')} at most, the oldest dropped)`),
		);
	});
});

describe('The Messenger Live Trigger as docs/triggers.md tells it, held to the code', () => {
	it("the schedule's numbers, and its example worked out by the schedule", () => {
		const text = section(TRIGGERS_DOC, 'Messenger Trigger').replace(/\s+/g, ' ');
		const s = (ms) => `${ms / 1000} s`;
		assert.ok(text.includes(`changed in the last ${s(LIVE_SCHEDULE.activeSpanMs)}`));
		assert.ok(text.includes(`read ${LIVE_SCHEDULE.quietRatio} times less often`));
		assert.ok(text.includes(`at most every ${s(LIVE_SCHEDULE.activeGapMs)}`));
		assert.ok(text.includes(`a quiet one every ${s(LIVE_SCHEDULE.quietGapMs.min)})`));
		assert.ok(text.includes(`at least every ${s(LIVE_SCHEDULE.quietGapMs.max)}`));
		assert.ok(text.includes(`the activation's time (${s(LIVE_LOOP.activationBudgetMs)})`));
		const { backoffMs } = LIVE_SCHEDULE;
		assert.ok(text.includes(`read again after ${s(backoffMs.min)}, then`));
		assert.ok(text.includes(`up to ${backoffMs.max / 60_000} minutes while it keeps failing`));
		assert.ok(text.includes(`then after ${LIVE_LOOP.reportEveryMs / 60_000}, 2,`));
		const { outageChats, outageHoldMs } = LIVE_SCHEDULE;
		assert.ok(text.includes(`When ${outageChats} chats in a row fail`));
		assert.ok(text.includes(`no chat is read for ${s(outageHoldMs.min)}, doubling up to a minute`));
		assert.equal(outageHoldMs.max, 60_000, 'the docs say "up to a minute"');
		assert.equal(LIVE_LOOP.reportGapMaxMs, 3_600_000, 'the docs say "at least once an hour"');
		assert.ok(text.includes(`A history too long for one read** (${s(LIVE_LOOP.readBudgetMs)})`));
		const keys = Array.from({ length: 20 }, (_, index) => `c${index}`);
		const schedule = new ChatSchedule(keys, 0, () => 60);
		for (const key of keys.slice(0, 10)) schedule.read(key, 0, true);
		const [active, quiet] = ['c0', 'c19'].map((key) => Math.round(schedule.gapMs(key, 1) / 1000));
		assert.ok(
			text.includes(`a chat in conversation every ${active} s, a quiet one every ${quiet} s`),
			`${active} s / ${quiet} s`,
		);
	});
});
