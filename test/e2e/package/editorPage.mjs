// n8n's editor in headless Chromium, for test/e2e/package/editor.e2e.test.mjs: the nodes the suite
// adds, and the page steps (add a node as a user does, read a parameter, screenshot, and on a
// failure a screenshot with the page's errors and n8n's output).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { PACKAGE_NAME } from '../harness.mjs';

export const VIEWPORT = { width: 1280, height: 800 };
/** Where failure screenshots go (kept after the run); made at the first failure. */
let failureDir = '';

/** What n8n's editor shows for a node type it does not know (en locale, n8n 1.x and 2.x). */
const NOT_INSTALLED =
	/Install this node to use it|not currently installed|Detailed node info is not available|Install this node to start/i;
/** Our package's node icons, as the editor loads them: tells our items from n8n's own. */
const OUR_ICON = `img[src*="/icons/${PACKAGE_NAME}/"]`;

/** @param {import('playwright-core').Page | import('playwright-core').Locator} scope */
export const byTestId = (scope, id) => scope.locator(`[data-test-id="${id}"]`);

export const NODES = [
	{
		displayName: 'Voice AI',
		type: `${PACKAGE_NAME}.voiceAi`,
		pick: 'Get many agents',
		panelTitle: 'Get many agents',
		fields: { resource: 'Agent', operation: 'Get Many' },
		screenshot: 'voice-ai.png',
	},
	{
		displayName: 'Messenger',
		type: `${PACKAGE_NAME}.messenger`,
		pick: 'Get many numbers',
		panelTitle: 'Get many numbers',
		fields: { resource: 'WhatsApp Number', operation: 'Get Many' },
		screenshot: 'messenger.png',
	},
	{
		displayName: 'Voice AI Trigger',
		type: `${PACKAGE_NAME}.voiceAiTrigger`,
		pick: 'On campaign status changed',
		panelTitle: 'Voice AI Trigger',
		fields: { event: 'Campaign Status Changed' },
		screenshot: 'voice-ai-trigger.png',
	},
	{
		displayName: 'Messenger Trigger',
		type: `${PACKAGE_NAME}.messengerTrigger`,
		pick: 'On broadcast message status changed',
		panelTitle: 'Messenger Trigger',
		fields: { event: 'Broadcast Message Status Changed' },
		screenshot: 'messenger-trigger.png',
	},
];

/**
 * The steps of the suite on `page`, a signed-out page of the running n8n at `baseUrl`.
 * @param {{ page: import('playwright-core').Page, baseUrl: string, output: () => string, screenshotDir: string }} options
 */
