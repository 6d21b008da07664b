// cairn serve: the daemon and the web UI on one local port, until interrupted.
import { DEFAULT_WIRE_LIMITS, startServer, type WireLimits } from '@cairn/server';
import type { SessionPlatform } from '@cairn/transcript';
import { noPositionals, parseCommand, UsageError } from '../usage.js';

const USAGE =
  'cairn serve [--port N] [--host H] [--no-demo] [--database postgres://…] [--max-workstations N] [--max-event-rate N]';

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
      'max-workstations': { type: 'string' },
      'max-event-rate': { type: 'string' },
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
  const wireLimits = limitsOf(
    values['max-workstations'] ?? (platform.env.CAIRN_MAX_WORKSTATIONS || undefined),
    values['max-event-rate'] ?? (platform.env.CAIRN_MAX_EVENT_RATE || undefined),
  );
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
    ...(wireLimits === undefined ? {} : { wireLimits }),
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

/**
 * The agent wire's limits from `--max-workstations` and `--max-event-rate` (or their variables):
 * the rate is events a second per workstation, with bursts up to as many as the default allows
 * for its own rate (five seconds' worth).
 */
function limitsOf(
  workstations: string | undefined,
  rate: string | undefined,
): Partial<WireLimits> | undefined {
  const whole = (value: string | undefined, flag: string): number | undefined => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1)
      throw new UsageError(`${flag} takes a whole number from 1, got ${value}\nusage: ${USAGE}`);
    return n;
  };
  const maxWorkstations = whole(workstations, '--max-workstations');
  const eventsPerSecond = whole(rate, '--max-event-rate');
  if (maxWorkstations === undefined && eventsPerSecond === undefined) return undefined;
  const burstSeconds = DEFAULT_WIRE_LIMITS.eventBurst / DEFAULT_WIRE_LIMITS.eventsPerSecond;
  return {
    ...(maxWorkstations === undefined ? {} : { maxWorkstations }),
    ...(eventsPerSecond === undefined ? {} : { eventsPerSecond, eventBurst: eventsPerSecond * burstSeconds }),
  };
}
