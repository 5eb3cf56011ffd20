// n8n-workflow as the node code sees it. The TypeScript sources load through require (CommonJS),
// so tests take the same copy: with the ESM copy, `instanceof NodeApiError` would never match.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const { NodeApiError, NodeOperationError } = require('n8n-workflow');
