// What in the published package.json would keep n8n from loading the package
// (tools/pack.mjs packageLoadProblems, which test/e2e/package/publish.e2e.test.mjs runs on the
// tarball the registry serves): this repository's manifest passes, and each way of breaking
// `files`, `main`, the `n8n` block, the keyword or the name is caught.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { COMMUNITY_KEYWORD, packageLoadProblems } from '../../../tools/pack.mjs';
import { readRepoFile } from '../../support/unit.mjs';

const manifest = JSON.parse(readRepoFile('package.json'));
/** The tarball's files as npm packs them when `files` keeps dist (README and LICENSE too). */
const packedFiles = [
	'package/package.json',
	'package/README.md',
	'package/LICENSE',
	...[...manifest.n8n.nodes, ...manifest.n8n.credentials].map((file) => `package/${file}`),
];
const problems = (changes, files = packedFiles) =>
	packageLoadProblems({ ...manifest, ...changes }, files);

describe('what would keep n8n from loading the published package', () => {
	it('nothing, for this repository’s package.json packed with its dist', () => {
		assert.deepEqual(problems({}), []);
	});

	it('`files` that leave out dist: the nodes and the credential n8n loads are missing', () => {
		const found = problems({}, ['package/package.json', 'package/README.md']);
		assert.equal(found.length, manifest.n8n.nodes.length + manifest.n8n.credentials.length);
		for (const line of found) assert.match(line, /is not in the package \(files\)/);
	});

	it('a `main` that names a file the package lacks', () => {
		assert.match(problems({ main: 'index.js' }).join('\n'), /main names index\.js/);
		assert.deepEqual(problems({ main: manifest.n8n.nodes[0] }), []);
	});

	it('no `n8n` block, or one without nodes, credentials or the nodes API version n8n loads', () => {
		assert.match(problems({ n8n: undefined }).join('\n'), /no n8n block/);
		assert.match(problems({ n8n: { ...manifest.n8n, nodes: [] } }).join('\n'), /n8n\.nodes/);
		assert.match(
			problems({ n8n: { ...manifest.n8n, credentials: undefined } }).join('\n'),
			/n8n\.credentials/,
		);
		assert.match(
			problems({ n8n: { ...manifest.n8n, n8nNodesApiVersion: 2 } }).join('\n'),
			/n8nNodesApiVersion 2/,
		);
		assert.match(
			problems({ n8n: { ...manifest.n8n, nodes: ['dist/nodes/Gone/Gone.node.js'] } }).join('\n'),
			/Gone\.node\.js, which is not in the package/,
		);
	});

	it('no community-node keyword, or a name n8n does not scan for', () => {
		const keywords = manifest.keywords.filter((keyword) => keyword !== COMMUNITY_KEYWORD);
		assert.match(
			problems({ keywords }).join('\n'),
			new RegExp(`keywords lack ${COMMUNITY_KEYWORD}`),
		);
		assert.match(problems({ name: 'voice-messaging-nodes' }).join('\n'), /named n8n-nodes-\*/);
		assert.deepEqual(problems({ name: '@voice/n8n-nodes-messaging' }), []);
	});
});
