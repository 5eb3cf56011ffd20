// Publishing, from a version tag to a package users install: the steps of
// .github/workflows/publish.yml publish the package to an npm registry on loopback (verdaccio,
// tools/registry.mjs) as GitHub Actions runs them (publishSteps.mjs says what differs: no
// provenance, a copy of the checkout); then n8n 2.x and 1.x each install it from that registry
// the way the README's manual install says (npm, in .n8n/nodes), run a workflow with it against
// the sandbox, and after a second version is published the same way, an update in .n8n/nodes is
// what n8n loads and runs. Its own n8n user folders and no n8n server (the CLI runs each step, a
// fresh n8n process each time, as after a restart): the run's shared n8ns hold the run's tarball,
// not what the registry serves.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { DEMO_CLIENTS, startSandbox } from '../../../sandbox/server.mjs';
import { packageLoadProblems } from '../../../tools/pack.mjs';
import { startRegistry } from '../../../tools/registry.mjs';
import {
	DEFAULT_N8N_VERSION,
	N8N_1_VERSION,
	PACKAGE_NAME,
	assertExecutionSucceeded,
	createN8nInstance,
	nodeOutput,
	run,
	sandboxCredential,
	voiceAiWorkflow,
} from '../harness.mjs';
import { makeTempDir, removeDir } from '../../../tools/processes.mjs';
import { checkoutCopy, runnerEnv, workflowRunner } from './publishSteps.mjs';

const CREDENTIAL = { id: 'publishVoiceCred1', name: 'Voice sandbox (publish)' };

/**
 * The README's npm commands, as a user copies them: the install (its bash block) and the update
 * (`npm install <package>@latest …` in the text). The arguments after `npm`.
 */
