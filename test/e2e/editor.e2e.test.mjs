// The nodes in n8n's editor, driven with headless Chromium (playwright-core, Debian's Chromium from
// scripts/ensure-chromium.sh): each node is found through the node creator and opens its parameter
// panel without the "not installed" error; a Voice AI node runs with "Execute step"; the campaign
// picker lists the sandbox's campaigns. The screenshots go to a temporary folder; `npm run
// screenshots` (EDITOR_SCREENSHOT_DIR=docs/images) refreshes the ones the README shows.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { DEMO_CLIENTS, startSandbox } from '../../sandbox/server.mjs';
import {
	bcryptHash,
	cleanupPack,
	createN8nInstance,
	launchChromium,
	PACKAGE_NAME,
	packPackage,
	sandboxCredential,
} from './harness.mjs';

const OWNER = { email: 'owner@e2e.example', password: 'E2e-owner-Passw0rd' };
const CREDENTIAL_NAME = 'Voice & Messaging (sandbox)';
/** A workflow with a node type the package does not have: the control for the error check. */
const UNKNOWN_NODE_WORKFLOW = {
	name: 'e2e editor: not-installed control',
	settings: { executionOrder: 'v1' },
	connections: {},
	pinData: {},
	nodes: [
		{
			name: 'Ghost',
			type: `${PACKAGE_NAME}.notARealNode`,
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
	],
};

const SCREENSHOT_DIR =
	process.env.EDITOR_SCREENSHOT_DIR || mkdtempSync(join(tmpdir(), 'voice-messaging-editor-shots-'));
/** Where failure screenshots go (kept after the run); made at the first failure. */
let failureDir = '';
const VIEWPORT = { width: 1280, height: 800 };

/** What n8n's editor shows for a node type it does not know (en locale, n8n 1.x and 2.x). */
const NOT_INSTALLED =
	/Install this node to use it|not currently installed|Detailed node info is not available|Install this node to start/i;
/** Our package's node icons, as the editor loads them: tells our items from n8n's own. */
const OUR_ICON = `img[src*="/icons/${PACKAGE_NAME}/"]`;

/** @param {import('playwright-core').Page | import('playwright-core').Locator} scope */
const byTestId = (scope, id) => scope.locator(`[data-test-id="${id}"]`);

/**
 * Logs in over REST (the owner from N8N_INSTANCE_OWNER_*) and returns a caller for the REST API
 * that resolves to a response's `data`.
 * @param {string} baseUrl @param {{ email: string, password: string }} user
 */
async function restSession(baseUrl, { email, password }) {
	const browserId = 'e2e-editor-setup';
	const call = async (method, path, body, cookie = '') => {
		const response = await fetch(`${baseUrl}${path}`, {
			method,
			headers: { 'content-type': 'application/json', 'browser-id': browserId, cookie },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		assert.equal(
			response.status,
			200,
			`${method} ${path} → ${response.status}: ${text.slice(0, 1000)}`,
		);
		return { response, data: JSON.parse(text).data };
	};
	const { response } = await call('POST', '/rest/login', { emailOrLdapLoginId: email, password });
	const cookie = response.headers
		.getSetCookie()
		.map((line) => line.split(';')[0])
		.join('; ');
	assert.match(cookie, /n8n-auth=/, 'the login set a session cookie');
	return async (method, path, body) => (await call(method, path, body, cookie)).data;
}

const NODES = [
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

describe('the nodes in the n8n editor (headless Chromium)', { timeout: 6 * 60_000 }, () => {
	/** @type {Awaited<ReturnType<typeof startSandbox>>} */
	let sandbox;
	/** @type {Awaited<ReturnType<typeof createN8nInstance>>} */
	let n8n;
	/** @type {Awaited<ReturnType<Awaited<ReturnType<typeof createN8nInstance>>['start']>>} */
	let server;
	/** @type {import('playwright-core').Browser} */
	let browser;
	/** @type {import('playwright-core').Page} */
	let page;
	let unknownWorkflowId = '';
	/** @type {Promise<import('playwright-core').Browser> | undefined} */
	let browserLaunch;
	/** Browser console errors and failed requests, for failure messages. */
	const browserLog = [];

	before(async () => {
		mkdirSync(SCREENSHOT_DIR, { recursive: true });
		browserLaunch = launchChromium();
		browserLaunch.catch(() => {}); // awaited below; a failure must not go unhandled meanwhile
		const [startedSandbox, tarball] = await Promise.all([
			startSandbox({ port: 0, host: '127.0.0.1' }),
			packPackage(),
		]);
		sandbox = startedSandbox;
		n8n = await createN8nInstance({ tarball });
		server = await n8n.start({
			N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
			N8N_INSTANCE_OWNER_EMAIL: OWNER.email,
			N8N_INSTANCE_OWNER_PASSWORD_HASH: bcryptHash(n8n.n8nDir, OWNER.password),
		});
		// The credential and the control workflow through the REST API the editor uses (the CLI's
		// import:* commands boot n8n once each: ~10 s apiece).
		const rest = await restSession(server.baseUrl, OWNER);
		await rest(
			'POST',
			'/rest/credentials',
			sandboxCredential({ name: CREDENTIAL_NAME }, sandbox, DEMO_CLIENTS.full),
		);
		unknownWorkflowId = (await rest('POST', '/rest/workflows', UNKNOWN_NODE_WORKFLOW)).id;
		browser = await browserLaunch;
		const context = await browser.newContext({ viewport: VIEWPORT, locale: 'en-US' });
		context.setDefaultTimeout(20_000);
		page = await context.newPage();
		page.on('console', (message) => {
			if (message.type() === 'error') browserLog.push(`console: ${message.text().slice(0, 300)}`);
		});
		page.on('requestfailed', (request) =>
			browserLog.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ''}`),
		);

		await diagnose('sign-in', async () => {
			await page.goto(`${server.baseUrl}/signin`);
			await page.locator('input[type=email]').fill(OWNER.email);
			await page.locator('input[type=password]').fill(OWNER.password);
			await page.keyboard.press('Enter');
			await page.waitForURL((url) => !url.pathname.includes('/signin'));
		});
	});

	after(async () => {
		await (browser ?? (await browserLaunch?.catch(() => undefined)))?.close();
		await server?.stop();
		await n8n?.cleanup();
		await sandbox?.close();
		cleanupPack();
		if (!process.env.EDITOR_SCREENSHOT_DIR)
			rmSync(SCREENSHOT_DIR, { recursive: true, force: true });
	});

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
		const lines = (server?.output() ?? '')
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
		const path = join(SCREENSHOT_DIR, name);
		await page.screenshot({ path, fullPage: false });
		return path;
	}

	/** Opens a new, empty workflow in the editor. */
	async function newWorkflow() {
		await page.goto(`${server.baseUrl}/workflow/new`);
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

	for (const node of NODES) {
		it(`finds ${node.displayName} in the node creator and opens its panel`, async () => {
			await diagnose(node.displayName, async () => {
				await newWorkflow();
				const ndv = await addNode(
					node,
					node.displayName === 'Voice AI' ? 'node-creator.png' : undefined,
				);
				const text = await assertPanelHealthy(ndv);
				assert.ok(text.includes(node.panelTitle), `the panel is titled "${node.panelTitle}"`);
				for (const [name, expected] of Object.entries(node.fields)) {
					assert.equal(await parameterValue(ndv, name), expected, `parameter ${name}`);
				}
				// The only credential of the type is preselected.
				const credential = byTestId(ndv, 'node-credentials-select').locator('input').first();
				assert.equal(await credential.inputValue(), CREDENTIAL_NAME, 'the credential is selected');
				await screenshot(node.screenshot);
			});
		});
	}

	it('runs Voice AI → Agent → Get Many with "Execute step" and shows the agents', async () => {
		await diagnose('execute-step', async () => {
			await newWorkflow();
			const ndv = await addNode(NODES[0]);
			await assertPanelHealthy(ndv);
			sandbox.clearLog();
			await byTestId(ndv, 'node-execute-button').first().click();
			const output = byTestId(ndv, 'ndv-output-panel').or(byTestId(ndv, 'output-panel')).first();
			const count = byTestId(output, 'run-data-item-count').first();
			await count.waitFor({ timeout: 30_000 });
			const agents = sandbox.state.agents;
			assert.ok(agents.length > 0 && agents.length <= 50, 'the sandbox has one page of agents');
			assert.equal((await count.innerText()).trim(), `${agents.length} items`);
			// The count comes before the table's rows: wait for a row with an agent's name.
			const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
			const anyName = new RegExp(agents.map((agent) => escape(agent.name)).join('|'));
			await output.getByText(anyName).first().waitFor({ timeout: 10_000 });
			const shown = await output.innerText();
			const namesShown = agents.filter((agent) => shown.includes(agent.name));
			assert.ok(namesShown.length >= 3, `agent names in the output: ${shown.slice(0, 500)}`);
			assert.ok(
				sandbox.log.some((entry) => entry.path.endsWith('/voice/agents') && entry.status === 200),
				'the editor run reached the sandbox',
			);
			await assertPanelHealthy(ndv);
			await screenshot('voice-ai-output.png');
		});
	});

	it('lists the sandbox campaigns in the Campaign → Get picker ("From list")', async () => {
		await diagnose('campaign-picker', async () => {
			await newWorkflow();
			const ndv = await addNode({ ...NODES[0], pick: 'Get a campaign' });
			await assertPanelHealthy(ndv);
			assert.equal(await parameterValue(ndv, 'resource'), 'Campaign');
			assert.equal(await parameterValue(ndv, 'operation'), 'Get');
			const locator = byTestId(ndv, 'resource-locator-campaignId');
			const mode = byTestId(locator, 'rlc-mode-selector').locator('input').first();
			assert.equal(await mode.inputValue(), 'From list');
			await byTestId(locator, 'rlc-input').click();
			const items = byTestId(page, 'rlc-item');
			await items.first().waitFor({ timeout: 20_000 });
			const listed = (await items.allInnerTexts()).map((text) => text.trim());
			const labels = new Set(
				sandbox.state.campaigns.map((campaign) => `${campaign.name} (${campaign.status})`),
			);
			assert.ok(listed.length >= 5, `campaigns listed: ${JSON.stringify(listed)}`);
			const unknown = listed.filter((label) => !labels.has(label));
			assert.deepEqual(unknown, [], 'every entry is a sandbox campaign as "name (status)"');
			assert.equal(await byTestId(page, 'rlc-error-container').count(), 0, 'no list error');
			await screenshot('campaign-picker.png');

			// The search box filters the list.
			const term = sandbox.state.campaigns.at(-1).name.split(' ')[0];
			await byTestId(page, 'rlc-search').fill(term);
			await page.waitForFunction(
				({ selector, term }) => {
					const texts = [...document.querySelectorAll(selector)].map((e) => e.textContent ?? '');
					return (
						texts.length > 0 && texts.every((t) => t.toLowerCase().includes(term.toLowerCase()))
					);
				},
				{ selector: '[data-test-id="rlc-item"]', term },
				{ timeout: 15_000 },
			);
		});
	});

	it('recognises a not-installed node panel (control for the checks above)', async () => {
		await diagnose('not-installed-control', async () => {
			await page.goto(`${server.baseUrl}/workflow/${unknownWorkflowId}`);
			const node = byTestId(page, 'canvas-node').first();
			await node.waitFor();
			await node.dblclick();
			const ndv = byTestId(page, 'ndv');
			await ndv.waitFor();
			await assert.rejects(assertPanelHealthy(ndv), /not installed/);
		});
	});
});
