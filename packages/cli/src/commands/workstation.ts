// cairn workstation: run the agents of this machine for a cairn server elsewhere, or manage the
// tickets such workstations connect with.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  cairnHomeOf,
  connectToServer,
  Journal,
  rosterLaunchResolver,
  secureCairnHome,
  Workstation,
} from '@cairn/runner';
import {
  isWorkstationName,
  LOCAL_WORKSTATION,
  listTickets,
  makeTicket,
  revokeTickets,
  startMachineSync,
} from '@cairn/server';
import { markTurnErrorsOnNode, type SessionPlatform } from '@cairn/transcript';
import { Failure, parseCommand, UsageError } from '../usage.js';

const USAGE = `cairn workstation --server URL [--server URL…] [--ticket-file PATH] [--sync]   (the ticket in CAIRN_TICKET or the file)
       cairn workstation ticket <name> [--replace] [--json]
       cairn workstation ticket --list [--json]
       cairn workstation ticket --revoke <name> [--json]`;

const usage = (message: string) => new UsageError(`${message}\nusage: ${USAGE}`);

const nameRule = 'letters, digits, . _ -, at most 64';

export async function workstationCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  // Refused before parsing, with or without its value: a command line is visible to every user.
  if (argv.some((a) => a === '--ticket' || a.startsWith('--ticket='))) {
    throw usage(
      '--ticket would show the ticket to every user of this machine (command lines are public); put it in CAIRN_TICKET or in a file named by --ticket-file',
    );
  }
  const { values, positionals } = parseCommand(
    argv,
    {
      server: { type: 'string', multiple: true },
      'ticket-file': { type: 'string' },
      replace: { type: 'boolean' },
      list: { type: 'boolean' },
      revoke: { type: 'string' },
      json: { type: 'boolean' },
      sync: { type: 'boolean' },
    },
    USAGE,
  );
  const env = platform.env as Record<string, string | undefined>;
  const cairnHome = cairnHomeOf(env);
  if (positionals[0] === 'ticket') {
    if (values.server !== undefined || values['ticket-file'] !== undefined || values.sync)
      throw usage('--server, --ticket-file and --sync are for running a workstation, not for its tickets');
    return ticketCommand(cairnHome, positionals.slice(1), values);
  }
  if (positionals.length > 0) throw usage(`unexpected argument '${positionals[0]}'`);
  if (values.list || values.replace || values.revoke !== undefined || values.json)
    throw usage('--list, --revoke, --replace and --json go with `cairn workstation ticket`');

  const serverUrls = serverAddresses(values.server ?? []);
  const ticket = readTicket(values['ticket-file'], env);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  secureCairnHome(cairnHome);
  const journal = Journal.open(join(cairnHome, 'journal.sqlite'));
  const workstation = new Workstation({
    ticket,
    cairnHome,
    journal,
    env,
    resolveLaunch: rosterLaunchResolver({ cairnHome, storeErrors: markTurnErrorsOnNode }),
    log,
    watchConfig: true,
  });
  const client = connectToServer({ serverUrl: serverUrls, ticket, workstation, log });
  void client.connected.then(() => log(`cairn: workstation connected to ${client.address()}`));
  // With --sync, the server's list also holds this machine's own sessions, kept up as they change.
  const machine = values.sync
    ? startMachineSync({ env, cairnHome, serverUrls, ticket, log, homeDir: platform.homeDir })
    : undefined;
  if (machine)
    void machine.sync.caughtUp().then(() => {
      const { sent, docs, batches, bytes } = machine.sync.counts;
      log(
        `cairn: this machine's sessions are synced (${sent} sent, ${docs} search documents, in ${batches} batches, ${bytes} bytes; the rest already held)`,
      );
    });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  client.close();
  await machine?.close();
  await workstation.stop();
  journal.close();
  return 0;
}

/**
 * The addresses of `--server`, repeated or as a comma list: one server, or the processes of a team's
 * server in the order to try them.
 */
