// The README sends users to docs/ pages and to anchors in them; n8n's in-app documentation links
// (the nodes' codex files, the credential) send them to the README. Every relative link, and the
// #anchor after it (as GitHub makes anchors from headings), must land somewhere; and the README
// stays short enough to read in a few minutes.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { Messenger } from '../../nodes/Messenger/Messenger.node.ts';
import { MessengerTrigger } from '../../nodes/Messenger/MessengerTrigger.node.ts';
import { MessengerChatMemory } from '../../nodes/Messenger/MessengerChatMemory.node.ts';
import { MessengerLiveTrigger } from '../../nodes/Messenger/MessengerLiveTrigger.node.ts';
import { VoiceAi } from '../../nodes/VoiceAi/VoiceAi.node.ts';
import { VoiceAiTrigger } from '../../nodes/VoiceAi/VoiceAiTrigger.node.ts';
import { readRepoFile } from '../support/unit.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const README_MAX_BYTES = 25 * 1024;

const DOCS = [
	'README.md',
	'CONTRIBUTING.md',
	'CHANGELOG.md',
	...readdirSync(join(root, 'docs'))
		.filter((name) => name.endsWith('.md'))
		.map((name) => `docs/${name}`),
];

/** The Markdown outside fenced code blocks and code spans, where links and headings count. */
function prose(markdown) {
	return markdown
		.replace(/^(```|~~~)[^]*?^\1\s*$/gm, '')
		.replace(/(`+)[^`]+?\1/g, (span) => span.replace(/[[\]()#]/g, ' '));
}

/** A heading's anchor as GitHub makes it: its text, lower case, punctuation dropped, spaces as -. */
function slug(heading) {
	const text = heading
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/<[^>]+>/g, '')
		.replace(/[*`]/g, '')
		.replace(/(^|\s)_+|_+(\s|$)/g, '$1$2');
	return text
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
		.replace(/ /g, '-');
}

const anchorsCache = new Map();
/** Every anchor a Markdown file has: one per heading (repeats numbered), and HTML ids. */
function anchors(file) {
	if (anchorsCache.has(file)) return anchorsCache.get(file);
	const text = prose(readRepoFile(file));
	const found = new Set();
	const seen = new Map();
	for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
		const base = slug(heading);
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		found.add(count === 0 ? base : `${base}-${count}`);
	}
	for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(id);
	anchorsCache.set(file, found);
	return found;
}

