// cairn workstation: run the agents of this machine for a cairn server elsewhere, or issue the
// ticket such a workstation connects with.
import { join } from 'node:path';
import { cairnHomeOf, connectToServer, Journal, rosterLaunchResolver, Workstation } from '@cairn/runner';
import { issueTicket } from '@cairn/server';
import type { SessionPlatform } from '@cairn/transcript';
import { parseCommand, UsageError } from '../usage.js';

const USAGE = 'cairn workstation --server URL --ticket T | cairn workstation ticket <name>';

export async function workstationCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    { server: { type: 'string' }, ticket: { type: 'string' } },
    USAGE,
  );
  const env = platform.env as Record<string, string | undefined>;
  const cairnHome = cairnHomeOf(env);
  if (positionals[0] === 'ticket') {
    const name = positionals[1];
    if (name === undefined || positionals.length > 2 || !/^[\w.-]{1,64}$/.test(name)) {
      throw new UsageError(`a ticket needs one workstation name (letters, digits, . _ -)\nusage: ${USAGE}`);
    }
    process.stdout.write(`${issueTicket(cairnHome, name)}\n`);
    return 0;
  }
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument '${positionals[0]}'\nusage: ${USAGE}`);
  const serverUrl = values.server;
  const ticket = values.ticket ?? env.CAIRN_TICKET;
  if (!serverUrl || !ticket) throw new UsageError(`--server and --ticket are both needed\nusage: ${USAGE}`);
  try {
    new URL(serverUrl);
  } catch {
    throw new UsageError(`--server takes the server's address, like http://127.0.0.1:4000\nusage: ${USAGE}`);
  }
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const journal = Journal.open(join(cairnHome, 'journal.sqlite'));
  const workstation = new Workstation({
    ticket,
    cairnHome,
    journal,
    env,
    resolveLaunch: rosterLaunchResolver({ cairnHome }),
    log,
  });
  const client = connectToServer({ serverUrl, ticket, workstation, log });
  void client.connected.then(() => log(`cairn: workstation connected to ${serverUrl}`));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  client.close();
  await workstation.stop();
  journal.close();
  return 0;
}
