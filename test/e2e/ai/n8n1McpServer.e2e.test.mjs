// The MCP Server Trigger suite (mcpServer.e2e.test.mjs) on the n8n 1.x line (N8N_1_VERSION,
// 1.123.81), on the run's one n8n 1.x: its MCP Server Trigger serves the example alike over
// streamable HTTP and SSE (it sends no server instructions, which that suite checks too).
import { N8N_1_VERSION, importSuite } from '../harness.mjs';

await importSuite('ai/mcpServer.e2e.test.mjs', { version: N8N_1_VERSION });