/** The relative links of a Markdown file: inline links, images and reference definitions. */
function relativeLinks(file) {
	const text = prose(readRepoFile(file));
	const targets = [
		...[...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
		...[...text.matchAll(/^\s*\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((m) => m[1]),
	];
	return targets.filter((target) => !/^[a-z][a-z\d+.-]*:/i.test(target));
}

/** Why a link from `file` to `target` lands nowhere, or undefined when it lands. */
function brokenBecause(file, target) {
	const [pathPart, anchor] = target.split('#');
	const path = pathPart
		? normalize(join(dirname(file), decodeURIComponent(pathPart))).replace(/\\/g, '/')
		: file;
	if (path.startsWith('..')) return `${target} leaves the repository`;
	if (!existsSync(join(root, path))) return `${path} does not exist`;
	if (anchor === undefined) return undefined;
	if (!path.endsWith('.md') || statSync(join(root, path)).isDirectory()) {
		return `#${anchor} points into ${path}, which is not a Markdown page`;
	}
	if (!anchors(path).has(decodeURIComponent(anchor))) {
		return `${path} has no heading for #${anchor}`;
	}
	return undefined;
}

describe('links in the README, CONTRIBUTING, CHANGELOG and docs/', () => {
	it('makes anchors as GitHub does', () => {
		assert.equal(slug('Poll time, budget and failures'), 'poll-time-budget-and-failures');
		assert.equal(slug('Developing: npm start'), 'developing-npm-start');
		assert.equal(slug("The agent's `Tool` slot"), 'the-agents-tool-slot');
		assert.equal(slug('Send and Wait for Response'), 'send-and-wait-for-response');
	});

	for (const file of DOCS) {
		it(`${file}: every relative link and #anchor resolves`, () => {
			const links = relativeLinks(file);
			const broken = links
				.map((target) => [target, brokenBecause(file, target)])
				.filter(([, why]) => why)
				.map(([target, why]) => `${target}: ${why}`);
			assert.deepEqual(broken, [], `${file} links to ${links.length} places`);
		});
	}

	it('finds the links it checks', () => {
		const readmeLinks = relativeLinks('README.md');
		assert.ok(
			readmeLinks.some((target) => target.startsWith('docs/')),
			'README links docs/',
		);
		assert.ok(
			readmeLinks.some((target) => target.startsWith('#')),
			'README links its anchors',
		);
		assert.match(
			brokenBecause('README.md', '#no-such-heading') ?? '',
			/no heading/,
			'a missing anchor is found',
		);
	});
});

describe('the README', () => {
	it(`is at most ${README_MAX_BYTES} bytes`, () => {
		const bytes = statSync(join(root, 'README.md')).size;
		assert.ok(bytes <= README_MAX_BYTES, `README.md is ${bytes} bytes`);
	});
});

describe("n8n's in-app documentation links", () => {
	const manifest = JSON.parse(readRepoFile('package.json'));
	const repository = manifest.homepage.replace(/#readme$/, '');
	const nodes = {
		voiceAi: new VoiceAi(),
		voiceAiTrigger: new VoiceAiTrigger(),
		messenger: new Messenger(),
		messengerTrigger: new MessengerTrigger(),
		messengerLiveTrigger: new MessengerLiveTrigger(),
		messengerChatMemory: new MessengerChatMemory(),
	};

	/** The repository file and anchor a documentation URL points at. */
	function inRepository(url) {
		assert.ok(url.startsWith(repository), `${url} is not in ${repository}`);
		const rest = url.slice(repository.length);
		const [path, anchor] = rest.split('#');
		const file = path === '' || path === '/' ? 'README.md' : path.replace(/^\/blob\/[^/]+\//, '');
		return anchor === undefined ? file : `${file}#${anchor}`;
	}

	it('every node n8n loads has a codex file beside it, naming it, with its documentation', () => {
		for (const built of manifest.n8n.nodes) {
			const source = built.replace(/^dist\//, '').replace(/\.js$/, '.json');
			assert.ok(existsSync(join(root, source)), `${source} exists`);
			const codex = JSON.parse(readRepoFile(source));
			const name = codex.node.replace(`${manifest.name}.`, '');
			assert.equal(codex.node, `${manifest.name}.${name}`, source);
			assert.ok(nodes[name], `${source} names ${codex.node}, a node of the package`);
			assert.ok(nodes[name].description.name === name, `${source}: ${name}`);
			const { primaryDocumentation, credentialDocumentation } = codex.resources;
			assert.equal(primaryDocumentation.length, 1, source);
			assert.equal(credentialDocumentation.length, 1, source);
		}
		assert.equal(manifest.n8n.nodes.length, Object.keys(nodes).length);
	});

	it('every documentation link of the codex files and the credential resolves', () => {
		const urls = [];
		for (const built of manifest.n8n.nodes) {
			const source = built.replace(/^dist\//, '').replace(/\.js$/, '.json');
			const { resources } = JSON.parse(readRepoFile(source));
			for (const { url } of [
				...resources.primaryDocumentation,
				...resources.credentialDocumentation,
			]) {
				urls.push([source, url]);
			}
		}
		const credential = readRepoFile('credentials/VoiceMessagingApi.credentials.ts');
		for (const [, url] of credential.matchAll(/(?:documentationUrl|docsUrl)\s*[=:]\s*'([^']+)'/g)) {
			urls.push(['credentials/VoiceMessagingApi.credentials.ts', url]);
		}
		assert.ok(urls.length >= 10, `only ${urls.length} links read`);
		for (const [source, url] of urls) {
			const target = inRepository(url);
			assert.equal(brokenBecause('README.md', target), undefined, `${source}: ${url}`);
		}
	});

	it('each node links its own section of the README', () => {
		const expected = {
			voiceAi: '#voice-ai-node',
			messenger: '#messenger-node',
			voiceAiTrigger: '#voice-ai-trigger',
			messengerTrigger: '#messenger-trigger',
			// The Messenger Trigger's section says which of the two to pick.
			messengerLiveTrigger: '#messenger-trigger',
			messengerChatMemory: '#whatsapp-chatbot-with-memory',
		};
		for (const built of manifest.n8n.nodes) {
			const source = built.replace(/^dist\//, '').replace(/\.js$/, '.json');
			const codex = JSON.parse(readRepoFile(source));
			const name = codex.node.replace(`${manifest.name}.`, '');
			assert.equal(codex.resources.primaryDocumentation[0].url, `${repository}${expected[name]}`);
		}
	});
});
