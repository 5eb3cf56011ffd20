// The TypeScript sources load through require (CommonJS). An ESM `import` of the same file can
// give a second copy of the module, so tests take what they share with the node code from
// require: n8n-workflow (for `instanceof NodeApiError`) and mutable settings such as
// retrySettings, which must be the very object the nodes read.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const { NodeApiError, NodeOperationError } = require('n8n-workflow');
export const { retrySettings } = require('../nodes/shared/transport.ts');
export const { pacingSettings, resetPacing } = require('../nodes/shared/pacing.ts');
export const { resetSharedTokens } = require('../nodes/shared/auth/tokenShare.ts');
