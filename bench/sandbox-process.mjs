// Starts a sandbox in its own process (so its memory and CPU are not counted with the client's)
// and prints its URL as one JSON line. Options come as a JSON argument.
import { startSandbox } from '../sandbox/server.mjs';

const sandbox = await startSandbox({ port: 0, ...JSON.parse(process.argv[2] ?? '{}') });
process.stdout.write(`${JSON.stringify({ url: sandbox.url })}\n`);
const stop = async () => {
	await sandbox.close();
	process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('disconnect', stop);