export function editorPage({ page, baseUrl, output, screenshotDir }) {
	/** Browser console errors and failed requests, for failure messages. */
	const browserLog = [];
	page.on('console', (message) => {
		if (message.type() === 'error') browserLog.push(`console: ${message.text().slice(0, 300)}`);
	});
	page.on('requestfailed', (request) =>
		browserLog.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ''}`),
	);

	/**
	 * Runs a step; when it fails, saves a screenshot and rethrows with its path, the page's visible
	 * error text, the browser's errors and the tail of n8n's output.
	 * @template T @param {string} name @param {() => Promise<T>} step @returns {Promise<T>}
	 */
	async function diagnose(name, step) {
		try {
			return await step();
		} catch (error) {
			failureDir ||= mkdtempSync(join(tmpdir(), 'voice-messaging-editor-failures-'));
			const file = join(failureDir, `${name.replace(/[^a-z0-9-]+/gi, '-')}.png`);
			let shot = file;
			let visible = '';
			try {
				await page.screenshot({ path: file });
				visible = (await visibleErrors()).join('\n  ') || '(none)';
			} catch (screenshotError) {
				shot = `(no screenshot: ${screenshotError.message})`;
			}
			const message =
				`${name}: ${error.message}\n` +
				`screenshot: ${shot}\nurl: ${page?.url()}\n` +
				`visible errors:\n  ${visible}\n` +
				`browser log (tail):\n  ${browserLog.slice(-10).join('\n  ') || '(none)'}\n` +
				`n8n output (tail, without stack frames and its calls to api.n8n.io):\n${n8nOutputTail()}`;
			throw Object.assign(new Error(message), { cause: error });
		}
	}

	/** The end of n8n's output, without stack frames and the closed network's api.n8n.io noise. */
	function n8nOutputTail() {
		const lines = output()
			.split('\n')
			.filter((line) => line.trim() && !/^\s+at |api\.n8n\.io/.test(line));
		return lines.slice(-25).join('\n');
	}

	/** Error texts visible on the page: toasts, node errors, "not installed", parameter issues. */
	async function visibleErrors() {
		const selectors = [
			'.el-notification',
			'[role="alert"]',
			'[data-test-id="node-not-installed"]',
			'[data-test-id="node-error-message"]',
			'[data-test-id="node-error-description"]',
			'[data-test-id="rlc-error-container"]',
			'[data-test-id="parameter-issues"]',
			'[data-test-id="node-issues"]',
		];
		const texts = [];
		for (const selector of selectors) {
			for (const element of await page.locator(selector).all()) {
				if (!(await element.isVisible())) continue;
				const text = (await element.innerText()).trim().replace(/\s+/g, ' ');
				texts.push(`${selector}: ${text.slice(0, 400) || '(icon only)'}`);
			}
		}
		const body = await page.locator('body').innerText();
		const match = body.match(new RegExp(`.{0,80}(${NOT_INSTALLED.source}).{0,160}`, 'i'));
		if (match) texts.push(`page text: ${match[0]}`);
		return texts;
	}

	/** The open node panel's text, failing on the editor's "node not installed" error. */
	async function assertPanelHealthy(ndv) {
		const text = await ndv.innerText();
		assert.doesNotMatch(text, NOT_INSTALLED, 'the node panel shows the "not installed" error');
		assert.equal(await byTestId(ndv, 'node-not-installed').count(), 0, 'node-not-installed shown');
		return text;
	}

	/** Closes toasts and parks the mouse, so screenshots show the panel and nothing over it. */
	async function tidyForScreenshot() {
		for (const close of await page.locator('.el-notification__closeBtn').all()) {
			await close.click().catch(() => {});
		}
		await page.mouse.move(VIEWPORT.width - 2, VIEWPORT.height - 2);
		await page.waitForTimeout(400); // hover and close animations
	}

	async function screenshot(name) {
		await tidyForScreenshot();
		const path = join(screenshotDir, name);
		await page.screenshot({ path, fullPage: false });
		return path;
	}

	/** Opens a new, empty workflow in the editor. */
	async function newWorkflow() {
		await page.goto(`${baseUrl}/workflow/new`);
		await byTestId(page, 'node-creator-plus-button').waitFor();
		assert.equal(await byTestId(page, 'canvas-node').count(), 0, 'the new workflow is empty');
	}

	/**
	 * Adds one of our nodes the way a user does: the "+" button, a search for the display name, our
	 * item (n8n shows a package's action and trigger node as one app; our icon tells it from others),
	 * then the action or trigger event in the node details. Resolves to the open node panel.
	 * @param {{ displayName: string, pick: string, type: string }} node
	 * @param {string} [creatorScreenshot] also screenshot the node creator's details view
	 */
	async function addNode({ displayName, pick, type }, creatorScreenshot) {
		await byTestId(page, 'node-creator-plus-button').click();
		const creator = byTestId(page, 'node-creator');
		await byTestId(creator, 'node-creator-search-bar').fill(displayName);
		const appName = displayName.replace(/ Trigger$/, '');
		const ours = byTestId(creator, 'item-iterator-item')
			.filter({ has: page.locator(OUR_ICON) })
			.filter({
				has: page.locator('[data-test-id="node-creator-item-name"]', {
					hasText: new RegExp(`^(${appName}|${displayName})$`),
				}),
			});
		try {
			await ours.first().waitFor({ timeout: 10_000 });
		} catch {
			const shown = (await creator.innerText()).replace(/\s+/g, ' ').slice(0, 600);
			throw new Error(`"${displayName}" is not in the node creator's search results: ${shown}`);
		}
		await ours.first().click();

		// Node details: triggers and actions in collapsible sections; open the one holding `pick`.
		const choice = creator.getByText(pick, { exact: true });
		if (!(await choice.isVisible())) {
			for (const section of await creator.getByText(/^(Actions|Triggers) \(\d+\)$/).all()) {
				if (await choice.isVisible()) break;
				await section.click();
			}
		}
		await choice.waitFor({ timeout: 5_000 });
		assert.match(await creator.innerText(), /Installed/, 'the details mark the package installed');
		if (creatorScreenshot) await screenshot(creatorScreenshot);
		await choice.click();

		const ndv = byTestId(page, 'ndv');
		await byTestId(ndv, 'node-parameters').waitFor();
		const canvasNode = page.locator(`[data-test-id="canvas-node"][data-node-type="${type}"]`);
		assert.equal(await canvasNode.count(), 1, `one ${type} node on the canvas`);
		return ndv;
	}

	/** The value shown by the options parameter `name` in the open panel. */
	async function parameterValue(ndv, name) {
		const input = byTestId(ndv, `parameter-input-${name}`).locator('input').first();
		await input.waitFor();
		return await input.inputValue();
	}

	return { diagnose, assertPanelHealthy, screenshot, newWorkflow, addNode, parameterValue };
}
