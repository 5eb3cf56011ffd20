// The installers (scripts/ensure-*.sh, scripts/apt-install.sh) on a machine's first run, from an
// empty cache, started twice at once: the way parallel test lanes start them. A first CI run
// once failed there: two e2e files both ran ensure-chromium.sh, one apt-get held the dpkg lock and
// the other failed. Here both of each pair must succeed, and what they install is installed once.
//
// What this proves, and what not: npm, apt-get and dpkg-query are stand-ins (offline, a second
// each), and PATH holds only the tools the scripts use, so no Chromium of this machine is found.
// The stand-in apt-get fails at once when another holds its lock, as apt-get does on dpkg's lock
// without a timeout. So the scripts' own order is tested: the lock they take, the check after
// waiting for it, the cache folder they fill. That the real downloads work on a fresh machine
// is what a first CI run on a new machine shows (docs/releasing.md, "A first CI run").
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
	chmodSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const scripts = fileURLToPath(new URL('../../../scripts/', import.meta.url));
/** The programs the scripts run, taken from this machine into a PATH of their own. */
const TOOLS = [
	'bash',
	'env',
	'dirname',
	'mkdir',
	'rm',
	'mv',
	'touch',
	'cat',
	'grep',
	'sleep',
	'flock',
	'du',
	'uname',
	'chmod',
	'ln',
	'tail',
];

/** Stand-ins: each writes what it was asked to `$STUB_LOG`, one line a call. */
const STUBS = {
	// Root, as CI runs: apt-install.sh then needs no sudo.
	id: `[ "\${1:-}" = -u ] && echo 0 || echo "uid=0(root)"`,
	// dpkg's frontend lock without a timeout: a second apt-get at once fails, as the real one did.
	'apt-get': `
exec 8>"$STUB_DIR/dpkg.lock"
if ! flock -n 8; then
  echo "E: Could not get lock $STUB_DIR/dpkg.lock. It is held by another process" >&2
  exit 100
fi
echo "apt-get $*" >>"$STUB_LOG"
sleep 1
if [ "$1 $2" = "-o DPkg::Lock::Timeout=600" ] && [ "$3" = install ]; then
  for package in "\${@:4}"; do
    case "$package" in -*) continue ;; esac
    touch "$STUB_DIR/installed-$package"
    # Debian's chromium package brings the browser onto PATH.
    if [ "$package" = chromium ]; then
      printf '#!/usr/bin/env bash\\necho "Chromium 1.0 (stand-in)"\\n' >"$STUB_DIR/bin/chromium"
      chmod +x "$STUB_DIR/bin/chromium"
    fi
  done
fi`,
	'dpkg-query': `
[ -e "$STUB_DIR/installed-\${*: -1}" ] || exit 1
echo "install ok installed"`,
	// npm install of a Node (node-linux-*) or of n8n, and npm rebuild: each leaves what the
	// scripts look for afterwards.
	npm: `
echo "npm $*" >>"$STUB_LOG"
sleep 1
case "$*" in
  install\\ --prefix*)
    prefix="$3"
    package="\${*: -1}"
    mkdir -p "$prefix/node_modules/\${package%@*}/bin"
    ln -s "$REAL_NODE" "$prefix/node_modules/\${package%@*}/bin/node"
    ;;
  install*n8n@*) mkdir -p node_modules/.bin && touch node_modules/.bin/n8n ;;
esac`,
};