function readmeNpmCommand(pattern) {
	const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
	const found = pattern.exec(readme)?.[1];
	assert.ok(found, `the README has the command ${pattern}`);
	return found.trim().split(/\s+/);
}
const README_INSTALL = readmeNpmCommand(/^npm (install n8n-nodes-voice-messaging(?: [^\n`]*)?)$/m);
const README_UPDATE = readmeNpmCommand(/`npm (install n8n-nodes-voice-messaging@latest[^`]*)`/);
const WORKFLOW_ID = 'publishBalance01';

/** The next minor version of `version` (0.1.0 → 0.2.0), as a release of new features bumps it. */
const nextMinor = (version) => {
	const [major, minor] = version.split('.').map(Number);
	return `${major}.${minor + 1}.0`;
};

/**
 * The environment of an npm that a user runs (`path` first on PATH): the public registry's place
 * taken by the loopback one, none of the settings of the npm and test runner that started the
 * tests, and a user configuration and cache of its own in `folder`.
 * @param {{ path: string, registryUrl: string, folder: string }} options
 */
function npmEnv({ path, registryUrl, folder }) {
	const env = runnerEnv();
	writeFileSync(join(folder, 'npmrc'), '');
	return {
		...env,
		PATH: `${path}${delimiter}${process.env.PATH ?? ''}`,
		NPM_CONFIG_REGISTRY: registryUrl,
		NPM_CONFIG_USERCONFIG: join(folder, 'npmrc'),
		NPM_CONFIG_CACHE: join(folder, 'npm-cache'),
		NPM_CONFIG_UPDATE_NOTIFIER: 'false',
		NPM_CONFIG_AUDIT: 'false',
		NPM_CONFIG_FUND: 'false',
	};
}

describe(
	'publishing: the release workflow to a registry, and from there into n8n',
	{ timeout: 20 * 60_000 },
	() => {
		/** @type {Awaited<ReturnType<typeof startRegistry>>} */
		let registry;
		/** @type {Awaited<ReturnType<typeof startSandbox>>} */
		let sandbox;
		/** @type {Awaited<ReturnType<typeof workflowRunner>>} */
		let runner;
		let checkout = '';
		let firstVersion = '';
		/** Per n8n line: its user folder, n8n and the npm environment of its user. */
		const lines = [DEFAULT_N8N_VERSION, N8N_1_VERSION].map((version) => ({
			version,
			userFolder: '',
			/** @type {Awaited<ReturnType<typeof createN8nInstance>> | undefined} */
			instance: undefined,
			/** @type {NodeJS.ProcessEnv} */
			npmEnv: {},
		}));
		const started = Date.now();
		const timings = [];
		const timed = async (label, fn) => {
			const start = Date.now();
			try {
				return await fn();
			} finally {
				timings.push(`${label} ${((Date.now() - start) / 1000).toFixed(1)} s`);
			}
		};

		before(async () => {
			sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
			registry = await startRegistry();
			const token = await registry.addUser('releaser', 'Releaser-Passw0rd-1');
			checkout = await checkoutCopy();
			firstVersion = JSON.parse(readFileSync(join(checkout, 'package.json'), 'utf8')).version;
			runner = await workflowRunner({ checkout, registryUrl: registry.url, token });
		});

		after(async () => {
			console.log(
				`# publish test: ${timings.join(', ')}; ${((Date.now() - started) / 1000).toFixed(0)} s in all`,
			);
			for (const line of lines) {
				await line.instance?.cleanup();
				if (line.userFolder) removeDir(line.userFolder);
			}
			await registry?.stop();
			await sandbox?.close();
		});

		/** The registry's record of the package: its versions and the `latest` tag. */
		const published = async () => {
			const document = await registry.packument(PACKAGE_NAME);
			return {
				versions: Object.keys(document?.versions ?? {}),
				latest: document?.['dist-tags']?.latest,
			};
		};

		it('a tag that is not package.json’s version publishes nothing', async () => {
			await assert.rejects(runner.step('Check the tag', { tag: '99.0.0' }), (error) => {
				assert.match(error.message, /the tag 99\.0\.0 is not package\.json's version/);
				return true;
			});
			assert.deepEqual((await published()).versions, []);
		});

		it('the tag’s push publishes that version with npm run release: lint, build, publish asked with provenance, access public', async () => {
			await runner.step('Check the tag', { tag: firstVersion });
			const output = await timed('release 1', () => runner.step('Release', { tag: firstVersion }));
			assert.match(output, /n8n-node release/);
			assert.deepEqual(runner.publishes(), [
				{ provenance: 'true', access: 'public', releaseMode: 'true' },
			]);
			assert.deepEqual(await published(), { versions: [firstVersion], latest: firstVersion });

			// What the registry serves is a package n8n can load (tools/pack.mjs packageLoadProblems).
			const document = await registry.packument(PACKAGE_NAME);
			const tarballUrl = document.versions[firstVersion].dist.tarball;
			assert.ok(tarballUrl.startsWith(registry.url), tarballUrl);
			const folder = makeTempDir('voice-messaging-served-');
			const tarball = join(folder, 'package.tgz');
			writeFileSync(tarball, Buffer.from(await (await fetch(tarballUrl)).arrayBuffer()));
			const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
			const manifest = JSON.parse(
				execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }),
			);
			removeDir(folder);
			assert.deepEqual(packageLoadProblems(manifest, files), []);
			assert.equal(manifest.version, firstVersion);
		});

		it('a plain npm publish is refused: prepublishOnly sends it to npm run release', async () => {
			// With the token the Release step wrote: prepublishOnly stops it before npm asks the registry.
			const env = {
				...npmEnv({
					path: dirname(process.execPath),
					registryUrl: registry.url,
					folder: makeTempDir('voice-messaging-npm-'),
				}),
				NPM_CONFIG_USERCONFIG: runner.userConfig,
			};
			await assert.rejects(
				run('npm', ['publish'], { cwd: checkout, env, timeoutMs: 120_000 }),
				(error) => {
					assert.match(
						`${error.stdout}${error.stderr}`,
						/Run `npm run release` to publish the package/,
					);
					return true;
				},
			);
			assert.deepEqual((await published()).versions, [firstVersion]);
		});

		/**
		 * The package's version n8n loaded (n8n export:nodes: what n8n's loader gives the editor),
		 * read from a fresh n8n process of `line`.
		 */
		async function loadedVersion(line) {
			const file = join(line.userFolder, 'nodes.json');
			await line.instance.n8n(['export:nodes', `--output=${file}`]);
			const types = JSON.parse(readFileSync(file, 'utf8'));
			const voiceAi = types.find((type) => type.name === `${PACKAGE_NAME}.voiceAi`);
			assert.ok(voiceAi, `n8n ${line.version} loaded no ${PACKAGE_NAME}.voiceAi`);
			return voiceAi.communityNodePackageVersion;
		}

		/** The version npm installed in the user's .n8n/nodes. */
		const installedVersion = (line) =>
			JSON.parse(
				readFileSync(
					join(line.userFolder, '.n8n/nodes/node_modules', PACKAGE_NAME, 'package.json'),
					'utf8',
				),
			).version;

		/** Runs the workflow (Manual Trigger → Voice AI, Billing → Get Balance) on `line`. */
		async function runBalance(line) {
			const result = await line.instance.execute(WORKFLOW_ID);
			const items = nodeOutput(assertExecutionSucceeded(result, line.instance.log()), 'Voice AI');
			assert.equal(items.length, 1);
			assert.equal(items[0].credit, sandbox.state.balance.credit);
		}

		for (const line of lines) {
			it(`n8n ${line.version} installs it from the registry as the README says and runs a workflow with it`, async () => {
				await timed(`n8n ${line.version} install and run`, async () => {
					line.userFolder = makeTempDir('voice-messaging-user-');
					line.instance = await createN8nInstance({
						version: line.version,
						userFolder: line.userFolder,
						installed: true,
					});
					// npm under the Node this n8n runs on, as its user's would be.
					line.npmEnv = npmEnv({
						path: line.instance.nodeBinDir,
						registryUrl: registry.url,
						folder: line.userFolder,
					});
					// The README's commands: mkdir -p ~/.n8n/nodes && cd ~/.n8n/nodes, then its npm install.
					// n8n itself brings n8n-workflow, the package's peer dependency (n8n's own installer
					// drops it too; --legacy-peer-deps keeps npm from installing another copy).
					const nodesDir = join(line.userFolder, '.n8n/nodes');
					mkdirSync(nodesDir, { recursive: true });
					await run('npm', README_INSTALL, {
						cwd: nodesDir,
						env: line.npmEnv,
						timeoutMs: 120_000,
					});
					assert.equal(installedVersion(line), firstVersion);

					await line.instance.importCredentials([
						sandboxCredential(CREDENTIAL, sandbox, DEMO_CLIENTS.full),
					]);
					await line.instance.importWorkflow(
						voiceAiWorkflow({
							id: WORKFLOW_ID,
							parameters: { resource: 'billing', operation: 'getBalance' },
							credential: CREDENTIAL,
						}),
					);
					await runBalance(line);
					assert.equal(await loadedVersion(line), firstVersion);
				});
			});
		}

		it('a second version published the same way is what n8n runs after npm install <package>@latest', async () => {
			const secondVersion = nextMinor(firstVersion);
			const manifestFile = join(checkout, 'package.json');
			const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
			writeFileSync(
				manifestFile,
				`${JSON.stringify({ ...manifest, version: secondVersion }, null, '\t')}\n`,
			);
			// Tagged as `npm version` tags it (v0.2.0); the first was tagged as n8n-node release does.
			await runner.step('Check the tag', { tag: `v${secondVersion}` });
			await timed('release 2', () => runner.step('Release', { tag: `v${secondVersion}` }));
			assert.equal(runner.publishes().length, 2);
			assert.deepEqual(await published(), {
				versions: [firstVersion, secondVersion],
				latest: secondVersion,
			});

			for (const line of lines) {
				assert.ok(line.instance, `n8n ${line.version} was set up by the test before`);
				await timed(`n8n ${line.version} update and run`, async () => {
					await run('npm', README_UPDATE, {
						cwd: join(line.userFolder, '.n8n/nodes'),
						env: line.npmEnv,
						timeoutMs: 120_000,
					});
					assert.equal(installedVersion(line), secondVersion);
					assert.equal(await loadedVersion(line), secondVersion);
					await runBalance(line);
				});
			}
		});
	},
);
