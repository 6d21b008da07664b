// cairn server: the people and workstations of a team's server, kept in its PostgreSQL database.
// A token or a ticket is printed once, when it is made; the database keeps only its digest.
import {
  LOCAL_WORKSTATION,
  openTeamStore,
  type Role,
  StoreRefused,
  type UserRecord,
  type WorkstationRecord,
} from '@cairn/server';
import type { SessionPlatform } from '@cairn/transcript';
import { Failure, parseCommand, UsageError } from '../usage.js';
import { withoutPassword } from './serve.js';

const USAGE = `cairn server user add <name> [--role admin|member] [--json]
       cairn server user list|remove <name>|token <name> [--json]
       cairn server workstation add <name> --owner <user> [--shared] [--json]
       cairn server workstation list|remove <name> [--json]
       (each with --database postgres://… or $CAIRN_DATABASE_URL)`;

const usage = (message: string) => new UsageError(`${message}\nusage: ${USAGE}`);

type Values = { database?: string; role?: string; owner?: string; shared?: boolean; json?: boolean };
type Store = Awaited<ReturnType<typeof openTeamStore>>;

export async function serverCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    {
      database: { type: 'string' },
      role: { type: 'string' },
      owner: { type: 'string' },
      shared: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    USAGE,
  );
  const [kind, verb, name, ...rest] = positionals;
  if (kind !== 'user' && kind !== 'workstation') throw usage('say `user` or `workstation`');
  if (rest.length > 0) throw usage(`unexpected argument '${rest[0]}'`);
  const verbs = kind === 'user' ? ['add', 'list', 'remove', 'token'] : ['add', 'list', 'remove'];
  if (verb === undefined || !verbs.includes(verb))
    throw usage(`cairn server ${kind} takes ${verbs.join(', ')}`);
  if (verb === 'list' ? name !== undefined : name === undefined)
    throw usage(verb === 'list' ? `${kind} list takes no name` : `${kind} ${verb} needs a name`);
  if (values.role !== undefined && !(kind === 'user' && verb === 'add'))
    throw usage('--role goes with `user add`');
  if ((values.owner !== undefined || values.shared) && !(kind === 'workstation' && verb === 'add'))
    throw usage('--owner and --shared go with `workstation add`');
  const database = values.database ?? (platform.env.CAIRN_DATABASE_URL || undefined);
  if (database === undefined)
    throw usage(
      'people and workstations live in a team server’s database: give --database or set CAIRN_DATABASE_URL',
    );
  if (!/^postgres(ql)?:\/\//i.test(database))
    throw usage(
      `--database takes a PostgreSQL connection string (postgres://user@host/db), got ${withoutPassword(database)}`,
    );
  let store: Store;
  try {
    store = await openTeamStore(database);
  } catch (error) {
    // The store's message names the database without its password.
    throw new Failure((error as Error).message);
  }
  try {
    return kind === 'user'
      ? await userCommand(store, verb, name, values)
      : await workstationCommand(store, verb, name, values);
  } catch (error) {
    if (error instanceof StoreRefused) throw new Failure(error.message);
    if (error instanceof TypeError && /^not a (user|workstation) name/.test(error.message))
      throw usage(error.message);
    throw error;
  } finally {
    await store.close();
  }
}

const out = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
const note = (line: string) => process.stderr.write(`cairn: ${line}\n`);
const day = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);

const userJson = (u: UserRecord) => ({
  name: u.name,
  role: u.role,
  created_at: new Date(u.createdAt).toISOString(),
});
const workstationJson = (w: WorkstationRecord, issuedAt: string | undefined) => ({
  name: w.name,
  owner: w.owner,
  visibility: w.visibility,
  created_at: new Date(w.createdAt).toISOString(),
  ticket_issued_at: issuedAt ?? null,
});

async function userCommand(
  store: Store,
  verb: string,
  name: string | undefined,
  values: Values,
): Promise<number> {
  switch (verb) {
    case 'add': {
      const role = (values.role ?? 'member') as Role;
      if (role !== 'admin' && role !== 'member')
        throw usage(`--role is admin or member, got '${values.role}'`);
      const { user, token } = await store.users.add(name!, role);
      if (values.json) out({ ...userJson(user), token });
      else {
        process.stdout.write(`${token}\n`);
        note(
          `the token of ${user.name} (${user.role}); it is shown only now. They sign in with it in the browser.`,
        );
      }
      return 0;
    }
    case 'token': {
      const token = await store.users.renewToken(name!);
      if (token === undefined) throw new Failure(`no user named ${name}`);
      if (values.json) out({ name, token });
      else {
        process.stdout.write(`${token}\n`);
        note(`a new token for ${name}, shown only now; the old one no longer signs in`);
      }
      return 0;
    }
    case 'remove': {
      if (!(await store.users.remove(name!))) throw new Failure(`no user named ${name}`);
      if (values.json) out({ name, removed: true });
      else process.stdout.write(`removed user ${name}\n`);
      return 0;
    }
    default: {
      const users = await store.users.list();
      if (values.json) out(users.map(userJson));
      else if (users.length === 0) note('no users yet: cairn server user add <name> --role admin');
      else {
        const width = Math.max(...users.map((u) => u.name.length));
        for (const u of users)
          process.stdout.write(`${u.name.padEnd(width)}  ${u.role.padEnd(6)}  ${day(u.createdAt)}\n`);
      }
      return 0;
    }
  }
}

async function workstationCommand(
  store: Store,
  verb: string,
  name: string | undefined,
  values: Values,
): Promise<number> {
  switch (verb) {
    case 'add': {
      if (values.owner === undefined) throw usage('workstation add needs --owner <user>');
      if (name === LOCAL_WORKSTATION)
        throw usage(`'${LOCAL_WORKSTATION}' is the name of a daemon's own workstation: pick another`);
      const added = await store.workstations.add(name!, values.owner, values.shared ? 'shared' : 'private');
      const issued = await store.tickets.issue(added.name, { replace: true });
      if (!issued.ok) throw new Failure(issued.error.message);
      if (values.json) out({ ...workstationJson(added, issued.issuedAt), ticket: issued.ticket });
      else {
        process.stdout.write(`${issued.ticket}\n`);
        note(
          `the ticket of ${added.name} (${added.visibility}, owned by ${added.owner}); it is shown only now. Give it to the workstation in CAIRN_TICKET or a file for --ticket-file.`,
        );
      }
      return 0;
    }
    case 'remove': {
      const removed = await store.workstations.remove(name!);
      const revoked = await store.tickets.revoke(name!);
      if (!removed && revoked === 0) throw new Failure(`no workstation named ${name}`);
      if (values.json) out({ name, removed: true });
      else process.stdout.write(`removed workstation ${name}: its ticket no longer connects\n`);
      return 0;
    }
    default: {
      const [workstations, tickets] = await Promise.all([store.workstations.list(), store.tickets.list()]);
      const issued = new Map(tickets.map((t) => [t.name, t.issuedAt]));
      if (values.json) out(workstations.map((w) => workstationJson(w, issued.get(w.name))));
      else if (workstations.length === 0)
        note('no workstations yet: cairn server workstation add <name> --owner <user>');
      else {
        const width = Math.max(...workstations.map((w) => w.name.length));
        const owners = Math.max(...workstations.map((w) => w.owner.length));
        for (const w of workstations)
          process.stdout.write(
            `${w.name.padEnd(width)}  ${w.owner.padEnd(owners)}  ${w.visibility.padEnd(7)}  ${day(w.createdAt)}\n`,
          );
      }
      return 0;
    }
  }
}
