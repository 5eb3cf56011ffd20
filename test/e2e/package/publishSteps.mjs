// The publish workflow (.github/workflows/publish.yml) run here as GitHub Actions runs it, against
// a registry on loopback (tools/registry.mjs): its steps taken from the workflow file itself, run
// with bash as GitHub runs a step, in a copy of the checkout, with GITHUB_ACTIONS set so that
// `npm run release` takes its CI path (lint, build, `npm publish` with provenance).
//
// What differs from GitHub, and why:
// - the checkout is a copy of this working tree's package files (not the tests, sandbox, tools or
//   docs) with node_modules linked to this one's: `npm ci` would fetch the lock file's packages
//   from the public registry, which a test does not reach;
// - the registry is the loopback one (setup-node's default is npmjs.com), and the token the
//   workflow's NPM_TOKEN secret would hold is one that registry issued;
// - provenance: only GitHub's OIDC token can sign a statement, so `npm` is a stand-in first on
//   PATH that passes every command to the real npm, and for `npm publish` writes down the
//   provenance and access asked for, then publishes without provenance.
import { spawn } from 'node:child_process';
import {
	chmodSync,
	cpSync,
	existsSync,
	mkdirSync,
	readFileSync,
	symlinkSync,
	writeFileSync,
} from 'node:fs';
import { delimiter, join } from 'node:path';

import { ROOT, makeTempDir, run, trackChild } from '../../../tools/processes.mjs';

export const WORKFLOW = join(ROOT, '.github/workflows/publish.yml');

/** Top-level folders a release does not need: the tests and the tools around them. */
const NOT_PACKAGE = new Set(['test', 'sandbox', 'bench', 'docs', 'examples', 'tools', 'scripts']);

/**
 * The `run` script and `env` of the step named `name` in a workflow file (the shapes publish.yml
 * uses: `run: <one line>` or `run: |` with an indented block, and `env:` with `KEY: value` lines).
 * @param {string} yaml @param {string} name
 * @returns {{ run: string, env: Record<string, string> }}
 */
export function workflowStep(yaml, name) {
	const lines = yaml.split('\n');
	const start = lines.findIndex((line) => line.trim() === `- name: ${name}`);
	if (start === -1) throw new Error(`no step named "${name}" in the workflow`);
	const keyIndent = lines[start].indexOf('-') + 2;
	const indentOf = (line) => line.length - line.trimStart().length;
	const body = [];
	for (const line of lines.slice(start + 1)) {
		if (line.trim() && indentOf(line) < keyIndent) break;
		body.push(line);
	}
	let run;
	const env = {};
	for (let i = 0; i < body.length; i++) {
		const line = body[i];
		if (indentOf(line) !== keyIndent) continue;
		const [key, ...rest] = line.trim().split(':');
		const value = rest.join(':').trim();
		const block = [];
		for (let j = i + 1; j < body.length && (!body[j].trim() || indentOf(body[j]) > keyIndent); j++)
			block.push(body[j]);
		if (key === 'run') {
			run =
				value === '|'
					? `${block
							.map((blockLine) => blockLine.slice(keyIndent + 2))
							.join('\n')
							.trim()}\n`
					: `${value}\n`;
		} else if (key === 'env') {
			for (const envLine of block.filter((blockLine) => blockLine.trim())) {
				const [envKey, ...envValue] = envLine.trim().split(':');
				env[envKey] = envValue.join(':').trim();
			}
		}
	}
	if (run === undefined) throw new Error(`the step "${name}" runs no command`);
	return { run, env };
}

/**
 * A copy of this working tree as a checkout of it would hold it (the files git tracks or would
 * track), less the folders a release does not need, with node_modules linked to this one's.
 * Resolves to its folder (removed when the process exits).
 */
export async function checkoutCopy() {
	const { stdout } = await run('git', [
		'ls-files',
		'-z',
		'--cached',
		'--others',
		'--exclude-standard',
	]);
	const copy = makeTempDir('voice-messaging-checkout-');
	for (const file of stdout.split('\0').filter(Boolean)) {
		if (NOT_PACKAGE.has(file.split('/')[0]) || !existsSync(join(ROOT, file))) continue;
		mkdirSync(join(copy, file, '..'), { recursive: true });
		cpSync(join(ROOT, file), join(copy, file));
	}
	symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
	return copy;
}

/**
 * This process's environment less what a GitHub runner's step would not have: the settings of the
 * npm and the test runner that started the tests (NODE_ENV=test changes what n8n's lint rules
 * report), GitHub's own variables.
 */
