// The sending MCP example's suite (mcpServerSends.e2e.test.mjs) on the n8n 1.x line
// (N8N_1_VERSION, 1.123.81), on the run's one n8n 1.x: its MCP Server Trigger serves the two send
// tools alike over streamable HTTP and SSE, behind their own token.
import { N8N_1_VERSION, importSuite } from '../harness.mjs';

await importSuite('ai/mcpServerSends.e2e.test.mjs', { version: N8N_1_VERSION });
