// Builds and packs this package once per process: what the tests install into n8n and what
// `npm start` and the bench load, so that all of them run what users get.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import { makeTempDir, removeDir, run } from './processes.mjs';

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