describe('the installers, twice at once from an empty cache', () => {
	let root = '';
	let env = /** @type {NodeJS.ProcessEnv} */ ({});
	const stubLog = () =>
		existsSync(join(root, 'stub.log'))
			? readFileSync(join(root, 'stub.log'), 'utf8').trim().split('\n')
			: [];

	before(() => {
		root = mkdtempSync(join(tmpdir(), 'voice-messaging-installers-'));
		const bin = join(root, 'bin');
		mkdirSync(bin);
		for (const tool of TOOLS) {
			const found = spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' });
			assert.equal(found.status, 0, `${tool} is on this machine`);
			symlinkSync(found.stdout.trim(), join(bin, tool));
		}
		symlinkSync(process.execPath, join(bin, 'node'));
		for (const [name, body] of Object.entries(STUBS)) {
			writeFileSync(join(bin, name), `#!/usr/bin/env bash\n${body.trim()}\n`);
			chmodSync(join(bin, name), 0o755);
		}
		env = {
			HOME: root,
			PATH: bin,
			STUB_DIR: root,
			STUB_LOG: join(root, 'stub.log'),
			REAL_NODE: process.execPath,
			VOICE_MESSAGING_CACHE: join(root, 'cache'),
		};
	});
	after(() => rmSync(root, { recursive: true, force: true }));

	/** Runs a script twice at once; resolves to both runs' exit codes and output. */
	const twiceAtOnce = (script, ...args) =>
		Promise.all(
			[1, 2].map(
				() =>
					new Promise((resolve) => {
						const child = spawn(join(bin(), 'bash'), [join(scripts, script), ...args], { env });
						let stdout = '';
						let stderr = '';
						child.stdout.on('data', (chunk) => (stdout += chunk));
						child.stderr.on('data', (chunk) => (stderr += chunk));
						child.on('close', (code) => resolve({ code, stdout, stderr }));
					}),
			),
		);
	const bin = () => join(root, 'bin');

	it('ensure-chromium.sh: both find the Chromium that one apt-get installed', async () => {
		const runs = await twiceAtOnce('ensure-chromium.sh');
		for (const { code, stderr } of runs) assert.equal(code, 0, stderr);
		assert.deepEqual(
			runs.map(({ stdout }) => stdout.trim().split('\n').pop()),
			[join(bin(), 'chromium'), join(bin(), 'chromium')],
		);
		// One update and one install; the run that waited found the package installed.
		assert.deepEqual(stubLog(), [
			'apt-get -o DPkg::Lock::Timeout=600 update -qq',
			'apt-get -o DPkg::Lock::Timeout=600 install -y -qq chromium',
		]);
	});

	it('apt-install.sh, as ensure-queue-services.sh runs it: both succeed, one apt-get install', async () => {
		rmSync(join(root, 'stub.log'), { force: true });
		const runs = await twiceAtOnce('apt-install.sh', 'redis-server', 'postgresql');
		for (const { code, stderr } of runs) assert.equal(code, 0, stderr);
		assert.deepEqual(stubLog(), [
			'apt-get -o DPkg::Lock::Timeout=600 update -qq',
			'apt-get -o DPkg::Lock::Timeout=600 install -y -qq redis-server postgresql',
		]);
	});

	it('ensure-n8n.sh (and ensure-node.sh): both get the same n8n and Node, installed once', async () => {
		rmSync(join(root, 'stub.log'), { force: true });
		const runs = await twiceAtOnce('ensure-n8n.sh', '1.123.81');
		for (const { code, stderr } of runs) assert.equal(code, 0, stderr);
		const printed = runs.map(({ stdout }) => stdout.trim().split('\n').slice(-2));
		assert.deepEqual(printed[0], printed[1]);
		const [nodeBin, n8nDir] = printed[0];
		assert.ok(nodeBin.startsWith(join(root, 'cache', 'node-22.')), nodeBin);
		assert.equal(n8nDir, join(root, 'cache', 'n8n-1.123.81-node22'));
		assert.ok(existsSync(join(n8nDir, '.complete')));
		assert.ok(existsSync(join(n8nDir, 'node_modules/.bin/n8n')));
		const calls = stubLog().map((line) => line.split(' ').slice(0, 2).join(' '));
		assert.deepEqual(calls, ['npm install', 'npm install', 'npm rebuild'], stubLog().join('\n'));
		assert.match(stubLog()[0], /--prefix \S+node-22\.\S+\.tmp .*node-linux-\w+@22\./);
		assert.match(stubLog()[1], / n8n@1\.123\.81$/);
	});

	it('ensure-scanner.sh: both get the scanner installed once, and again when a pinned version changes', async () => {
		rmSync(join(root, 'stub.log'), { force: true });
		const runs = await twiceAtOnce('ensure-scanner.sh');
		for (const { code, stderr } of runs) assert.equal(code, 0, stderr);
		const dir = join(root, 'cache', 'scan-community-package-0.32.0');
		assert.deepEqual(
			runs.map(({ stdout }) => stdout.trim().split('\n').pop()),
			[dir, dir],
		);
		assert.equal(stubLog().length, 1, stubLog().join('\n'));
		assert.match(
			stubLog()[0],
			/^npm install .*--save-exact @n8n\/scan-community-package@0\.32\.0 typescript@5\.9\.3 n8n-workflow@2\.41\.0$/,
		);
		// The versions not in the folder's name are in its .complete stamp: another fills it again.
		const again = spawnSync(join(bin(), 'bash'), [join(scripts, 'ensure-scanner.sh')], {
			env: { ...env, SCANNER_N8N_WORKFLOW_VERSION: '2.42.0' },
			encoding: 'utf8',
		});
		assert.equal(again.status, 0, again.stderr);
		assert.equal(stubLog().length, 2, stubLog().join('\n'));
		assert.match(stubLog()[1], / n8n-workflow@2\.42\.0$/);
		assert.equal(
			readFileSync(join(dir, '.complete'), 'utf8'),
			'typescript 5.9.3, n8n-workflow 2.42.0',
		);
	});
});
