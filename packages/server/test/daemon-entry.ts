// A daemon for tests run as a child process: serves the agents' homes its environment names, prints
// `ready <port> <token>` once the index is built, and stops on SIGTERM.
import { startServer } from '../src/index.js';

const server = await startServer({
  env: process.env,
  ...(process.env.HOME === undefined ? {} : { homeDir: process.env.HOME }),
  ...(process.env.CAIRN_HOME === undefined ? {} : { cairnHome: process.env.CAIRN_HOME }),
  port: 0,
  waitForIndex: true,
  demo: false,
  rescanMs: 60_000,
  log: (line) => process.stderr.write(`${line}\n`),
});
process.stdout.write(`ready ${server.port} ${server.token}\n`);
process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
