// Own n8n: the editor preselects a credential only when it is the only one of its type, and the
// e2e files running beside this one add theirs to the shared n8n (and would show in screenshots).
// The nodes in n8n's editor, driven with headless Chromium (playwright-core, Debian's Chromium from
// scripts/ensure-chromium.sh): each node is found through the node creator and opens its parameter
// panel without the "not installed" error; a Voice AI node runs with "Execute step"; the campaign
// picker lists the sandbox's campaigns. The screenshots go to a temporary folder; `npm run
// screenshots` (EDITOR_SCREENSHOT_DIR=docs/images) refreshes the ones the README and docs/ show.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { DEMO_CLIENTS, startSandbox } from '../../../sandbox/server.mjs';
import {
	launchChromium,
	OWNER,
	PACKAGE_NAME,
	ROOT,
	sandboxCredential,
	sandboxModelCredential,
	useN8n,
} from '../harness.mjs';
import { NODES, VIEWPORT, byTestId, editorPage } from './editorPage.mjs';

const CREDENTIAL_NAME = 'Voice & Messaging (sandbox)';
const MODEL_CREDENTIAL_NAME = 'Sandbox chat model (stand-in)';
const CHATBOT = JSON.parse(readFileSync(join(ROOT, 'examples', 'whatsapp-ai-agent.json'), 'utf8'));
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

describe('the nodes in the n8n editor (headless Chromium)', { timeout: 6 * 60_000 }, () => {
	/** @type {Awaited<ReturnType<typeof startSandbox>>} */
	let sandbox;
	/** @type {Awaited<ReturnType<typeof useN8n>>} */
	let n8n;
	/** @type {import('playwright-core').Browser} */
	let browser;
	/** @type {import('playwright-core').Page} */
	let page;
	/** @type {ReturnType<typeof editorPage>} */
	let ui;
	let unknownWorkflowId = '';
	/** @type {Promise<import('playwright-core').Browser> | undefined} */
	let browserLaunch;

	before(async () => {
		mkdirSync(SCREENSHOT_DIR, { recursive: true });
		browserLaunch = launchChromium();
		browserLaunch.catch(() => {}); // awaited below; a failure must not go unhandled meanwhile
		// One after the other: a sandbox started beside a failing useN8n() would be left open.
		sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
		n8n = await useN8n({ env: {} });
		// The credential and the control workflow through the REST API the editor uses.
		// The ids the example workflows name, so that the chatbot example opens with its credentials.
		await n8n.importCredentials([
			sandboxCredential(
				{ id: 'sandboxVoiceMessaging', name: CREDENTIAL_NAME },
				sandbox,
				DEMO_CLIENTS.full,
			),
			sandboxModelCredential({ id: 'sandboxChatModel', name: MODEL_CREDENTIAL_NAME }, sandbox),
		]);
		unknownWorkflowId = (await n8n.importWorkflow(UNKNOWN_NODE_WORKFLOW)).id;
		browser = await browserLaunch;
		const context = await browser.newContext({ viewport: VIEWPORT, locale: 'en-US' });
		context.setDefaultTimeout(20_000);
		page = await context.newPage();
		ui = editorPage({
			page,
			baseUrl: n8n.baseUrl,
			output: () => n8n.output(),
			screenshotDir: SCREENSHOT_DIR,
		});

		await ui.diagnose('sign-in', async () => {
			await page.goto(`${n8n.baseUrl}/signin`);
			await page.locator('input[type=email]').fill(OWNER.email);
			await page.locator('input[type=password]').fill(OWNER.password);
			await page.keyboard.press('Enter');
			await page.waitForURL((url) => !url.pathname.includes('/signin'));
		});
	});

	after(async () => {
		try {
			await (browser ?? (await browserLaunch?.catch(() => undefined)))?.close();
			await n8n?.release();
		} finally {
			await sandbox?.close();
		}
		if (!process.env.EDITOR_SCREENSHOT_DIR)
			rmSync(SCREENSHOT_DIR, { recursive: true, force: true });
	});

	for (const node of NODES) {
		it(`finds ${node.displayName} in the node creator and opens its panel`, async () => {
			await ui.diagnose(node.displayName, async () => {
				await ui.newWorkflow();
				const ndv = await ui.addNode(
					node,
					node.displayName === 'Voice AI' ? 'node-creator.png' : undefined,
				);
				const text = await ui.assertPanelHealthy(ndv);
				assert.ok(text.includes(node.panelTitle), `the panel is titled "${node.panelTitle}"`);
				for (const [name, expected] of Object.entries(node.fields)) {
					assert.equal(await ui.parameterValue(ndv, name), expected, `parameter ${name}`);
				}
				// The only credential of the type is preselected.
				const credential = byTestId(ndv, 'node-credentials-select').locator('input').first();
				assert.equal(await credential.inputValue(), CREDENTIAL_NAME, 'the credential is selected');
				await ui.screenshot(node.screenshot);
			});
		});
	}

	it('opens the chatbot example: Live Trigger → AI Agent with Messenger Chat Memory and tools', async () => {
		await ui.diagnose('chatbot', async () => {
			const { id } = await n8n.importWorkflow(CHATBOT);
			await page.goto(`${n8n.baseUrl}/workflow/${id}`);
			const memory = byTestId(page, 'canvas-node').filter({ hasText: 'Chat memory' });
			await memory.first().waitFor({ timeout: 20_000 });
			assert.equal(await page.getByText('Install this node to use it').count(), 0);
			await byTestId(page, 'zoom-to-fit')
				.click()
				.catch(() => {});
			await ui.screenshot('whatsapp-chatbot.png');
		});
	});

	it('runs Voice AI → Agent → Get Many with "Execute step" and shows the agents', async () => {
		await ui.diagnose('execute-step', async () => {
			await ui.newWorkflow();
			const ndv = await ui.addNode(NODES[0]);
			await ui.assertPanelHealthy(ndv);
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
			await ui.assertPanelHealthy(ndv);
			await ui.screenshot('voice-ai-output.png');
		});
	});

	it('lists the sandbox campaigns in the Campaign → Get picker ("From list")', async () => {
		await ui.diagnose('campaign-picker', async () => {
			await ui.newWorkflow();
			const ndv = await ui.addNode({ ...NODES[0], pick: 'Get a campaign' });
			await ui.assertPanelHealthy(ndv);
			assert.equal(await ui.parameterValue(ndv, 'resource'), 'Campaign');
			assert.equal(await ui.parameterValue(ndv, 'operation'), 'Get');
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
			await ui.screenshot('campaign-picker.png');

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
		await ui.diagnose('not-installed-control', async () => {
			await page.goto(`${n8n.baseUrl}/workflow/${unknownWorkflowId}`);
			const node = byTestId(page, 'canvas-node').first();
			await node.waitFor();
			await node.dblclick();
			const ndv = byTestId(page, 'ndv');
			await ndv.waitFor();
			await assert.rejects(ui.assertPanelHealthy(ndv), /not installed/);
		});
	});
});
