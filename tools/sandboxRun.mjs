// Runs a node's operations against a running sandbox over real HTTP, with n8n's token flow.
import { createExecuteContext, sandboxHttp } from './context.mjs';

/**
 * A runner bound to one credential (one token store), as one credential in n8n would be.
 * `run(params, opts)` executes the node once and returns its first output.
 */
export function sandboxRunner(NodeClass, sandbox, client, extraCredentials = {}) {
	const auth = sandboxHttp(sandbox, client, extraCredentials);
	const node = new NodeClass();
	async function run(params, { items = [{ json: {} }], continueOnFail = false, binary } = {}) {
		const context = createExecuteContext({
			params,
			items,
			credentials: auth.store.data,
			http: auth.httpRequestWithAuthentication,
			continueOnFail,
			binary,
		});
		const output = await node.execute.call(context);
		return output[0];
	}
	return { run, store: auth.store, http: auth.httpRequestWithAuthentication };
}

/** The sandbox log entries after `mark` (an index from `sandbox.log.length`), as "METHOD path status". */
export function requestsSince(sandbox, mark) {
	return sandbox.log.slice(mark).map((entry) => `${entry.method} ${entry.path} ${entry.status}`);
}