export function runnerEnv() {
	return Object.fromEntries(
		Object.entries(process.env).filter(
			([key]) => !/^(npm_|github_|node_env$|node_options$|e2e_|sandbox_)/i.test(key),
		),
	);
}

/** The real npm's path (the first on PATH). */
async function realNpm() {
	const { stdout } = await run('bash', ['-c', 'command -v npm']);
	return stdout.trim();
}

/**
 * A runner of the workflow's steps against `registryUrl` in `checkout`, with `token` as the
 * NPM_TOKEN secret. `step(name, { tag })` runs one step as GitHub would for a push of `tag` and
 * resolves to its output (rejects with it when the step fails); `publishes()` lists what each
 * `npm publish` was asked for: `{ provenance, access, releaseMode }`.
 * @param {{ checkout: string, registryUrl: string, token: string }} options
 */
export async function workflowRunner({ checkout, registryUrl, token }) {
	const yaml = readFileSync(WORKFLOW, 'utf8');
	const folder = makeTempDir('voice-messaging-runner-');
	const bin = join(folder, 'bin');
	mkdirSync(bin);
	const publishLog = join(folder, 'publishes.jsonl');
	writeFileSync(
		join(bin, 'npm'),
		[
			'#!/usr/bin/env bash',
			'# npm for the publishing test: GitHub alone signs provenance, so `npm publish` notes what it',
			'# was asked for and publishes without it.',
			'if [ "${1:-}" = publish ]; then',
			'  access="$("$REAL_NPM" config get access)"',
			`  printf '{"provenance":"%s","access":"%s","releaseMode":"%s"}\\n' "\${NPM_CONFIG_PROVENANCE:-}" "$access" "\${RELEASE_MODE:-}" >>"$PUBLISH_LOG"`,
			'  export NPM_CONFIG_PROVENANCE=false',
			'fi',
			'exec "$REAL_NPM" "$@"',
			'',
		].join('\n'),
	);
	chmodSync(join(bin, 'npm'), 0o755);
	const userConfig = join(folder, 'npmrc');
	writeFileSync(userConfig, '');
	const base = runnerEnv();
	const npm = await realNpm();
	const secrets = { NPM_TOKEN: token };

	/** The workflow's `${{ secrets.NAME }}`, the only expression its env uses. @param {string} value */
	const expand = (value) =>
		value.replace(/\$\{\{\s*secrets\.(\w+)\s*\}\}/g, (_, name) => {
			if (!(name in secrets)) throw new Error(`the workflow uses a secret the test lacks: ${name}`);
			return secrets[name];
		});

	return {
		userConfig,
		/** @param {string} name @param {{ tag: string }} options */
		step(name, { tag }) {
			const { run: script, env } = workflowStep(yaml, name);
			const stepEnv = {
				...base,
				...Object.fromEntries(Object.entries(env).map(([key, value]) => [key, expand(value)])),
				CI: 'true',
				GITHUB_ACTIONS: 'true',
				GITHUB_REF: `refs/tags/${tag}`,
				GITHUB_REF_NAME: tag,
				GITHUB_REF_TYPE: 'tag',
				NPM_CONFIG_REGISTRY: registryUrl,
				NPM_CONFIG_USERCONFIG: userConfig,
				NPM_CONFIG_CACHE: join(folder, 'npm-cache'),
				NPM_CONFIG_UPDATE_NOTIFIER: 'false',
				NPM_CONFIG_AUDIT: 'false',
				NPM_CONFIG_FUND: 'false',
				PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
				PUBLISH_LOG: publishLog,
				REAL_NPM: npm,
			};
			return new Promise((resolve, reject) => {
				// GitHub's default shell for `run` on Linux.
				const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
					cwd: checkout,
					env: stepEnv,
					stdio: ['ignore', 'pipe', 'pipe'],
				});
				trackChild(child);
				let output = '';
				child.stdout.on('data', (chunk) => (output += chunk));
				child.stderr.on('data', (chunk) => (output += chunk));
				const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
				child.on('close', (code) => {
					clearTimeout(timer);
					if (code === 0) resolve(output);
					else {
						reject(
							Object.assign(
								new Error(`step "${name}" failed (exit ${code}):\n${output.slice(-6000)}`),
								{ output, code },
							),
						);
					}
				});
			});
		},
		publishes() {
			if (!existsSync(publishLog)) return [];
			return readFileSync(publishLog, 'utf8')
				.split('\n')
				.filter(Boolean)
				.map((line) => JSON.parse(line));
		},
	};
}
