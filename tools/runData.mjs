// What an n8n execution produced: the run data `n8n execute --rawOutput` prints or the REST API
// stores, one node's output items, and its error.

/**
 * Extracts the JSON document that `n8n execute --rawOutput` prints (other log lines may surround it).
 * @param {string} stdout
 */
export function parseRawOutput(stdout) {
	const text = stdout.trim();
	try {
		return JSON.parse(text);
	} catch {
		// Log lines may come before and after the document (a failed execution prints its run data
		// between "Execution error:" and the error's stack): try each "{" line with each "}" line.
		const lines = text.split('\n');
		const starts = lines.flatMap((line, i) => (line.startsWith('{') ? [i] : []));
		const ends = lines.flatMap((line, i) => (line === '}' ? [i] : [])).reverse();
		for (const start of starts) {
			if (lines[start].trim() !== '{') {
				try {
					return JSON.parse(lines[start]);
				} catch {
					// not a one-line document
				}
			}
			for (const end of ends) {
				if (end < start) break;
				try {
					return JSON.parse(lines.slice(start, end + 1).join('\n'));
				} catch {
					// keep looking
				}
			}
		}
		throw new Error(`n8n execute printed no JSON run data:\n${stdout.slice(-4000)}`);
	}
}

/**
 * The output items (their `json`) of one node in the run data of `n8n execute --rawOutput`.
 * @param {any} result parsed output
 * @param {string} nodeName
 * @param {number} [outputIndex]
 */
export function nodeOutput(result, nodeName, outputIndex = 0) {
	const runData = result?.data?.resultData?.runData ?? result?.resultData?.runData;
	if (!runData) throw new Error(`no runData in ${JSON.stringify(result).slice(0, 2000)}`);
	return lastRunItems(runData, nodeName, outputIndex);
}

/**
 * The items (their `json`) one node output on `outputIndex` in its last run; fails when the node
 * did not run, or failed without output.
 * @param {Record<string, any[]>} runData an execution's `resultData.runData`
 * @param {string} nodeName
 * @param {number} [outputIndex]
 */
export function lastRunItems(runData, nodeName, outputIndex = 0) {
	const runs = runData[nodeName];
	if (!runs?.length)
		throw new Error(`node "${nodeName}" did not run; ran: ${Object.keys(runData)}`);
	const last = runs[runs.length - 1];
	if (last.error && !last.data) {
		throw Object.assign(new Error(`node "${nodeName}" failed: ${last.error.message}`), {
			nodeError: last.error,
		});
	}
	return (last.data?.main?.[outputIndex] ?? []).map((item) => item.json);
}

/** The error of a failed execution, or undefined. */
export function executionError(result) {
	return result?.data?.resultData?.error ?? result?.resultData?.error;
}

/**
 * `result` when the execution succeeded; otherwise fails with its error and the tail of `log`
 * (n8n's output), so a failing test shows why.
 * @param {any} result parsed output of `execute`
 * @param {string} log
 */
export function assertExecutionSucceeded(result, log) {
	const error = executionError(result);
	if (error !== undefined) {
		throw new Error(
			`execution failed: ${JSON.stringify(error)?.slice(0, 3000)}\n${log.slice(-4000)}`,
		);
	}
	return result;
}
