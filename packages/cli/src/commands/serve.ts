// cairn serve: the daemon and the web UI on one local port, until interrupted.
import { startServer } from '@cairn/server';
import type { SessionPlatform } from '@cairn/transcript';
import { noPositionals, parseCommand, UsageError } from '../usage.js';

const USAGE = 'cairn serve [--port N] [--host H] [--no-demo] [--database postgres://…]';

/** A connection string as cairn shows it: without its password. */
export const withoutPassword = (url: string): string =>
  url.replace(/^([a-z]+:\/\/[^:/@]*):[^@]*@/i, '$1:***@');

export async function serveCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    {
      port: { type: 'string' },
      host: { type: 'string' },
      'no-demo': { type: 'boolean' },
      database: { type: 'string' },
    },
    USAGE,
  );
  noPositionals(positionals, USAGE);
  // Without --port the daemon asks for the port it had last time, so open tabs find it again.
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) {
    throw new UsageError(`--port takes a port number (0 for any free one)\nusage: ${USAGE}`);
  }
  // The state in PostgreSQL, shared by every server process on it; SQLite under $CAIRN_HOME without.
  const database = values.database ?? (platform.env.CAIRN_DATABASE_URL || undefined);
  if (database !== undefined && !/^postgres(ql)?:\/\//i.test(database)) {
    throw new UsageError(
      `--database takes a PostgreSQL connection string (postgres://user@host/db), got ${withoutPassword(database)}\nusage: ${USAGE}`,
    );
  }
  const host = values.host ?? '127.0.0.1';
  const log = (line: string) => process.stderr.write(`${line}\n`);
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') {
    log(
      `cairn: warning: listening on ${host} makes the server reachable from other machines; only the token guards it`,
    );
  }
  const server = await startServer({
    ...(port === undefined ? {} : { port }),
    host,
    env: platform.env,
    homeDir: platform.homeDir,
    log,
    demo: values['no-demo'] !== true,
    ...(database === undefined ? {} : { database }),
  });
  if (database !== undefined) log(`cairn: state in PostgreSQL at ${withoutPassword(database)}`);
  process.stdout.write(`cairn: serving at ${server.url}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      void server.close().then(resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    server.closed.then(resolve);
  });
  return 0;
}
