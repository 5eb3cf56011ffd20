// Builds and packs this package once per process: what the tests install into n8n and what
// `npm start` and the bench load, so that all of them run what users get. `npm start` keeps its
// tarball between runs (packOnChange) and builds again only when the package's sources changed.
import { createHash } from 'node:crypto';
import {
	copyFileSync,
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	renameSync,
	rmSync,
	statSync,
} from 'node:fs';
import { join, sep } from 'node:path';

import { makeTempDir, removeDir, ROOT, run } from './processes.mjs';

/**
 * What the built package is made of (what n8n loads from it): the TypeScript sources, their JSON
 * and icons, package.json, and the compiler's settings and versions (tsconfig.json, the lock file).
 * The README and CHANGELOG go into the tarball too but change nothing n8n loads.
 */
export const PACKAGE_SOURCES = [
	'credentials',
	'nodes',
	'icons',
	'package.json',
	'package-lock.json',
	'tsconfig.json',
];

let packed;
/** Builds and packs the package once per process; resolves to the tarball's path. */
export function packPackage() {
	packed ??= (async () => {
		await run('npm', ['run', 'build'], { timeoutMs: 180_000 });
		const destination = makeTempDir('voice-messaging-pack-');
		await run('npm', ['pack', '--pack-destination', destination, '--ignore-scripts'], {
			timeoutMs: 120_000,
		});
		const tarball = readdirSync(destination).find((name) => name.endsWith('.tgz'));
		if (!tarball) throw new Error(`npm pack wrote no tarball into ${destination}`);
		return join(destination, tarball);
	})();
	return packed;
}

/** Removes the packed tarball (the next packPackage() builds a new one). */
export async function removePack() {
	if (!packed) return;
	const tarball = await packed.catch(() => undefined);
	packed = undefined;
	if (tarball) removeDir(join(tarball, '..'));
}

/** The files under `path` (a file or a folder), relative to `root`, sorted. */
function filesUnder(root, path) {
	const full = join(root, path);
	if (!existsSync(full)) return [];
	if (!statSync(full).isDirectory()) return [path];
	return readdirSync(full)
		.sort()
		.flatMap((name) => filesUnder(root, join(path, name)));
}

/**
 * A hash of the package's sources (`sources` under `root`, by default PACKAGE_SOURCES): each
 * file's path and content. Equal hashes mean the same built package.
 * @param {string} [root] @param {string[]} [sources]
 */
export function sourceHash(root = ROOT, sources = PACKAGE_SOURCES) {
	const hash = createHash('sha256');
	for (const file of sources.flatMap((path) => filesUnder(root, path))) {
		// The same hash on every system: paths with forward slashes, each entry delimited.
		hash.update(`${file.split(sep).join('/')}\0`);
		hash.update(readFileSync(join(root, file)));
		hash.update('\0');
	}
	return hash.digest('hex').slice(0, 16);
}

/**
 * The packed package kept in `folder` for the current sources: reused when its sources have not
 * changed since it was packed (their hash is in its name), else built, packed and kept instead
 * of the older one. `build` makes a tarball (default: packPackage) and is injectable for tests.
 * @param {string} folder
 * @param {{ root?: string, build?: () => Promise<string> }} [options]
 * @returns {Promise<{ tarball: string, reused: boolean }>}
 */
export async function packOnChange(folder, { root = ROOT, build = packPackage } = {}) {
	const kept = join(folder, `package-${sourceHash(root)}.tgz`);
	if (existsSync(kept)) return { tarball: kept, reused: true };
	const fresh = await build();
	mkdirSync(folder, { recursive: true });
	for (const name of readdirSync(folder)) {
		if (name.startsWith('package-') && name.endsWith('.tgz')) rmSync(join(folder, name));
	}
	// Copied under another name first: an interrupted copy is never taken for a finished one.
	copyFileSync(fresh, `${kept}.partial`);
	renameSync(`${kept}.partial`, kept);
	return { tarball: kept, reused: false };
}

/** The keyword n8n's Community Nodes screen browses npm by (and n8n's verification asks for). */
export const COMMUNITY_KEYWORD = 'n8n-community-node-package';

/**
 * What in a packed package's manifest would keep n8n from loading it from `.n8n/nodes`, one line
 * each (none: n8n can load it). n8n loads the folders of node_modules named `n8n-nodes-*` (or
 * `@scope/n8n-nodes-*`), skips a package whose `n8n.n8nNodesApiVersion` it does not support (both
 * tested lines support 1), and loads exactly the files `n8n.nodes` and `n8n.credentials` name;
 * n8n does not read `main`, but npm and `require()` of the package fail when it names a file the
 * package lacks.
 * @param {Record<string, any>} manifest the package.json inside the tarball
 * @param {string[]} files the tarball's files, relative to the package (e.g. `dist/x.js`)
 */
export function packageLoadProblems(manifest, files) {
	const problems = [];
	const packed = new Set(files.map((file) => file.replace(/^package\//, '')));
	if (!/^(@[^/]+\/)?n8n-nodes-[^/]+$/.test(manifest.name ?? '')) {
		problems.push(`name ${manifest.name}: n8n loads only packages named n8n-nodes-*`);
	}
	if (!(manifest.keywords ?? []).includes(COMMUNITY_KEYWORD)) {
		problems.push(`keywords lack ${COMMUNITY_KEYWORD}`);
	}
	const n8n = manifest.n8n;
	if (!n8n || typeof n8n !== 'object') {
		problems.push('no n8n block: n8n loads no node from it');
	} else {
		if (n8n.n8nNodesApiVersion !== 1) {
			problems.push(
				`n8n.n8nNodesApiVersion ${n8n.n8nNodesApiVersion}: the tested n8n lines load 1`,
			);
		}
		for (const key of ['nodes', 'credentials']) {
			const entries = n8n[key];
			if (!Array.isArray(entries) || entries.length === 0) {
				problems.push(`n8n.${key} lists nothing`);
				continue;
			}
			for (const entry of entries) {
				if (!packed.has(entry.replace(/^\.\//, ''))) {
					problems.push(`n8n.${key} names ${entry}, which is not in the package (files)`);
				}
			}
		}
	}
	if (manifest.main !== undefined) {
		const main = String(manifest.main).replace(/^\.\//, '');
		const candidates = [main, `${main}.js`, `${main}/index.js`];
		if (!candidates.some((candidate) => packed.has(candidate))) {
			problems.push(`main names ${manifest.main}, which is not in the package (files)`);
		}
	}
	return problems;
}