function serverAddresses(given: readonly string[]): string[] {
  const addresses = given.flatMap((value) => value.split(',')).map((a) => a.trim());
  if (addresses.length === 0) throw usage('--server is needed');
  for (const address of addresses) {
    let url: URL | undefined;
    try {
      url = new URL(address);
    } catch {}
    if (url?.protocol !== 'http:' && url?.protocol !== 'https:')
      throw usage(
        `--server takes the server's address, like http://127.0.0.1:4000 (got '${address}'); several are repeated or comma-separated`,
      );
  }
  return [...new Set(addresses)];
}

/** The ticket from `--ticket-file` when given, else from `CAIRN_TICKET`. */
function readTicket(file: string | undefined, env: Record<string, string | undefined>): string {
  if (file === undefined) {
    const ticket = env.CAIRN_TICKET?.trim();
    if (!ticket) throw usage('a ticket is needed: set CAIRN_TICKET or name a file with --ticket-file');
    return ticket;
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
    if ((statSync(file).mode & 0o077) !== 0)
      process.stderr.write(`cairn: ${file} can be read by other users; chmod 600 it\n`);
  } catch (cause) {
    throw new Failure(`cannot read the ticket file ${file}: ${(cause as Error).message}`);
  }
  const ticket = text.trim();
  if (ticket === '' || /\s/.test(ticket))
    throw new Failure(`${file} does not hold a ticket (one line, no spaces)`);
  return ticket;
}

function ticketCommand(
  cairnHome: string,
  args: string[],
  values: { replace?: boolean; list?: boolean; revoke?: string; json?: boolean },
): number {
  const out = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  if (values.list) {
    if (args.length > 0 || values.revoke !== undefined || values.replace)
      throw usage('--list takes no name and no other option but --json');
    const tickets = listTickets(cairnHome);
    if (values.json) out(tickets.map((t) => ({ name: t.name, issued_at: t.issuedAt ?? null })));
    else if (tickets.length === 0) process.stderr.write('cairn: no workstation tickets\n');
    else {
      const width = Math.max(...tickets.map((t) => t.name.length));
      for (const t of tickets)
        process.stdout.write(`${t.name.padEnd(width)}  ${t.issuedAt ?? 'issued before dates were kept'}\n`);
    }
    return 0;
  }
  if (values.revoke !== undefined) {
    const name = values.revoke;
    if (args.length > 0 || values.replace)
      throw usage('--revoke takes one name and no other option but --json');
    if (!isWorkstationName(name)) throw usage(`not a workstation name: '${name}' (${nameRule})`);
    const revoked = revokeTickets(cairnHome, name);
    if (revoked === 0) throw new Failure(`workstation ${name} has no ticket`);
    if (values.json) out({ name, revoked });
    else
      process.stdout.write(
        `revoked the ticket of ${name}: a workstation connected with it is cut at its next heartbeat and refused from then on\n`,
      );
    return 0;
  }
  const [name, ...rest] = args;
  if (name === undefined) throw usage('a ticket needs a workstation name');
  if (rest.length > 0) throw usage(`unexpected argument '${rest[0]}'`);
  if (!isWorkstationName(name)) throw usage(`not a workstation name: '${name}' (${nameRule})`);
  if (name === LOCAL_WORKSTATION)
    throw usage(
      `'${LOCAL_WORKSTATION}' is the daemon's own workstation, which needs no ticket: pick another name`,
    );
  const issued = makeTicket(cairnHome, name, { replace: values.replace === true });
  if (!issued.ok) throw new Failure(issued.error.message);
  if (values.json)
    out({ name, ticket: issued.ticket, issued_at: issued.issuedAt, replaced: issued.replaced });
  else {
    process.stdout.write(`${issued.ticket}\n`);
    process.stderr.write(
      `cairn: the ticket of ${name}${issued.replaced > 0 ? ' (the old one is revoked)' : ''}; it is shown only now. Give it to the workstation in CAIRN_TICKET or a file for --ticket-file.\n`,
    );
  }
  return 0;
}
