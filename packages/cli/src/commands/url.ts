// cairn url: the address of the daemon running for this $CAIRN_HOME, token included, as
// `cairn serve` printed it; or a clear word that none runs or that its record is stale.
import { request } from 'node:http';
import { keptToken, processAlive, readDaemonRecord } from '@cairn/server';
import { cairnHome, type SessionPlatform } from '@cairn/transcript';
import { Failure, noPositionals, parseCommand } from '../usage.js';

const USAGE = 'cairn url [--json]';

/** The daemon's answer to its liveness check with this token: 204, 401, or 0 when none answers. */
function probe(base: string, token: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(new URL('alive', base), {
      headers: { authorization: `Bearer ${token}` },
      agent: false,
      timeout: 2000,
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

export async function urlCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, { json: { type: 'boolean' } }, USAGE);
  noPositionals(positionals, USAGE);
  const home = cairnHome(platform.env, platform.homeDir);
  const read = readDaemonRecord(home);
  if (read.kind === 'none')
    throw new Failure(`no daemon is running for ${home} (start one with cairn serve)`);
  if (read.kind === 'unreadable')
    throw new Failure(`the daemon record in ${home} is unreadable: ${read.reason}`);
  const { record } = read;
  if (!processAlive(record.pid)) {
    throw new Failure(
      `the daemon record in ${home} is stale: process ${record.pid} is gone (start one with cairn serve)`,
    );
  }
  const token = keptToken(home, platform.env);
  if (token === undefined) throw new Failure(`the daemon's token in ${home} is missing or unreadable`);
  const status = await probe(record.base, token);
  if (status === 0) {
    throw new Failure(`the daemon record in ${home} is stale: nothing answers at ${record.base}`);
  }
  if (status !== 204) {
    throw new Failure(
      `the daemon at ${record.base} does not take the token kept in ${home} (it answered ${status})`,
    );
  }
  const url = `${record.base}?token=${token}`;
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ url, base: record.base, port: record.port, pid: record.pid, started_at: record.startedAt }, null, 2)}\n`,
    );
  } else process.stdout.write(`${url}\n`);
  return 0;
}
