// Headless Chromium for the editor screenshots and the Send and Wait pages: Debian's chromium
// (scripts/ensure-chromium.sh), driven by playwright-core, which never downloads a browser.
import { runSetupScript } from './processes.mjs';

/** Chromium flags for the editor test: no sandbox (root in CI), and no background connections,
 * which a closed network refuses (Chromium then stalls or logs errors). */
export const CHROMIUM_ARGS = Object.freeze([
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
]);

let chromiumPath;
/**
 * The path of a Chromium for playwright-core (scripts/ensure-chromium.sh finds one, or installs
 * Debian's `chromium` with apt-get when there is none). playwright-core never downloads a browser.
 */
export function ensureChromium() {
	chromiumPath ??= runSetupScript('ensure-chromium.sh').then((stdout) => {
		const path = stdout.split('\n').pop();
		if (!path) throw new Error('scripts/ensure-chromium.sh printed no browser path');
		return path;
	});
	return chromiumPath;
}

/**
 * Launches headless Chromium through playwright-core with CHROMIUM_ARGS. Each launch gets a fresh
 * profile (`--user-data-dir`): playwright creates a temporary one and removes it on close.
 * @param {Record<string, unknown>} [options] more options for `chromium.launch`
 * @returns {Promise<import('playwright-core').Browser>}
 */
export async function launchChromium(options = {}) {
	const executablePath = await ensureChromium();
	const { chromium } = await import('playwright-core');
	return chromium.launch({ executablePath, headless: true, args: [...CHROMIUM_ARGS], ...options });
}
